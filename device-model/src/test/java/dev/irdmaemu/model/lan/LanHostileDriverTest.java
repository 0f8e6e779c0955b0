package dev.irdmaemu.model.lan;

import static dev.irdmaemu.fw.lan.LanRegister.*;
import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Named.named;

import dev.irdmaemu.fw.lan.RxQueueContext;
import dev.irdmaemu.fw.lan.TxDescriptor;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A hostile driver's LAN rings: each bad context, tail, descriptor or length is answered by the device's own
 * reaction (queue not enabled, frame dropped and counted, MDD event), never an exception; the queue still works after.
 */
class LanHostileDriverTest {
    static final long UNMAPPED = 0x7_0000_0000L;

    static BytesStore<?, ?> goodRxContext(long ring) {
        BytesStore<?, ?> c = BytesStore.nativeStoreWithFixedCapacity(32);
        c.zeroOut(0, 32);
        new RxQueueContext().wrap(c, 0).ringBase(ring).queueLength(32).dataBufferBytes(2048).descriptor32(true)
                .crcStrip(true).rxMax(9000);
        return c;
    }

    static Stream<Arguments> badRxContexts() {
        return Stream.of(
                Arguments.of(named("qlen 0", (Consumer<RxQueueContext>) c -> c.queueLength(0))),
                Arguments.of(named("qlen 4", (Consumer<RxQueueContext>) c -> c.queueLength(4))),
                Arguments.of(named("16-byte descriptors", (Consumer<RxQueueContext>) c -> c.descriptor32(false))),
                Arguments.of(named("data buffer 0", (Consumer<RxQueueContext>) c -> c.dataBufferBytes(0))),
                Arguments.of(named("header split", (Consumer<RxQueueContext>) c -> c.descriptorType(1))),
                Arguments.of(named("rxmax 0", (Consumer<RxQueueContext>) c -> c.rxMax(0))));
    }

    @ParameterizedTest
    @MethodSource("badRxContexts")
    void aBadRxContextLeavesQenaStatClear(Consumer<RxQueueContext> spoil) {
        LanRig rig = new LanRig();
        BytesStore<?, ?> c = goodRxContext(rig.ram.allocate(4096));
        spoil.accept(new RxQueueContext().wrap(c, 0));
        assertFalse(rig.driver.programRx(3, c, 1));
        assertFalse(rig.lan.rx().enabled(3));
        assertEquals(1, rig.lan.rx().rejectedContexts());
        rig.deliver(LanRig.arpRequest());
        assertEquals(1, rig.lan.counters().rxNoQueue());
    }

    /**
     * The flow director's control VSI ring (ice_base.c ice_setup_rx_ctx with rx_buf_len 0: dbuf 0, rxmax 0) enables,
     * as ice_vsi_open_ctrl needs, and a frame that reaches it is dropped as oversize: it has no buffer for one.
     */
    @Test
    void aDescriptorOnlyRxQueueEnablesAndTakesNoFrame() {
        LanRig rig = new LanRig();
        BytesStore<?, ?> c = goodRxContext(rig.ram.allocate(4096));
        new RxQueueContext().wrap(c, 0).dataBufferBytes(0).rxMax(0);
        assertTrue(rig.driver.programRx(3, c, 1));
        assertTrue(rig.lan.rx().enabled(3));
        rig.deliver(LanRig.arpRequest());
        assertEquals(1, rig.lan.counters().rxOversize());
    }

    /** One Rx misbehaviour: what the driver does after a good setup, and the counter that must move. */
    record RxCase(Consumer<LanRig> act, ToLongFunction<LanQueues> counter, boolean mdd) {
    }

    static Stream<Arguments> rxCases() {
        return Stream.of(
                Arguments.of(named("tail beyond the ring", new RxCase(r -> {
                    r.lan.write32(QRX_TAIL, 40);
                    r.deliver(LanRig.arpRequest());
                }, l -> l.counters().rxNoDescriptor(), true))),
                Arguments.of(named("buffer address outside guest memory", new RxCase(r -> {
                    r.driver.rxBufs[0] = UNMAPPED;
                    r.driver.postRx(4);
                    r.deliver(LanRig.arpRequest());
                }, l -> l.counters().rxDmaFault(), true))),
                Arguments.of(named("buffer straddling the end of guest memory", new RxCase(r -> {
                    r.driver.rxBufs[0] = LanRig.RAM_BASE + (4L << 20) - 16;
                    r.driver.postRx(4);
                    r.deliver(LanRig.icmpEcho(100));
                }, l -> l.counters().rxDmaFault(), true))),
                Arguments.of(named("frame above rxmax", new RxCase(r -> {
                    r.driver.postRx(31);
                    r.deliver(new byte[12_000]);
                }, l -> l.counters().rxOversize(), false))),
                Arguments.of(named("empty frame", new RxCase(r -> {
                    r.driver.postRx(31);
                    r.lan.frame(LanRig.store(new byte[1]), 0, 0);
                }, l -> l.counters().rxOversize(), false))),
                Arguments.of(named("frame needs more descriptors than posted", new RxCase(r -> {
                    r.driver.postRx(1);
                    r.deliver(LanRig.tcp(false, LanRig.tcpFlags(), 1, 3000));
                }, l -> l.counters().rxNoDescriptor(), false))));
    }

