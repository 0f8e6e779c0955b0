package dev.irdmaemu.fw.roce;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * The extension headers of one received packet, each flyweight wrapped where the packet's {@link BthOpcode} puts
 * it (IBA Vol. 1 §9.2-§9.5), or left empty (0 bytes: its accessors read 0) when the opcode does not carry it. One
 * instance per {@link RoceFrame}, rewrapped per packet; no allocation.
 */
public final class ExtensionHeaders {
    private final Reth reth = new Reth();
    private final Aeth aeth = new Aeth();
    private final Deth deth = new Deth();
    private final ImmDt immDt = new ImmDt();
    private final Ieth ieth = new Ieth();
    private final AtomicEth atomicEth = new AtomicEth();
    private final AtomicAckEth atomicAckEth = new AtomicAckEth();
    private final Cnp cnp = new Cnp();

    /** Wraps the headers {@code op} carries, starting at absolute {@code afterBth} (the first byte after the BTH). */
    void wrap(BthOpcode op, BytesStore<?, ?> store, long afterBth) {
        reth.wrap(store, at(op, ExtensionHeader.RETH, afterBth), len(op, ExtensionHeader.RETH));
        aeth.wrap(store, at(op, ExtensionHeader.AETH, afterBth), len(op, ExtensionHeader.AETH));
        deth.wrap(store, at(op, ExtensionHeader.DETH, afterBth), len(op, ExtensionHeader.DETH));
        immDt.wrap(store, at(op, ExtensionHeader.IMM_DT, afterBth), len(op, ExtensionHeader.IMM_DT));
        ieth.wrap(store, at(op, ExtensionHeader.IETH, afterBth), len(op, ExtensionHeader.IETH));
        atomicEth.wrap(store, at(op, ExtensionHeader.ATOMIC_ETH, afterBth), len(op, ExtensionHeader.ATOMIC_ETH));
        atomicAckEth.wrap(store, at(op, ExtensionHeader.ATOMIC_ACK_ETH, afterBth),
                len(op, ExtensionHeader.ATOMIC_ACK_ETH));
        cnp.wrap(store, at(op, ExtensionHeader.CNP_RESERVED, afterBth), len(op, ExtensionHeader.CNP_RESERVED));
    }

    /** Leaves every header empty (before a packet's opcode is known). */
    void clear(BytesStore<?, ?> store, long at) {
        reth.wrap(store, at, 0);
        aeth.wrap(store, at, 0);
        deth.wrap(store, at, 0);
        immDt.wrap(store, at, 0);
        ieth.wrap(store, at, 0);
        atomicEth.wrap(store, at, 0);
        atomicAckEth.wrap(store, at, 0);
        cnp.wrap(store, at, 0);
    }

    private static long at(BthOpcode op, ExtensionHeader h, long afterBth) {
        return op.carries(h) ? afterBth + op.offsetOf(h) : afterBth;
    }

    private static long len(BthOpcode op, ExtensionHeader h) {
        return op.carries(h) ? h.length() : 0;
    }

    public Reth reth() {
        return reth;
    }

    public Aeth aeth() {
        return aeth;
    }

    public Deth deth() {
        return deth;
    }

    public ImmDt immDt() {
        return immDt;
    }

    public Ieth ieth() {
        return ieth;
    }

    public AtomicEth atomicEth() {
        return atomicEth;
    }

    public AtomicAckEth atomicAckEth() {
        return atomicAckEth;
    }

    public Cnp cnp() {
        return cnp;
    }
}
