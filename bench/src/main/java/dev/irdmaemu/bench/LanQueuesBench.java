package dev.irdmaemu.bench;

import static dev.irdmaemu.fw.lan.LanRegister.*;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.frame.ArpPacket;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.lan.RxFlexDescriptor;
import dev.irdmaemu.fw.lan.RxQueueContext;
import dev.irdmaemu.fw.lan.TxDescriptor;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.lan.LanQueues;
import dev.irdmaemu.model.lan.RssView;
import dev.irdmaemu.model.lan.RxSteering;
import dev.irdmaemu.model.trace.Trace;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * ice's LAN rings on the model, nanoseconds per operation: a Tx doorbell for one 60-byte ARP frame (descriptor
 * fetch, gather, the frame handed to the port, DESC_DONE, the queue's interrupt); a Tx doorbell for a 1514-byte TCP
 * frame with IPv4 and TCP checksum offload; a 64 KiB TSO super-frame cut into 46 MSS-1448 segments; and a 1514-byte
 * frame from the port into a posted Rx buffer with its flex write-back (ptype, checksum status) and interrupt; the
 * same with RSS on (a 52-byte key, the PF's 2048-entry LUT): the Toeplitz hash over the IPv4 or IPv6 TCP 4-tuple, the
 * LUT lookup and the hash in the descriptor. Run with {@code -prof gc} for B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LanQueuesBench {
    private static final int QLEN = 256;

    private HostRam ram;
    private HostMemory memory;
    private LanQueues lan;
    private long txRing;
    private long rxRing;
    private long[] rxBufs;
    private long arpBuf;
    private long tcpBuf;
    private long tsoBuf;
    private int arpLen;
    private int tcpLen;
    private int tsoLen;
    private BytesStore<?, ?> rxFrame;
    private int rxLen;
    private int txNtu;
    private int rxNtu;
    private long sent;
    private LanQueues rssLan;
    private long rssRing;
    private long[] rssBufs;
    private int rssNtu;
    private BytesStore<?, ?> rx6Frame;
    private int rx6Len;

    @Setup(Level.Trial)
    public void setUp() {
        memory = new HostMemory();
        ram = new HostRam(memory, 0x1_0000_0000L, 16L << 20);
        lan = new LanQueues(0, memory, new Trace(new SimScheduler(1)));
        lan.wire((s, off, len) -> sent += len);
        txRing = ram.allocate((long) QLEN * TxDescriptor.SIZE);
        long ring = txRing;
        lan.txContexts((q, out) -> q == 0 && out.set(ring, QLEN) != null);
        lan.write32(QINT_TQCTL, 2 | QINT_CAUSE_ENA_M);
        rxRing = ram.allocate((long) QLEN * RxFlexDescriptor.SIZE);
        rxBufs = rxBuffers();
        BytesStore<?, ?> ctx = BytesStore.nativeStoreWithFixedCapacity(RxQueueContext.SIZE);
        enableRx(lan, ctx, rxRing);

        BytesStore<?, ?> scratch = BytesStore.nativeStoreWithFixedCapacity(70_000);
        int n = EthernetFrame.write(scratch, 0, 0xFFFF_FFFF_FFFFL, 2, EthernetFrame.ETHERTYPE_ARP);
        n += ArpPacket.write(scratch, n, ArpPacket.REQUEST, 2, IpAddress.ipv4(10, 0, 0, 1), 0,
                IpAddress.ipv4(10, 0, 0, 2));
        arpLen = 60;
        arpBuf = dma(scratch, arpLen);
        tcpLen = tcp(scratch, 1460);
        tcpBuf = dma(scratch, tcpLen);
        tsoLen = tcp(scratch, 65_000);
        tsoBuf = dma(scratch, tsoLen);
        rxLen = tcp(scratch, 1460);
        rxFrame = BytesStore.nativeStoreWithFixedCapacity(rxLen);
        rxFrame.write(0, scratch, 0, rxLen);
        rx6Len = tcp6(scratch, 1440);
        rx6Frame = BytesStore.nativeStoreWithFixedCapacity(rx6Len);
        rx6Frame.write(0, scratch, 0, rx6Len);

        // a second PF's queues with RSS: every LUT entry names queue 0 of a 1-queue VSI, so one ring takes all
        rssLan = new LanQueues(0, memory, new Trace(new SimScheduler(1)));
        byte[] key = new byte[52];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (i * 37 + 11);
        }
        rssLan.rxSteering(new RxSteering() {
            @Override
            public long generation() {
                return 1;
            }

            @Override
            public boolean lookup(int queue, RssView out) {
                out.key(key, key.length).lutEntries(2048).contiguousQueues(0, 1).tc0(0, 0);
                for (int i = 0; i < 2048; i++) {
                    out.lutEntry(i, i % 4);
                }
                return true;
            }
        });
        rssRing = ram.allocate((long) QLEN * RxFlexDescriptor.SIZE);
        rssBufs = rxBuffers();
        enableRx(rssLan, ctx, rssRing);
    }

    /** A 2048-byte receive buffer for each of the ring's descriptors. */
    private long[] rxBuffers() {
        long[] bufs = new long[QLEN];
        for (int i = 0; i < QLEN; i++) {
            bufs[i] = ram.allocate(2048);
        }
        return bufs;
    }

    /**
     * Queue 0 of {@code queues} receiving into {@code ring}, as ice's ice_setup_rx_ctx and ice_vsi_cfg_rxq set it
     * up: the context (32-byte flex descriptors, 2048-byte buffers, CRC stripped) built in {@code ctx} and written
     * through QRX_CONTEXT, the queue's interrupt cause enabled, the queue enabled.
     */
    private static void enableRx(LanQueues queues, BytesStore<?, ?> ctx, long ring) {
        ctx.zeroOut(0, RxQueueContext.SIZE);
        new RxQueueContext().wrap(ctx, 0).ringBase(ring).queueLength(QLEN).dataBufferBytes(2048)
                .descriptor32(true).crcStrip(true).rxMax(9000);
        for (int i = 0; i < QRX_CONTEXT_DWORDS; i++) {
            queues.write32(QRX_CONTEXT + (long) i * QRX_CONTEXT_DWORD_STRIDE, ctx.readInt(i * 4L));
        }
        queues.write32(QINT_RQCTL, 1 | QINT_CAUSE_ENA_M);
        queues.write32(QRX_CTRL, QRX_CTRL_QENA_REQ_M);
    }

    private int tcp6(BytesStore<?, ?> out, int payload) {
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(4, 2).ipv6(0x3ffe_2501_0200_1fffL, 7,
                0x3ffe_2501_0200_0003L, 1);
        b.tcp().ports(2794, 1766).sequenceNumber(1).acknowledgmentNumber(1).flags(TcpHeader.ACK).window(512);
        long at = b.begin(out, 0, payload);
        out.zeroOut(at, at + payload);
        return b.finish();
    }

    private int tcp(BytesStore<?, ?> out, int payload) {
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(4, 2).ipv4(IpAddress.ipv4(10, 0, 0, 1),
                IpAddress.ipv4(10, 0, 0, 2));
        b.tcp().ports(40000, 5201).sequenceNumber(1).acknowledgmentNumber(1).flags(TcpHeader.ACK).window(512);
        long at = b.begin(out, 0, payload);
        out.zeroOut(at, at + payload);
        return b.finish();
    }

    private long dma(BytesStore<?, ?> src, int len) {
        long gpa = ram.allocate(len);
        memory.copyIn(gpa, src, 0, len);
        return gpa;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        ram.close();
    }

    private void put(long addr, long qw1) {
        long at = txRing + (long) txNtu * TxDescriptor.SIZE;
        memory.writeLong(at, addr);
        memory.writeLong(at + 8, qw1);
        txNtu = (txNtu + 1) % QLEN;
    }

    @Benchmark
    public long txArpFrame() {
        put(arpBuf, TxDescriptor.dataQw1(TxDescriptor.CMD_EOP | TxDescriptor.CMD_RS, 0, 0, 0, arpLen, 0));
        lan.write32(QTX_COMM_DBELL, txNtu);
        return sent;
    }

    @Benchmark
    public long txTcpFrameWithChecksumOffload() {
        put(tcpBuf, TxDescriptor.dataQw1(TxDescriptor.CMD_EOP | TxDescriptor.CMD_RS | TxDescriptor.CMD_IIPT_IPV4_CSUM
                | TxDescriptor.CMD_L4T_TCP, 14, 20, 20, tcpLen, 0));
        lan.write32(QTX_COMM_DBELL, txNtu);
        return sent;
    }

    @Benchmark
    public long txTso64k() {
        put(0, TxDescriptor.tsoContextQw1(tsoLen - 54, 1448));
        int left = tsoLen;
        long addr = tsoBuf;
        while (left > 0) {
            int chunk = Math.min(left, 12 * 1024);
            left -= chunk;
            int cmd = TxDescriptor.CMD_IIPT_IPV4_CSUM | TxDescriptor.CMD_L4T_TCP
                    | (left == 0 ? TxDescriptor.CMD_EOP | TxDescriptor.CMD_RS : 0);
            put(addr, TxDescriptor.dataQw1(cmd, 14, 20, 20, chunk, 0));
            addr += chunk;
        }
        lan.write32(QTX_COMM_DBELL, txNtu);
        return sent;
    }

    @Benchmark
    public long rxTcpFrame() {
        long at = rxRing + (long) rxNtu * RxFlexDescriptor.SIZE;
        memory.writeLong(at, rxBufs[rxNtu]);
        memory.writeLong(at + 8, 0);
        rxNtu = (rxNtu + 1) % QLEN;
        lan.write32(QRX_TAIL, rxNtu);
        lan.frame(rxFrame, 0, rxLen);
        return lan.counters().rxFrames();
    }

    private long rssReceive(BytesStore<?, ?> frame, int len) {
        rssLan.frame(frame, 0, len);
        long at = rssRing + (long) rssNtu * RxFlexDescriptor.SIZE;
        memory.writeLong(at, rssBufs[rssNtu]);
        memory.writeLong(at + 8, 0);
        rssNtu = (rssNtu + 1) % QLEN;
        rssLan.write32(QRX_TAIL, rssNtu);
        return rssLan.counters().rxHashed();
    }

    @Benchmark
    public long rxTcpFrameRss() {
        return rssReceive(rxFrame, rxLen);
    }

    @Benchmark
    public long rxTcp6FrameRss() {
        return rssReceive(rx6Frame, rx6Len);
    }
}