    @ParameterizedTest
    @MethodSource("rxCases")
    void rxMisbehaviourDropsTheFrameAndTheQueueStillWorks(RxCase c) {
        LanRig rig = new LanRig();
        assertTrue(rig.driver.setupRx(0, 32, 2048, 1));
        c.act().accept(rig);
        assertEquals(1, c.counter().applyAsLong(rig.lan));
        assertEquals(0, rig.lan.counters().rxFrames());
        assertEquals(c.mdd(), rig.mddHooks > 0);
        if (c.mdd()) {
            int g = rig.lan.read32(GL_MDET_RX);
            assertNotEquals(0, g & GL_MDET_VALID_M);
            assertEquals(0, g & GL_MDET_QNUM_M);
            assertEquals(PF_MDET_VALID_M, rig.lan.read32(PF_MDET_RX));
            rig.lan.write32(GL_MDET_RX, 0xFFFF_FFFF); // ice_handle_mdd_event clears with all ones
            rig.lan.write32(PF_MDET_RX, 0xFFFF);
            assertEquals(0, rig.lan.read32(GL_MDET_RX));
            assertEquals(0, rig.lan.read32(PF_MDET_RX));
        }
        assertNull(rig.driver.receive(), "no descriptor was written back");
    }

    @Test
    void aVectorBeyondTheMsixTableRaisesNothing() {
        LanRig rig = new LanRig();
        assertTrue(rig.driver.setupRx(0, 32, 2048, 2046));
        rig.driver.postRx(4);
        rig.deliver(LanRig.arpRequest());
        assertEquals(1, rig.lan.counters().rxFrames());
        assertEquals(0, rig.lan.counters().rxInterrupts());
        assertEquals(1, rig.lan.droppedVectors());
    }

    @Test
    void anRxRingOutsideGuestMemoryDropsEveryFrame() {
        LanRig rig = new LanRig();
        assertTrue(rig.driver.programRx(0, goodRxContext(UNMAPPED), 1));
        rig.lan.write32(QRX_TAIL, 10);
        rig.deliver(LanRig.arpRequest());
        assertEquals(1, rig.lan.counters().rxDmaFault());
        assertEquals(1, rig.mddHooks);
    }

    /** One Tx misbehaviour: descriptors written into the ring (the driver's next_to_use advances), then the bell. */
    record TxCase(Consumer<IceLanDriver> act, boolean badDoorbell) {
    }

    static long data(int cmd, int size) {
        return TxDescriptor.dataQw1(cmd | TxDescriptor.CMD_EOP | TxDescriptor.CMD_RS, 0, 0, 0, size, 0);
    }

