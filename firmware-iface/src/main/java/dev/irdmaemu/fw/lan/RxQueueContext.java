package dev.irdmaemu.fw.lan;

import dev.irdmaemu.fw.Check;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The Rx LAN queue context (struct ice_rlan_ctx) as ice writes it through the eight QRX_CONTEXT(i, q) dwords
 * (ice_common.c ice_write_rxq_ctx, packed by the ice_rlan_ctx_fields table; ICE_RXQ_CTX_SZ = 32 bytes). What
 * ice_base.c ice_setup_rx_ctx sets: base in 128-byte units, qlen, dbuf in 128-byte units, dsize 1 (32-byte
 * descriptors), crcstrip, l2tsel, dtype 0 (no header split) unless header split is on, rxmax, lrxqthresh, prefena.
 * With header split on (ethtool's tcp-data-split, ice_base.c since the libeth header buffers): dtype 1
 * (ICE_RX_DTYPE_HEADER_SPLIT), hbuf the header buffer size in 64-byte units, hsplit_0 L2 | IP | TCP/UDP | SCTP.
 */
public final class RxQueueContext extends PackedContext {
    public static final int SIZE = 32;
    /** ICE_RLAN_BASE_S: the ring base is stored in 128-byte units. */
    public static final int BASE_SHIFT = 7;
    /** ICE_RLAN_CTX_DBUF_S: the data buffer size is stored in 128-byte units. */
    public static final int DBUF_SHIFT = 7;
    /** ICE_RX_DTYPE_NO_SPLIT. */
    public static final int DTYPE_NO_SPLIT = 0;
    /** ICE_RX_DTYPE_HEADER_SPLIT (ice_txrx.h): what ice_setup_rx_ctx programs for {@code tcp-data-split on}. */
    public static final int DTYPE_HEADER_SPLIT = 1;
    /** ICE_RLAN_CTX_HBUF_S (ice_lan_tx_rx.h): the header buffer size is stored in 64-byte units. */
    public static final int HBUF_SHIFT = 6;
    /** enum ice_rlan_ctx_rx_hsplit_0: split after L2, IP, TCP/UDP or SCTP headers. */
    public static final int HSPLIT_0_L2 = 1;
    public static final int HSPLIT_0_IP = 2;
    public static final int HSPLIT_0_TCP_UDP = 4;
    public static final int HSPLIT_0_SCTP = 8;
    /** ICE_MAX_CHAINED_RX_BUFS: rxmax must not exceed 5 buffers. */
    public static final int MAX_CHAINED_BUFFERS = 5;
    /**
     * The fewest descriptors the model accepts in a ring: its own floor, looser than any bound in the sources, which
     * give no hardware minimum. The context's qlen field is 13 bits (ice_common.c ice_rlan_ctx_fields); ice itself
     * never programs a ring shorter than ICE_MIN_NUM_DESC (64) or not a multiple of ICE_REQ_DESC_MULTIPLE (32)
     * (ice.h; ice_ethtool.c ice_set_ringparam, and virt/queues.c ice_vc_isvalid_ring_len for the rings of its VFs),
     * a driver policy the model leaves to the driver. Below 8 descriptors the model refuses the context.
     */
    public static final int MIN_QLEN = 8;

    /** The rules the model applies before it enables a queue (QENA_REQ). */
    public enum Status implements Check {
        ACCEPTED("accepted"),
        SHORT("context shorter than 32 bytes"),
        QLEN_TOO_SMALL("qlen below 8 descriptors"),
        DBUF_ZERO("data buffer size 0"),
        DESC_16_BYTE("16-byte descriptors (dsize 0): ice uses 32-byte flex descriptors"),
        HEADER_SPLIT("a split other than ice's header split (dtype 2 or 3, or dtype 1 without a header buffer or "
                + "with hsplit_0 0), not modelled"),
        RXMAX_ZERO("rxmax 0");

        private final String text;

        Status(String text) {
            this.text = text;
        }

        @Override
        public String describe() {
            return text;
        }
    }

    public RxQueueContext wrap(BytesStore<?, ?> store, long offset) {
        attach(store, offset, SIZE);
        return this;
    }

    public Status validate() {
        if (!has(0, SIZE)) {
            return fail(Status.SHORT, length);
        }
        if (queueLength() < MIN_QLEN) {
            return fail(Status.QLEN_TOO_SMALL, 11);
        }
        // ice_base.c ice_setup_rx_ctx for the flow director's control VSI: rx_buf_len 0 gives dbuf 0 and rxmax 0,
        // a queue that only ever gets descriptor write-backs (programming status), never a frame: accepted
        boolean descriptorOnly = dataBufferBytes() == 0 && rxMax() == 0;
        if (dataBufferBytes() == 0 && !descriptorOnly) {
            return fail(Status.DBUF_ZERO, 12);
        }
        if (!descriptor32()) {
            return fail(Status.DESC_16_BYTE, 14);
        }
        if (descriptorType() != DTYPE_NO_SPLIT && (descriptorType() != DTYPE_HEADER_SPLIT
                || headerBufferUnits() == 0 || headerSplit0() == 0)) {
            return fail(Status.HEADER_SPLIT, 14);
        }
        if (rxMax() == 0 && !descriptorOnly) {
            return fail(Status.RXMAX_ZERO, 21);
        }
        return Status.ACCEPTED;
    }

    public int head() {
        return (int) field(0, 13);
    }

    public int cpuId() {
        return (int) field(13, 8);
    }

    /** Ring base in bytes (57 bits at 32, in 128-byte units). */
    public long ringBase() {
        return field(32, 57) << BASE_SHIFT;
    }

    /** Ring length in descriptors (13 bits at 89). */
    public int queueLength() {
        return (int) field(89, 13);
    }

    /** Data buffer size in bytes (7 bits at 102, in 128-byte units). */
    public int dataBufferBytes() {
        return (int) field(102, 7) << DBUF_SHIFT;
    }

    public int headerBufferUnits() {
        return (int) field(109, 5);
    }

    /** Header buffer size in bytes (hbuf, 5 bits at 109, in 64-byte units); 0 without header split. */
    public int headerBufferBytes() {
        return headerBufferUnits() << HBUF_SHIFT;
    }

    public int descriptorType() {
        return (int) field(114, 2);
    }

    /** dsize: 1 for 32-byte descriptors. */
    public boolean descriptor32() {
        return field(116, 1) != 0;
    }

    public boolean crcStrip() {
        return field(117, 1) != 0;
    }

    public boolean l2TagSelect() {
        return field(119, 1) != 0;
    }

    public int headerSplit0() {
        return (int) field(120, 4);
    }

    public int headerSplit1() {
        return (int) field(124, 2);
    }

    public boolean showInnerVlan() {
        return field(127, 1) != 0;
    }

    /** Largest frame the queue takes, in bytes (14 bits at 174). */
    public int rxMax() {
        return (int) field(174, 14);
    }

    public int lowThreshold() {
        return (int) field(198, 3);
    }

    public boolean prefetch() {
        return field(201, 1) != 0;
    }

    // Writers, for the in-process ice-like driver (ice_setup_rx_ctx's fields).

    public RxQueueContext ringBase(long bytes) {
        putField(32, 57, bytes >>> BASE_SHIFT);
        return this;
    }

    public RxQueueContext queueLength(int n) {
        putField(89, 13, n);
        return this;
    }

    public RxQueueContext dataBufferBytes(int bytes) {
        putField(102, 7, (bytes + (1 << DBUF_SHIFT) - 1) >>> DBUF_SHIFT);
        return this;
    }

    public RxQueueContext descriptorType(int dtype) {
        putField(114, 2, dtype);
        return this;
    }

    /** Header buffer size in bytes (64-byte units; ice writes rx_hdr_len >> ICE_RLAN_CTX_HBUF_S). */
    public RxQueueContext headerBufferBytes(int bytes) {
        putField(109, 5, bytes >>> HBUF_SHIFT);
        return this;
    }

    public RxQueueContext headerSplit0(int flags) {
        putField(120, 4, flags);
        return this;
    }

    public RxQueueContext descriptor32(boolean on) {
        putField(116, 1, on ? 1 : 0);
        return this;
    }

    public RxQueueContext crcStrip(boolean on) {
        putField(117, 1, on ? 1 : 0);
        return this;
    }

    public RxQueueContext l2TagSelect(boolean on) {
        putField(119, 1, on ? 1 : 0);
        return this;
    }

    public RxQueueContext rxMax(int bytes) {
        putField(174, 14, bytes);
        return this;
    }

    public RxQueueContext lowThreshold(int v) {
        putField(198, 3, v);
        return this;
    }

    public RxQueueContext prefetch(boolean on) {
        putField(201, 1, on ? 1 : 0);
        return this;
    }
}
