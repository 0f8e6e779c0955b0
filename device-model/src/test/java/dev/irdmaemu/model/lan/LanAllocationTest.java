package dev.irdmaemu.model.lan;

import static dev.irdmaemu.fw.lan.LanRegister.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.lan.RxFlexDescriptor;
import dev.irdmaemu.fw.lan.TxDescriptor;
import java.lang.management.ManagementFactory;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** The per-frame paths (Tx doorbell to frame, TSO segmentation, frame to Rx write-back) allocate nothing. */
class LanAllocationTest {
    private static final int ITERATIONS = 10_000;
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void txRxAndTsoAllocateNothingPerFrame() {
        LanRig rig = new LanRig();
        long[] sent = new long[1];
        rig.lan.wire((s, off, len) -> sent[0] += len);
        IceLanDriver d = rig.driver;
        assertTrue(d.setupRx(0, 64, 2048, 1));
        d.setupTx(0, 64, 2);
        // one ARP frame and one TSO super-frame in DMA buffers, written once
        byte[] arp = LanRig.arpRequest();
        long arpBuf = rig.ram.allocate(arp.length);
        rig.memory.copyIn(arpBuf, LanRig.store(arp), 0, arp.length);
        byte[] tso = LanRig.tcp(false, LanRig.tcpFlags(), 1, 8000);
        long tsoBuf = rig.ram.allocate(tso.length);
        rig.memory.copyIn(tsoBuf, LanRig.store(tso), 0, tso.length);
        BytesStore<?, ?> rxFrame = LanRig.store(LanRig.tcp(false, LanRig.tcpFlags(), 9, 1400));
        int rxLen = (int) rxFrame.capacity();
        long arpQw1 = TxDescriptor.dataQw1(TxDescriptor.CMD_EOP | TxDescriptor.CMD_RS, 0, 0, 0, arp.length, 0);
        long ctxQw1 = TxDescriptor.tsoContextQw1(tso.length - 54, 1448);
        long tsoQw1 = TxDescriptor.dataQw1(TxDescriptor.CMD_EOP | TxDescriptor.CMD_RS
                | TxDescriptor.CMD_IIPT_IPV4_CSUM | TxDescriptor.CMD_L4T_TCP, 14, 20, 20, tso.length, 0);
        int[] st = new int[2]; // tx next_to_use, rx next_to_use
        Runnable one = () -> {
            int t = st[0];
            boolean big = (t & 7) == 0;
            if (big) {
                rig.memory.writeLong(d.txRing + t * 16L, 0);
                rig.memory.writeLong(d.txRing + t * 16L + 8, ctxQw1);
                t = (t + 1) % 64;
                rig.memory.writeLong(d.txRing + t * 16L, tsoBuf);
                rig.memory.writeLong(d.txRing + t * 16L + 8, tsoQw1);
            } else {
                rig.memory.writeLong(d.txRing + t * 16L, arpBuf);
                rig.memory.writeLong(d.txRing + t * 16L + 8, arpQw1);
            }
            st[0] = (t + 1) % 64;
            rig.lan.write32(QTX_COMM_DBELL, st[0]);
            int r = st[1];
            rig.memory.writeLong(d.rxRing + r * (long) RxFlexDescriptor.SIZE, d.rxBufs[r]);
            rig.memory.writeLong(d.rxRing + r * (long) RxFlexDescriptor.SIZE + 8, 0);
            st[1] = (r + 1) % 64;
            rig.lan.write32(QRX_TAIL, st[1]);
            rig.lan.frame(rxFrame, 0, rxLen);
        };
        for (int i = 0; i < 20_000; i++) {
            one.run();
        }
        long t = Thread.currentThread().getId();
        long a = threads.getThreadAllocatedBytes(t);
        long base = threads.getThreadAllocatedBytes(t) - a;
        long before = threads.getThreadAllocatedBytes(t);
        for (int i = 0; i < ITERATIONS; i++) {
            one.run();
        }
        long used = threads.getThreadAllocatedBytes(t) - before - base;
        assertEquals(0, rig.lan.counters().txDropped());
        assertEquals(0, rig.lan.counters().rxNoDescriptor());
        assertEquals(30_000, rig.lan.counters().rxFrames());
        assertTrue(rig.lan.counters().txTsoSegments() > 0);
        assertTrue(used < ITERATIONS, "LAN frames allocated " + used + " bytes in " + ITERATIONS);
    }
}