    static Stream<Arguments> txCases() {
        return Stream.of(
                Arguments.of(named("buffer outside guest memory", new TxCase(d -> d.putTx(UNMAPPED, data(0, 60)),
                        false))),
                Arguments.of(named("zero-length descriptor", new TxCase(d -> d.putTx(d.ram.allocate(64), data(0, 0)),
                        false))),
                Arguments.of(named("filter-program descriptor type", new TxCase(d -> d.putTx(0, 0x8), false))),
                Arguments.of(named("no EOP before the tail", new TxCase(d -> {
                    long b = d.ram.allocate(4096);
                    d.putTx(b, TxDescriptor.dataQw1(0, 0, 0, 0, 100, 0));
                    d.putTx(b, TxDescriptor.dataQw1(0, 0, 0, 0, 100, 0));
                }, false))),
                Arguments.of(named("frame shorter than an Ethernet header", new TxCase(
                        d -> d.putTx(d.ram.allocate(64), data(0, 8)), false))),
                Arguments.of(named("frame above the MTU without TSO", new TxCase(d -> {
                    long b = d.ram.allocate(16384);
                    d.putTx(b, TxDescriptor.dataQw1(0, 0, 0, 0, 16000, 0));
                    d.putTx(b, data(0, 16000));
                }, false))),
                Arguments.of(named("checksum offload with headers longer than the frame", new TxCase(
                        d -> d.putTx(d.ram.allocate(64), TxDescriptor.dataQw1(TxDescriptor.CMD_EOP | TxDescriptor.CMD_RS
                                | TxDescriptor.CMD_IIPT_IPV4_CSUM | TxDescriptor.CMD_L4T_TCP, 14, 60, 20, 60, 0)),
                        false))),
                Arguments.of(named("TSO with an MSS below 64", new TxCase(d -> {
                    d.putTx(0, TxDescriptor.tsoContextQw1(1000, 32));
                    d.putTx(d.ram.allocate(4096), data(TxDescriptor.CMD_L4T_TCP, 1054));
                }, false))),
                Arguments.of(named("TSO length that does not match the packet", new TxCase(d -> {
                    byte[] f = LanRig.tcp(false, LanRig.tcpFlags(), 1, 3000);
                    d.queueFrame(f, 1, TxDescriptor.CMD_IIPT_IPV4_CSUM | TxDescriptor.CMD_L4T_TCP, 14, 20, 20, 1000,
                            2000);
                    d.txEop.clear();
                }, false))),
                Arguments.of(named("TSO headers without TCP", new TxCase(d -> {
                    byte[] f = LanRig.tcp(false, LanRig.tcpFlags(), 1, 3000);
                    d.queueFrame(f, 1, TxDescriptor.CMD_IIPT_IPV4_CSUM, 14, 20, 0, 1000, 3000 + 20);
                    d.txEop.clear();
                }, false))),
                Arguments.of(named("ring of qlen 0", new TxCase(d -> d.txRings.put(d.txq, new long[] {d.txRing, 0}),
                        true))),
                Arguments.of(named("ring outside guest memory", new TxCase(d -> d.txRings.put(d.txq,
                        new long[] {UNMAPPED, 64}), false))));
    }

    @ParameterizedTest
    @MethodSource("txCases")
    void txMisbehaviourDropsThePacketAndTheQueueStillWorks(TxCase c) {
        LanRig rig = new LanRig();
        IceLanDriver d = rig.driver;
        d.setupTx(0, 64, 2);
        c.act().accept(d);
        if (d.txNtu == 0) {
            d.txNtu = 1; // a case that wrote no descriptor still rings a tail of 1
        }
        d.ringTx();
        assertTrue(rig.wire.isEmpty(), "nothing on the wire");
        if (c.badDoorbell()) {
            assertEquals(1, rig.lan.counters().txBadDoorbell());
        } else {
            assertEquals(1, rig.lan.counters().txDropped());
            assertTrue(rig.mddHooks > 0, "MDD raised");
            int g = rig.lan.read32(GL_MDET_TX_TCLAN);
            assertNotEquals(0, g & GL_MDET_VALID_M);
            assertEquals(PF_MDET_VALID_M, rig.lan.read32(PF_MDET_TX_TCLAN));
        }
        // the driver recovers the queue (as ice does after a reset of it) and sends a good frame
        d.txRings.put(0, new long[] {d.txRing, 64});
        rig.lan.tx().queueCreated(0);
        d.txNtu = 0;
        d.txEop.clear();
        byte[] arp = LanRig.arpRequest();
        d.queueFrame(arp, 1, 0, 0, 0, 0, 0, 0);
        d.ringTx();
        assertEquals(1, rig.wire.size());
        assertArrayEquals(arp, rig.wire.get(0));
        assertEquals(1, d.cleanTx());
    }

    @Test
    void aTxTailBeyondTheRingRaisesMddAndMovesNothing() {
        LanRig rig = new LanRig();
        rig.driver.setupTx(0, 64, 2);
        rig.lan.write32(QTX_COMM_DBELL, 64);
        rig.lan.write32(QTX_COMM_DBELL, -1);
        assertEquals(2, rig.lan.counters().txBadDoorbell());
        assertEquals(2, rig.mddHooks);
        assertEquals(0, rig.lan.read32(QTX_COMM_HEAD));
        int g = rig.lan.read32(GL_MDET_TX_TCLAN);
        assertEquals(TxPath.MDD_TAIL, (g & GL_MDET_MAL_TYPE_M) >>> GL_MDET_MAL_TYPE_S);
    }

    @Test
    void aDroppedPacketStillCompletesItsDescriptorsSoTheDriverCanFreeThem() {
        LanRig rig = new LanRig();
        IceLanDriver d = rig.driver;
        d.setupTx(0, 64, 2);
        d.putTx(UNMAPPED, data(0, 60));
        d.txEop.add(0);
        d.ringTx();
        assertEquals(1, d.cleanTx());
        assertEquals(1, rig.vectors[2]);
    }
}
