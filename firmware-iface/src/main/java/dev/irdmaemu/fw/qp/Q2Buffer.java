package dev.irdmaemu.fw.qp;

import dev.irdmaemu.fw.ByteWindow;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.fw.iwarp.RdmaReadRequest;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.iwarp.Terminate;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over an iWARP QP's 256-byte Q2 buffer (user.h IRDMA_Q2_BUF_SIZE): the buffer irdma_create_qp allocates
 * in front of the QP host context and irdma_sc_qp_setctx names in IRDMAQPC_Q2ADDR. It is where driver and device
 * exchange what RFC 5040 §4.8's Terminate needs (irdma's split of the work on gen2), and this class is the one
 * description of that layout: the driver side ({@code driver.verbs}) and the device side ({@code model.iwarp}) both wrap
 * it.
 * <pre>
 *  +0    the Terminate message the driver builds for the device to send ({@link #writeTerminate}; read back with
 *        {@link #terminate()}): RFC 5040 §4.8 Terminate
 *        Control, type.h struct irdma_terminate_hdr: layer_etype, error_code, hdrct = M 0x80 | D 0x40 | R 0x20,
 *        rsvd), then the bytes of the offending FPDU copied from its MPA header on: the 2-byte ULPDU length
 *        ("DDP Segment Length"), the DDP header (14 bytes tagged, 18 untagged: defs.h TERM_DDP_LEN_TAGGED /
 *        TERM_DDP_LEN_UNTAGGED) and for an RDMA Read Request its 28-byte RDMAP header (TERM_RDMA_LEN), as ctrl.c
 *        irdma_bld_terminate_hdr / irdma_bld_termhdr_ddp_rdma write them. Modify QP to TERMINATE asks the device
 *        to send it; the device takes its length from its own Hdrct bits ({@link #terminateLength()}) and
 *        copies it into the FPDU ({@link #copyTerminate}).
 *  +72   (defs.h Q2_BAD_FRAME_OFFSET) the frame the device copied when it raised an AE with IRDMA_AEQE_Q2DATA set:
 *        the whole Ethernet frame from its MAC header ({@link #writeFrame}). ctrl.c irdma_locate_mpa finds the MPA
 *        header in it ({@link #locateMpa()}: IRDMA_MAC_HLEN = 14 bytes, then 4 * (byte 0 &amp; 0x0f) of IP header,
 *        then 4 * (byte 12 &gt;&gt; 4) of TCP header); the FPDU's DDP header follows the 2-byte length
 *        ({@link #frameDdp()}). For an error AE the frame is the offending segment; for
 *        IRDMA_AE_LLP_TERMINATE_RECEIVED the peer's Terminate, whose Terminate Control irdma_terminate_received
 *        reads behind the untagged DDP header, at MPA + 20 ({@link #frameTerminate()}).
 * </pre>
 * The frame area holds {@value #FRAME_CAPACITY} bytes; the device copies at most that much. Readers answer 0 (or
 * -1 for {@link #locateMpa()}) outside the buffer: neither side trusts what the other wrote. No allocation after
 * construction.
 */
public final class Q2Buffer extends ByteWindow {
    /** user.h IRDMA_Q2_BUF_SIZE. */
    public static final int SIZE = 256;
    /** defs.h Q2_BAD_FRAME_OFFSET. */
    public static final int BAD_FRAME_OFFSET = 72;
    /** What {@link #locateMpa} answers when the frame's header lengths point past the buffer. */
    public static final int NO_MPA_HEADER = -1;
    /** Bytes of frame the buffer holds after {@link #BAD_FRAME_OFFSET}. */
    public static final int FRAME_CAPACITY = SIZE - BAD_FRAME_OFFSET;
    /** defs.h IRDMA_MAC_HLEN: the frame's MAC header irdma_locate_mpa skips (no VLAN tag). */
    public static final int MAC_HEADER = 14;
    /**
     * The longest Terminate message irdma builds: Terminate Control, DDP Segment Length, untagged DDP header and an
     * RDMA Read Request header (irdma_bld_termhdr_ddp_rdma copies at most 2 + 18 + 28 bytes).
     */
    public static final int MAX_TERM_LENGTH = Terminate.CONTROL_LENGTH + Terminate.DDP_SEGMENT_LENGTH_SIZE
            + DdpHeader.UNTAGGED_LENGTH + RdmaReadRequest.LENGTH;

    private final Terminate terminate = new Terminate();
    private final DdpHeader frameDdp = new DdpHeader();
    private final Terminate frameTerminate = new Terminate();

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
        return has(rel, 2) ? NetworkOrder.u16(store, base + rel) : 0;
    }

    // ---------------------------------------------------------------- the Terminate message (driver writes)

    /** The Terminate message at +0 (the area in front of the frame), as the device reads it. */
    public Terminate terminate() {
        return terminate.wrap(store, base, Math.min(length, BAD_FRAME_OFFSET));
    }

    /**
     * The Terminate message's length by its own Hdrct bits (RFC 5040 §4.8: M, D with the copied header's T bit,
     * R), at least the Terminate Control and at most {@link #MAX_TERM_LENGTH}: what the device sends. The length
     * irdma passes in the Modify QP WQE (IRDMA_CQPSQ_QP_TERMLEN) is only 4 bits wide and irdma_sc_qp_modify writes
     * its byte count into it truncated, so the device does not rely on it. 0 when the buffer is too short.
     */
    public int terminateLength() {
        if (!has(0, MAX_TERM_LENGTH)) {
            return 0;
        }
        return (int) Math.max(Terminate.CONTROL_LENGTH, Math.min(MAX_TERM_LENGTH, terminate().messageLength()));
    }

    /**
     * Copies the first {@code n} bytes of the Terminate message (the device asks {@link #terminateLength()} first;
     * {@code n} is bounded to {@link #MAX_TERM_LENGTH} and the buffer) to {@code dst} at {@code dstOffset}, as the
     * device does when Modify QP to TERMINATE asks it to send one. Answers the bytes copied.
     */
    public int copyTerminate(BytesStore<?, ?> dst, long dstOffset, int n) {
        int len = (int) Math.max(0, Math.min(Math.min(n, MAX_TERM_LENGTH), length));
        if (len > 0) {
            dst.write(dstOffset, store, base, len);
        }
        return len;
    }

    /**
     * ctrl.c irdma_bld_terminate_hdr: the Terminate message for an error, at +0. The front of the buffer is zeroed,
     * the Terminate Control written with {@code layer}, {@code errorType} and {@code errorCode}, and, when the
     * device copied the offending frame ({@code offendingFrame}: IRDMA_AEQE_Q2DATA) and its MPA header is found,
     * the fields irdma_bld_termhdr_ddp_rdma copies from that FPDU: its ULPDU length (M) when non-zero, its DDP
     * header (D) when that length covers one (defs.h TERM_DDP_LEN_TAGGED 14 / TERM_DDP_LEN_UNTAGGED 18, by the T
     * bit), and an RDMA Read Request's RDMAP header (R, TERM_RDMA_LEN 28) when the length covers that too. Answers
     * the message's length (irdma's term_len: the Terminate Control and the copied bytes).
     */
    public int writeTerminate(int layer, int errorType, int errorCode, boolean offendingFrame) {
        int mpa = offendingFrame ? locateMpa() : NO_MPA_HEADER;
        int ulpdu = mpa < 0 ? 0 : u16(mpa);
        int hdrct = 0;
        int copy = 0;
        if (ulpdu != 0) {
            DdpHeader ddp = frameDdp();
            copy = Terminate.DDP_SEGMENT_LENGTH_SIZE;
            hdrct = Terminate.FLAG_M;
            int ddpLength = ddp.tagged() ? DdpHeader.TAGGED_LENGTH : DdpHeader.UNTAGGED_LENGTH;
            if (ulpdu >= ddpLength) {
                copy += ddpLength;
                hdrct |= Terminate.FLAG_D;
            }
            if (!ddp.tagged() && ulpdu >= DdpHeader.UNTAGGED_LENGTH + RdmaReadRequest.LENGTH
                    && ddp.opcode() == RdmapOpcode.CODE_RDMA_READ_REQUEST) {
                copy += RdmaReadRequest.LENGTH;
                hdrct |= Terminate.FLAG_R;
            }
        }
        writeTerminateHeader(layer, errorType, errorCode, hdrct);
        copyOffendingHeaders(mpa, copy);
        return Terminate.CONTROL_LENGTH + copy;
    }

    /**
     * Zeroes the buffer in front of the frame area and writes the Terminate Control (ctrl.c irdma_bld_terminate_hdr:
     * memset of Q2_BAD_FRAME_OFFSET bytes, then layer_etype, error_code and hdrct; the reserved byte stays 0).
     */
    public Q2Buffer writeTerminateHeader(int layer, int errorType, int errorCode, int hdrct) {
        requireWritable(0, BAD_FRAME_OFFSET);
        store.zeroOut(base, base + BAD_FRAME_OFFSET);
        store.writeUnsignedByte(base + Terminate.OFF_LAYER_ETYPE, Terminate.layerEtype(layer, errorType));
        store.writeUnsignedByte(base + Terminate.OFF_ERROR_CODE, errorCode & 0xff);
        store.writeUnsignedByte(base + Terminate.OFF_HDRCT, hdrct & 0xff);
        return this;
    }

    /**
     * Copies {@code length} bytes from {@code fromRel} (inside the frame area) to just after the Terminate Control,
     * as irdma_bld_terminate_hdr's memcpy(termhdr + 1, pkt, copy_len). Answers the bytes copied: fewer when the
     * source runs past the buffer (what the device wrote is bounded here).
     */
    public int copyOffendingHeaders(int fromRel, int length) {
        int n = Math.max(0, Math.min(length, SIZE - fromRel));
        n = Math.min(n, BAD_FRAME_OFFSET - Terminate.CONTROL_LENGTH);
        if (fromRel < BAD_FRAME_OFFSET || n == 0) {
            return 0;
        }
        requireWritable(Terminate.OFF_HEADERS, n);
        for (int i = 0; i < n; i++) {
            store.writeUnsignedByte(base + Terminate.OFF_HEADERS + i, u8(fromRel + i));
        }
        return n;
    }

    // ---------------------------------------------------------------- the frame area (device writes)

    /**
     * ctrl.c irdma_locate_mpa on the frame at {@link #BAD_FRAME_OFFSET}: the offset of its MPA header inside the
     * buffer, or {@link #NO_MPA_HEADER} when the header lengths the frame claims point past the buffer (the kernel does not check).
     */
    public int locateMpa() {
        int ip = BAD_FRAME_OFFSET + MAC_HEADER;
        int tcp = ip + 4 * (u8(ip) & 0x0f);
        if (!has(tcp + 12, 1)) {
            return NO_MPA_HEADER;
        }
        int mpa = tcp + 4 * (u8(tcp + 12) >>> 4 & 0x0f);
        return has(mpa, 1) ? mpa : NO_MPA_HEADER;
    }

    /** The FPDU's ULPDU length (its MPA header, RFC 5044 §4.1), 0 when {@link #locateMpa()} finds none. */
    public int frameUlpduLength() {
        int mpa = locateMpa();
        return mpa < 0 ? 0 : u16(mpa);
    }

    /**
     * The DDP header of the FPDU in the frame area (after its 2-byte ULPDU length), cut at the end of the buffer;
     * empty (every field 0) when {@link #locateMpa()} finds none.
     */
    public DdpHeader frameDdp() {
        int mpa = locateMpa();
        long at = mpa + (long) Fpdu.LENGTH_SIZE;
        return frameDdp.wrap(store, base + at, mpa < 0 ? 0 : Math.max(0, length - at));
    }

    /**
     * The Terminate Control of a Terminate in the frame area: behind the MPA length and an untagged DDP header
     * (irdma_terminate_received's mpa[5]), cut at the end of the buffer; empty when there is no MPA header.
     */
    public Terminate frameTerminate() {
        int mpa = locateMpa();
        long at = mpa + (long) Fpdu.LENGTH_SIZE + DdpHeader.UNTAGGED_LENGTH;
        return frameTerminate.wrap(store, base + at, mpa < 0 ? 0 : Math.max(0, length - at));
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
