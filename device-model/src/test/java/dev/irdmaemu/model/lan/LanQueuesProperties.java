package dev.irdmaemu.model.lan;

import static dev.irdmaemu.fw.lan.LanRegister.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.lan.RxFlexDescriptor;
import dev.irdmaemu.fw.lan.TxDescriptor;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Whatever a driver writes into the LAN rings and whatever tails it rings, nothing throws, the heads stay inside
 * their rings, and the device writes nothing outside the Rx ring, the Rx buffer slots and the Tx ring (Tx buffers
 * and the rest of guest memory keep their bytes). Posted buffers: the slots, one 100 bytes before the end of guest
 * memory (a frame longer than that must not be written), and addresses outside guest memory.
 */
class LanQueuesProperties {
    static final int RX_LEN = 32;
    static final int TX_LEN = 32;
    static final int SLOTS = 8;
    static final int SLOT = 2048;
    static final long UNMAPPED = 0x9_0000_0000L;
    static final byte PATTERN = (byte) 0xA5;

    /** kind 0 Rx descriptor, 1 Rx tail, 2 frame, 3 Tx descriptor, 4 Tx doorbell, 5 register write. */
    record Op(int kind, int index, int addrKind, long value, int length) {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> op = Combinators.combine(Arbitraries.integers().between(0, 5),
                Arbitraries.integers().between(0, 63), Arbitraries.integers().between(0, 3),
                Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.longs().between(0, 40),
                        Arbitraries.longs().between(0, 0xFFFF).map(v -> TxDescriptor.dataQw1(
                                (int) (long) v & 0xFFF, (int) (long) v & 0xFE, 20, 20, (int) (v * 7) & 0x3FFF, 0)),
                        Arbitraries.longs().map(v -> TxDescriptor.tsoContextQw1((int) (long) v & 0x3FFFF, (int) (v >>> 20)))),
                Arbitraries.integers().between(0, 12_000)).as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(tries = 100)
    void randomRingsAndTailsNeverThrowNorWriteOutsideRingsAndPostedBuffers(@ForAll("ops") List<Op> ops) {
        LanRig rig = new LanRig(1L << 20);
        IceLanDriver d = rig.driver;
        assertTrue(d.setupRx(0, RX_LEN, SLOT, 1));
        d.setupTx(0, TX_LEN, 2);
        long slots = rig.ram.allocate((long) SLOTS * SLOT);
        long txBufs = rig.ram.allocate(64 * 1024);
        BytesStore<?, ?> ram = rig.memory.store(0);
        long ramOff = rig.memory.offset(0, LanRig.RAM_BASE);
        long ramLen = rig.memory.length(0);
        for (long i = 0; i < ramLen; i++) {
            ram.writeByte(ramOff + i, PATTERN);
        }
        for (Op op : ops) {
            switch (op.kind()) {
                case 0 -> {
                    long addr = switch (op.addrKind()) {
                        case 0 -> slots + (long) (op.index() % SLOTS) * SLOT;
                        case 1 -> UNMAPPED + op.value();
                        case 2 -> LanRig.RAM_BASE + ramLen - 100;
                        default -> slots + (long) (op.index() % SLOTS) * SLOT + SLOT / 2;
                    };
                    long at = d.rxRing + (long) (op.index() % RX_LEN) * RxFlexDescriptor.SIZE;
                    rig.memory.writeLong(at, op.addrKind() == 3 ? slots : addr);
                    rig.memory.writeLong(at + 8, op.value());
                }
                case 1 -> rig.lan.write32(QRX_TAIL, (int) op.value());
                case 2 -> {
                    byte[] f = op.length() % 3 == 0 ? LanRig.tcp(false, LanRig.tcpFlags(), op.value(),
                            op.length() % 1400) : new byte[op.length()];
                    rig.deliver(f);
                }
                case 3 -> {
                    long addr = switch (op.addrKind()) {
                        case 0 -> txBufs + op.index() * 512L;
                        case 1 -> UNMAPPED;
                        case 2 -> op.value();
                        default -> LanRig.RAM_BASE + ramLen - 8;
                    };
                    long at = d.txRing + (long) (op.index() % TX_LEN) * TxDescriptor.SIZE;
                    rig.memory.writeLong(at, addr);
                    rig.memory.writeLong(at + 8, op.value());
                }
                case 4 -> rig.lan.write32(QTX_COMM_DBELL, op.addrKind() == 0 ? (int) op.value() : op.index() % TX_LEN);
                default -> rig.lan.write32(op.index() % 2 == 0 ? QRX_CTRL : QINT_RQCTL, (int) op.value());
            }
            int rxHead = rig.lan.rx().head(0);
            assertTrue(rxHead >= 0 && rxHead < RX_LEN);
            int txHead = rig.lan.read32(QTX_COMM_HEAD);
            assertTrue(txHead >= 0 && txHead < TX_LEN);
        }
        for (long gpa = LanRig.RAM_BASE; gpa < LanRig.RAM_BASE + ramLen; gpa++) {
            boolean allowed = inside(gpa, d.rxRing, (long) RX_LEN * RxFlexDescriptor.SIZE)
                    || inside(gpa, slots, (long) SLOTS * SLOT) || inside(gpa, d.txRing, (long) TX_LEN * TxDescriptor.SIZE)
                    || inside(gpa, LanRig.RAM_BASE + ramLen - 100, 100); // the buffer posted at the end of RAM
            if (!allowed) {
                assertEquals(PATTERN, ram.readByte(ramOff + gpa - LanRig.RAM_BASE),
                        "byte at 0x" + Long.toHexString(gpa) + " written");
            }
        }
    }

    private static boolean inside(long gpa, long base, long len) {
        return gpa >= base && gpa < base + len;
    }
}
