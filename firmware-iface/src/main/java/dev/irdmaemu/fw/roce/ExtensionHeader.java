package dev.irdmaemu.fw.roce;

/**
 * The headers that may follow the Base Transport Header, in the order the InfiniBand Architecture Specification
 * Vol. 1 §9.2-§9.5 places them behind it (the same sizes as include/rdma/ib_pack.h and the layouts of
 * drivers/infiniband/sw/rxe/rxe_hdr.h), plus the 16 reserved bytes of a RoCEv2 Congestion Notification Packet
 * (IBA Annex A17). Which of them an opcode carries is {@link BthOpcode}'s table.
 */
public enum ExtensionHeader {
    /** Datagram ETH (IBA §9.3.3): Q_Key, source QP. */
    DETH(Deth.LENGTH),
    /** Flush ETH (IBA 1.5 §9.3.x, rxe_hdr.h FETH): selectivity level and placement type. */
    FETH(4),
    /** RDMA ETH (IBA §9.3.4): virtual address, R_Key, DMA length. */
    RETH(Reth.LENGTH),
    /** Atomic ETH (IBA §9.3.5): virtual address, R_Key, swap/add data, compare data. */
    ATOMIC_ETH(AtomicEth.LENGTH),
    /** ACK ETH (IBA §9.3.6): syndrome, MSN. */
    AETH(Aeth.LENGTH),
    /** Atomic Acknowledge ETH (IBA §9.3.7): the original remote data. */
    ATOMIC_ACK_ETH(AtomicAckEth.LENGTH),
    /** Immediate data (IBA §9.3.8). */
    IMM_DT(ImmDt.LENGTH),
    /** Invalidate ETH (IBA §9.3.9 / §10.6.3.4): the R_Key to invalidate. */
    IETH(Ieth.LENGTH),
    /** The 16 reserved bytes a CNP carries after its BTH (IBA Annex A17). */
    CNP_RESERVED(Cnp.RESERVED_LENGTH);

    private final int length;

    ExtensionHeader(int length) {
        this.length = length;
    }

    /** Bytes on the wire. */
    public int length() {
        return length;
    }

    /** This header's bit in {@link BthOpcode}'s header masks. */
    int bit() {
        return 1 << ordinal();
    }
}
