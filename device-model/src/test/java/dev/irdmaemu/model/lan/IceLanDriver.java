package dev.irdmaemu.model.lan;

import static dev.irdmaemu.fw.lan.LanRegister.*;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.lan.RxFlexDescriptor;
import dev.irdmaemu.fw.lan.RxQueueContext;
import dev.irdmaemu.fw.lan.TxDescriptor;
import dev.irdmaemu.fw.bus.Mmio;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The LAN ring side of ice.ko, written after ice_base.c (ice_setup_rx_ctx, ice_vsi_cfg_rxq, ice_vsi_ctrl_one_rx_ring
 * and its QENA_STAT poll, ice_cfg_rxq_interrupt / ice_cfg_txq_interrupt), ice_txrx.c (ice_alloc_rx_bufs and its tail
 * write, ice_clean_rx_irq reading DD first and the EOP descriptor's ptype and status, ice_tx_map with EOP|RS on the
 * last descriptor, ice_tso's context descriptor, ice_clean_tx_irq testing the EOP descriptor's DTYPE). The Tx
 * context add_txqs would carry is kept in a map the engine reads ({@link #txContexts}).
 */
final class IceLanDriver {
    /** A received frame as ice_clean_rx_irq assembles it. */
    record Received(byte[] bytes, int ptype, int status0, int descriptors, int rssHash) {
    }

    final HostRam ram;
    final Mmio bar;
    final Map<Integer, long[]> txRings = new HashMap<>();
    // Rx queue state
    int rxq;
    long rxRing;
    int rxCount;
    int rxBufLen;
    long[] rxBufs;
    int rxNtu;
    int rxNtc;
    // Tx queue state
    int txq;
    long txRing;
    int txCount;
    int txNtu;
    int txNtc;
    final List<Integer> txEop = new ArrayList<>();
    final List<long[]> txBufs = new ArrayList<>();

    IceLanDriver(HostRam ram, Mmio bar) {
        this.ram = ram;
        this.bar = bar;
    }

    TxContextSource txContexts() {
        return (q, out) -> {
            long[] r = txRings.get(q);
            if (r == null) {
                return false;
            }
            out.set(r[0], (int) r[1]);
            return true;
        };
    }

    /** ice_vsi_cfg_rxq + ice_vsi_ctrl_one_rx_ring + ice_vsi_wait_one_rx_ring; answers whether QENA_STAT came up. */
    boolean setupRx(int pfq, int count, int bufLen, int vector) {
        rxq = pfq;
        rxCount = count;
        rxBufLen = bufLen;
        rxRing = ram.allocate((long) count * RxFlexDescriptor.SIZE);
        rxBufs = new long[count];
        for (int i = 0; i < count; i++) {
            rxBufs[i] = ram.allocate(bufLen);
        }
        BytesStore<?, ?> ctx = BytesStore.nativeStoreWithFixedCapacity(RxQueueContext.SIZE);
        ctx.zeroOut(0, RxQueueContext.SIZE);
        new RxQueueContext().wrap(ctx, 0).ringBase(rxRing).queueLength(count).dataBufferBytes(bufLen)
                .descriptor32(true).crcStrip(true).l2TagSelect(true).descriptorType(RxQueueContext.DTYPE_NO_SPLIT)
                .rxMax(Math.min(9728 + 18, RxQueueContext.MAX_CHAINED_BUFFERS * bufLen)).lowThreshold(1)
                .prefetch(true);
        return programRx(pfq, ctx, vector);
    }

    boolean programRx(int pfq, BytesStore<?, ?> ctx, int vector) {
        // ice_write_qrxflxp_cntxt: RXDID 2 (flex NIC), priority 3
        bar.write32(QRXFLXP_CNTXT + pfq * 4L, 2 | 3 << 8);
        for (int i = 0; i < QRX_CONTEXT_DWORDS; i++) {
            bar.write32(QRX_CONTEXT + (long) i * QRX_CONTEXT_DWORD_STRIDE + pfq * 4L, ctx.readInt(i * 4L));
        }
        bar.write32(QRX_TAIL + pfq * 4L, 0);
        bar.write32(QINT_RQCTL + pfq * 4L, vector | QINT_CAUSE_ENA_M);
        bar.write32(QRX_CTRL + pfq * 4L, bar.read32(QRX_CTRL + pfq * 4L) | QRX_CTRL_QENA_REQ_M);
        for (int i = 0; i < 10; i++) {
            if ((bar.read32(QRX_CTRL + pfq * 4L) & QRX_CTRL_QENA_STAT_M) != 0) {
                return true;
            }
        }
        return false;
    }

    /** ice_alloc_rx_bufs: posts {@code n} buffers from next_to_use and writes the tail. */
    void postRx(int n) {
        for (int i = 0; i < n; i++) {
            long d = rxRing + (long) rxNtu * RxFlexDescriptor.SIZE;
            ram.memory().writeLong(d, rxBufs[rxNtu]);
            ram.memory().writeLong(d + 8, 0); // clears DD (hdr_addr bit 0)
            rxNtu = (rxNtu + 1) % rxCount;
        }
        bar.write32(QRX_TAIL + rxq * 4L, rxNtu);
    }

    /** ice_clean_rx_irq for one frame: null when the descriptor at next_to_clean has no DD. */
    Received receive() {
        HostMemory m = ram.memory();
        BytesStore<?, ?> d = BytesStore.nativeStoreWithFixedCapacity(RxFlexDescriptor.SIZE);
        RxFlexDescriptor desc = new RxFlexDescriptor();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int n = 0;
        int at = rxNtc;
        while (true) {
            m.copyOut(rxRing + (long) at * RxFlexDescriptor.SIZE, d, 0, RxFlexDescriptor.SIZE);
            desc.wrap(d, 0);
            if (!desc.done()) {
                return null;
            }
            int len = desc.packetLength();
            BytesStore<?, ?> buf = BytesStore.nativeStoreWithFixedCapacity(Math.max(1, len));
            m.copyOut(rxBufs[at], buf, 0, len);
            for (int i = 0; i < len; i++) {
                out.write(buf.readByte(i));
            }
            n++;
            at = (at + 1) % rxCount;
            if (desc.endOfPacket()) {
                rxNtc = at;
                return new Received(out.toByteArray(), desc.packetType(), desc.status0(), n, desc.rssHash());
            }
        }
    }

    /** ice_vsi_cfg_txq after add_txqs: the context (kept for the engine) and the interrupt mapping. */
    void setupTx(int pfq, int count, int vector) {
        txq = pfq;
        txCount = count;
        txRing = ram.allocate((long) count * TxDescriptor.SIZE);
        txRings.put(pfq, new long[] {txRing, count});
        bar.write32(QINT_TQCTL + pfq * 4L, vector | QINT_CAUSE_ENA_M);
    }

    /** Writes one descriptor at next_to_use. */
    void putTx(long qw0, long qw1) {
        long d = txRing + (long) txNtu * TxDescriptor.SIZE;
        ram.memory().writeLong(d, qw0);
        ram.memory().writeLong(d + 8, qw1);
        txNtu = (txNtu + 1) % txCount;
    }

    /**
     * ice_tx_map for a frame split into {@code pieces} buffers (each copied into its own DMA buffer), with ice's
     * offload fields on every data descriptor and EOP|RS on the last; a TSO context descriptor first when
     * {@code mss > 0}. Does not ring the doorbell.
     */
    void queueFrame(byte[] frame, int pieces, int cmd, int macLen, int ipLen, int l4Len, int mss, int tsoLen) {
        if (mss > 0) {
            putTx(0, TxDescriptor.tsoContextQw1(tsoLen, mss));
        }
        int per = (frame.length + pieces - 1) / pieces;
        int eop = -1;
        for (int off = 0; off < frame.length; off += per) {
            int len = Math.min(per, frame.length - off);
            long buf = ram.allocate(len);
            BytesStore<?, ?> b = BytesStore.nativeStoreWithFixedCapacity(len);
            for (int i = 0; i < len; i++) {
                b.writeByte(i, frame[off + i]);
            }
            ram.memory().copyIn(buf, b, 0, len);
            boolean last = off + len >= frame.length;
            int c = cmd | (last ? TxDescriptor.CMD_EOP | TxDescriptor.CMD_RS : 0);
            eop = txNtu;
            putTx(buf, TxDescriptor.dataQw1(c, macLen, ipLen, l4Len, len, 0));
        }
        txEop.add(eop);
    }

    void ringTx() {
        bar.write32(QTX_COMM_DBELL + txq * 4L, txNtu);
    }

    /** ice_clean_tx_irq: how many queued packets have DESC_DONE on their EOP descriptor (removes them). */
    int cleanTx() {
        int done = 0;
        while (!txEop.isEmpty()) {
            long[] v = new long[1];
            ram.memory().readLong(txRing + (long) txEop.get(0) * TxDescriptor.SIZE + 8, v, 0);
            if ((v[0] & TxDescriptor.DTYPE_DESC_DONE) != TxDescriptor.DTYPE_DESC_DONE) {
                break;
            }
            txEop.remove(0);
            done++;
        }
        return done;
    }
}
