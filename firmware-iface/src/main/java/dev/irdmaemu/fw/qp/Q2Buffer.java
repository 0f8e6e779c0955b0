package dev.irdmaemu.fw.qp;

import dev.irdmaemu.fw.ByteWindow;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over an iWARP QP's 256-byte Q2 buffer (user.h IRDMA_Q2_BUF_SIZE): the buffer irdma_create_qp allocates
 * in front of the QP host context and irdma_sc_qp_setctx names in IRDMAQPC_Q2ADDR. iWARP error handling shares it
 * between driver and device:
 * <pre>
 *  +0    the Terminate header the driver builds (type.h struct irdma_terminate_hdr: layer_etype = layer &lt;&lt; 4 |
 *        error type, error_code, hdrct = DDP_LEN_FLAG 0x80 | DDP_HDR_FLAG 0x40 | RDMA_HDR_FLAG 0x20, rsvd), then the
 *        bytes of the offending FPDU it copies from its MPA header on: the 2-byte ULPDU length (RFC 5040 §4.8 "DDP
 *        Segment Length"), the DDP header (14 bytes tagged, 18 untagged) and for an RDMA Read Request its 28-byte
 *        RDMAP header (ctrl.c irdma_bld_terminate_hdr / irdma_bld_termhdr_ddp_rdma). These term_len bytes are the
 *        Terminate Control and what follows it in the Terminate message (RFC 5040 §4.8) the device sends when
 *        Modify QP to TERMINATE carries IRDMA_CQPSQ_QP_TERMLEN.
 *  +72   (defs.h Q2_BAD_FRAME_OFFSET) the frame the device copied when it raised an AE with IRDMA_AEQE_Q2DATA set:
 *        the whole Ethernet frame from its MAC header (irdma_locate_mpa skips IRDMA_MAC_HLEN = 14 bytes, then
 *        4 * (byte 0 &amp; 0x0f) of IP header, then 4 * (byte 12 &gt;&gt; 4) of TCP header). For an error AE it is the
 *        offending segment; for IRDMA_AE_LLP_TERMINATE_RECEIVED the peer's Terminate (irdma_terminate_received
 *        reads its DDP/RDMAP control, QN, MSN, MO and then the Terminate Control at MPA + 20).
 * </pre>
 * The frame area holds {@value #FRAME_CAPACITY} bytes; the device copies at most that much. Readers answer 0 (or
 * -1 for {@link #locateMpa()}) outside the buffer: what the device wrote is not trusted. The writers are the
 * driver's (Terminate header) and the device's ({@link #writeFrame}); no allocation.
 */
public final class Q2Buffer extends ByteWindow {
    /** user.h IRDMA_Q2_BUF_SIZE. */
    public static final int SIZE = 256;
    /** defs.h Q2_BAD_FRAME_OFFSET. */
    public static final int BAD_FRAME_OFFSET = 72;
    /** Bytes of frame the buffer holds after {@link #BAD_FRAME_OFFSET}. */
    public static final int FRAME_CAPACITY = SIZE - BAD_FRAME_OFFSET;
    /** defs.h IRDMA_MAC_HLEN: the frame's MAC header irdma_locate_mpa skips (no VLAN tag). */
    public static final int MAC_HEADER = 14;
    /** sizeof(struct irdma_terminate_hdr). */
    public static final int TERMINATE_HEADER_SIZE = 4;
    /** type.h enum irdma_hdrct_flags. */
    public static final int DDP_LEN_FLAG = 0x80;
    public static final int DDP_HDR_FLAG = 0x40;
    public static final int RDMA_HDR_FLAG = 0x20;
    /** defs.h TERM_DDP_LEN_TAGGED / TERM_DDP_LEN_UNTAGGED / TERM_RDMA_LEN. */
    public static final int TERM_DDP_LEN_TAGGED = 14;
    public static final int TERM_DDP_LEN_UNTAGGED = 18;
    public static final int TERM_RDMA_LEN = 28;
    /** The longest Terminate payload the driver builds: header, ULPDU length, untagged DDP and RDMAP headers. */
    public static final int MAX_TERM_LENGTH = TERMINATE_HEADER_SIZE + 2 + TERM_DDP_LEN_UNTAGGED + TERM_RDMA_LEN;

    public Q2Buffer wrap(BytesStore<?, ?> store, long offset) {
        attach(store, offset, SIZE);
        return this;
    }

    /** Byte {@code rel} of the buffer, 0 outside it. */
    public int u8(int rel) {
        return has(rel, 1) ? store.readUnsignedByte(base + rel) : 0;
    }

    /** Big-endian 16-bit value at {@code rel} (network order, as the frame carries it), 0 outside. */
    public int u16(int rel) {
        return has(rel, 2) ? u8(rel) << 8 | u8(rel + 1) : 0;
    }

    /** Big-endian 32-bit value at {@code rel}, 0 outside. */
    public long u32(int rel) {
        return has(rel, 4) ? (long) u16(rel) << 16 | u16(rel + 2) : 0;
    }

    // ---------------------------------------------------------------- the Terminate header (driver writes)

    public int layerEtype() {
        return u8(0);
    }

    /** The layer (type.h enum irdma_term_layers: 0 RDMAP, 1 DDP, 2 MPA), the high nibble of layer_etype. */
    public int layer() {
        return layerEtype() >>> 4;
    }

    /** The error type, the low nibble of layer_etype. */
    public int errorType() {
        return layerEtype() & 0x0f;
    }

    public int errorCode() {
        return u8(1);
    }

    public int hdrct() {
        return u8(2);
    }

    /**
     * Zeroes the buffer in front of the frame area and writes the Terminate header (ctrl.c irdma_bld_terminate_hdr:
     * memset of Q2_BAD_FRAME_OFFSET bytes, then the header fields).
     */
    public Q2Buffer writeTerminateHeader(int layerEtype, int errorCode, int hdrct) {
        requireWritable(0, BAD_FRAME_OFFSET);
        store.zeroOut(base, base + BAD_FRAME_OFFSET);
        store.writeUnsignedByte(base, layerEtype & 0xff);
        store.writeUnsignedByte(base + 1, errorCode & 0xff);
        store.writeUnsignedByte(base + 2, hdrct & 0xff);
        return this;
    }

    /**
     * Copies {@code length} bytes from {@code fromRel} (inside the frame area) to just after the Terminate header,
     * as irdma_bld_terminate_hdr's memcpy(termhdr + 1, pkt, copy_len). Answers the bytes copied: fewer when the
     * source runs past the buffer (what the device wrote is bounded here).
     */
    public int copyOffendingHeaders(int fromRel, int length) {
        int n = Math.max(0, Math.min(length, SIZE - fromRel));
        n = Math.min(n, BAD_FRAME_OFFSET - TERMINATE_HEADER_SIZE);
        if (fromRel < BAD_FRAME_OFFSET || n == 0) {
            return 0;
        }
        requireWritable(TERMINATE_HEADER_SIZE, n);
        for (int i = 0; i < n; i++) {
            store.writeUnsignedByte(base + TERMINATE_HEADER_SIZE + i, u8(fromRel + i));
        }
        return n;
    }

    // ---------------------------------------------------------------- the frame area (device writes)

    /**
     * ctrl.c irdma_locate_mpa on the frame at {@link #BAD_FRAME_OFFSET}: the offset of its MPA header inside the
     * buffer, or -1 when the header lengths the frame claims point past the buffer (the kernel does not check).
     */
    public int locateMpa() {
        int ip = BAD_FRAME_OFFSET + MAC_HEADER;
        int tcp = ip + 4 * (u8(ip) & 0x0f);
        if (!has(tcp + 12, 1)) {
            return -1;
        }
        int mpa = tcp + 4 * (u8(tcp + 12) >>> 4 & 0x0f);
        return has(mpa, 1) ? mpa : -1;
    }

    /**
     * Copies a received frame (MAC header first) into the frame area, truncated to {@link #FRAME_CAPACITY}: what the
     * device does before raising an AE with IRDMA_AEQE_Q2DATA. Answers the bytes copied.
     */
    public int writeFrame(BytesStore<?, ?> src, long srcOffset, int length) {
        int n = Math.max(0, Math.min(length, FRAME_CAPACITY));
        requireWritable(BAD_FRAME_OFFSET, n);
        store.write(base + BAD_FRAME_OFFSET, src, srcOffset, n);
        return n;
    }

    private void requireWritable(int rel, int n) {
        if (!has(rel, n)) {
            throw new IllegalArgumentException("Q2 write of " + n + " bytes at +" + rel + " outside the "
                    + length + "-byte window");
        }
    }
}
