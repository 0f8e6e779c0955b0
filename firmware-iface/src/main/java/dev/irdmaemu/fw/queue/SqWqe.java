package dev.irdmaemu.fw.queue;

import dev.irdmaemu.fw.Flyweight;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over one send queue WQE of an iWARP or PUDA QP in the gen2 (E810) layout that uk.c and ctrl.c
 * write: one to eight 32-byte quanta. The header is quadword 3 (+24), written last by the driver (defs.h):
 * <pre>
 *  +0   fragment 0 address (IRDMAQPSQ_FRAG_TO), or the immediate data (IRDMAQPSQ_IMMDATA)
 *  +8   fragment 0: IRDMAQPSQ_FRAG_STAG [31:0] IRDMAQPSQ_FRAG_LEN [62:32] IRDMAQPSQ_VALID 63
 *  +16  RDMA Write/Read: remote tagged offset (IRDMAQPSQ_REMTO); Send: IRDMAQPSQ_DESTQKEY/DESTQPN (0 on iWARP)
 *  +24  header: IRDMAQPSQ_REMSTAG [31:0] (Send: the STag to invalidate; PUDA: IRDMAQPSQ_AHID [24:0])
 *       IRDMAQPSQ_OPCODE [37:32] IRDMAQPSQ_ADDFRAGCNT [41:38] IRDMAQPSQ_L4LEN [45:42] IRDMAQPSQ_REPORTRTT 46
 *       IRDMAQPSQ_IMMDATAFLAG 47 IRDMAQPSQ_INLINEDATALEN [55:48] IRDMAQPSQ_PUSHWQE 56
 *       IRDMAQPSQ_INLINEDATAFLAG 57 IRDMAQPSQ_STREAMMODE 58 IRDMAQPSQ_WAITFORRCVPDU 59
 *       IRDMAQPSQ_READFENCE 60 IRDMAQPSQ_LOCALFENCE 61 IRDMAQPSQ_SIGCOMPL 62 IRDMAQPSQ_VALID 63
 *  +32  fragment slots 1.. at 32 + 16 (i - 1), each an address quadword and a stag/len/valid quadword
 * </pre>
 * Fragment slots: ADDFRAGCNT + 1. With immediate data slot 0 is the immediate and the SGEs start at slot 1.
 * On gen2 an even fragment count gets one more, zero-length slot carrying only the valid bit, and ADDFRAGCNT
 * counts it (irdma_uk_send, irdma_uk_rdma_write, irdma_uk_rdma_read). Inline data (irdma_copy_inline_data):
 * 8 bytes at +8, then 31 bytes per further quantum, whose last byte holds the valid bit in bit 7.
 *
 * <p>The writers (the driver side) reproduce those functions byte for byte for gen2 and answer the quanta
 * used; the getters and {@link #validate(boolean)} are the model's fetch side. PUDA's send WQE
 * (irdma_puda_send) is this same format: opcode Send, L4LEN, AH id, one fragment; the LSMM and the RTR
 * (irdma_sc_send_lsmm, irdma_sc_send_rtt) are written at SQ index 0 by {@link #writeLsmm} and
 * {@link #writeRtr}.
 */
public final class SqWqe extends FragmentedWqe implements Flyweight<SqWqe> {
    public static final int QUANTUM = 32;
    /**
     * uk.c irdma_setup_connection_wqes with IRDMA_FEATURE_RTS_AE (gen2): SQ indexes 0 to 2 hold the connection WQEs
     * ({@link #writeLsmm} or {@link #writeRtr}, then {@link #writeRtsAeRequest} twice); the consumer's WQEs start
     * after them.
     */
    public static final int CONNECTION_WQES = 3;
    public static final int MAX_QUANTA = 8;
    public static final int OFF_REMOTE_TO = 16;

    public static final int BIT_REPORTRTT = 46;
    public static final int BIT_IMMDATAFLAG = 47;
    public static final int BIT_PUSHWQE = 56;
    public static final int BIT_INLINEDATAFLAG = 57;
    public static final int BIT_STREAMMODE = 58;
    public static final int BIT_WAITFORRCVPDU = 59;
    public static final int BIT_READFENCE = 60;
    public static final int BIT_LOCALFENCE = 61;
    public static final int BIT_SIGCOMPL = 62;

    /**
     * What {@link #fragmentQuanta} answers above 15 fragments (irdma_fragcnt_to_quanta_sq answers -EINVAL): a
     * negative count, tested on the per-WQE path without an allocation.
     */
    public static final int TOO_MANY_FRAGMENTS = -1;
    /** user.h IRDMA_MAX_WQ_FRAGMENT_COUNT / IRDMA_MAX_SGE_RD. */
    public static final int MAX_FRAGMENTS = 13;
    /** user.h IRDMA_MAX_INLINE_DATA_SIZE (gen2 max_hw_inline). */
    public static final int MAX_INLINE = 101;
    /** user.h IRDMA_MAX_OUTBOUND_MSG_SIZE. */
    public static final long MAX_MESSAGE = 2147483647L;
    /** The RTR's fixed STags (irdma_sc_send_rtt): local 0xabcd, remote 0x1234 for the zero-length Read. */
    public static final int RTR_READ_LOCAL_STAG = 0xabcd;
    public static final int RTR_READ_REMOTE_STAG = 0x1234;

    // writer flags
    public static final int SIGNALED = 1;
    public static final int READ_FENCE = 2;
    public static final int LOCAL_FENCE = 4;
    public static final int REPORT_RTT = 8;
    /** Immediate data present (the immData argument is used). */
    public static final int IMMEDIATE = 16;

    // ---------------------------------------------------------------- reader (the model)

    public int opcode() {
        return (int) get(header(), 37, 32);
    }

    public SqOpcode sqOpcode() {
        return SqOpcode.of(opcode());
    }

    /** The first slot that is an SGE: 1 with immediate data, else 0. */
    public int firstDataSlot() {
        return immediate() ? 1 : 0;
    }

    /** IRDMAQPSQ_REMSTAG: remote STag (Write/Read), STag to invalidate (Send with Invalidate). */
    public int remoteStag() {
        return (int) get(header(), 31, 0);
    }

    /** IRDMAQPSQ_AHID [24:0] (PUDA sends). */
    public int ahId() {
        return (int) get(header(), 24, 0);
    }

    /** IRDMAQPSQ_L4LEN: TCP header length in 32-bit words (PUDA sends, irdma_puda_send). */
    public int l4LengthWords() {
        return (int) get(header(), 45, 42);
    }

    public boolean reportRtt() {
        return bit(header(), BIT_REPORTRTT);
    }

    public boolean immediate() {
        return bit(header(), BIT_IMMDATAFLAG);
    }

    public int inlineLength() {
        return (int) get(header(), 55, 48);
    }

    public boolean push() {
        return bit(header(), BIT_PUSHWQE);
    }

    public boolean inline() {
        return bit(header(), BIT_INLINEDATAFLAG);
    }

    /** IRDMAQPSQ_STREAMMODE: the LSMM, sent in TCP streaming mode before the QP goes to RDMA mode. */
    public boolean streamMode() {
        return bit(header(), BIT_STREAMMODE);
    }

    public boolean waitForRcvPdu() {
        return bit(header(), BIT_WAITFORRCVPDU);
    }

    public boolean readFence() {
        return bit(header(), BIT_READFENCE);
    }

    public boolean localFence() {
        return bit(header(), BIT_LOCALFENCE);
    }

    public boolean signaled() {
        return bit(header(), BIT_SIGCOMPL);
    }

    /** Quadword 2: the remote tagged offset of an RDMA Write/Read. */
    public long remoteTaggedOffset() {
        return qword(OFF_REMOTE_TO);
    }

    /** Quadword 0 when {@link #immediate()}. */
    public long immediateData() {
        return qword(0);
    }

    /** Sum of the SGE slot lengths (pad slots are zero-length). */
    public long totalLength() {
        if (inline()) {
            return inlineLength();
        }
        long t = 0;
        int slots = Math.min(fragmentSlots(), 15);
        for (int s = firstDataSlot(); s < slots; s++) {
            t += fragmentLength(s);
        }
        return t;
    }

    /** The WQE's size in quanta as the driver reserved them (uk.c quanta rules). */
    public int quanta() {
        SqOpcode op = sqOpcode();
        if (op == null || !op.carriesFragments()) {
            return 1;
        }
        if (inline()) {
            return inlineQuanta(inlineLength());
        }
        return fragmentQuanta(Math.min(fragmentSlots(), 15));
    }

    /** Byte {@code i} of the inline data (0 outside), per irdma_copy_inline_data's placement. */
    public int inlineByte(int i) {
        if (i < 0 || i >= 8 + 7 * 31) {
            return 0;
        }
        return u8(inlineOffset(i));
    }

    /**
     * Copies the inline data (at most 225 bytes, what eight quanta hold) into {@code dst} at absolute
     * {@code dstOffset}; answers the bytes copied. A destination too small is the caller's bug (IAE).
     */
    public int copyInline(BytesStore<?, ?> dst, long dstOffset) {
        int n = Math.min(inlineLength(), 8 + 7 * 31);
        if (dstOffset < dst.start() || dstOffset > dst.capacity() - n) {
            throw new IllegalArgumentException("inline copy of " + n + " bytes does not fit at " + dstOffset);
        }
        for (int i = 0; i < n; i++) {
            dst.writeByte(dstOffset + i, (byte) inlineByte(i));
        }
        return n;
    }

    static int inlineOffset(int i) {
        if (i < 8) {
            return 8 + i;
        }
        int j = i - 8;
        return QUANTUM * (1 + j / 31) + j % 31;
    }

    /** irdma_inline_data_size_to_quanta (gen2). */
    public static int inlineQuanta(int bytes) {
        if (bytes <= 8) {
            return 1;
        }
        return Math.min(MAX_QUANTA, 2 + (bytes - 9) / 31);
    }

    /** irdma_fragcnt_to_quanta_sq; {@link #TOO_MANY_FRAGMENTS} above 15 fragments. */
    public static int fragmentQuanta(int fragCount) {
        if (fragCount < 0 || fragCount > 15) {
            return TOO_MANY_FRAGMENTS;
        }
        return fragCount <= 1 ? 1 : fragCount / 2 + 1;
    }

    /**
     * Checks the WQE at the SQ's next index against the ring's polarity. Order: window, valid bit, opcode,
     * reserved header bits, size, fragment count, inline rules, fragment valid bits, total length.
     */
    public WqeCheck validate(boolean polarity) {
        if (!beginValidation(QUANTUM)) {
            return fail(WqeCheck.TRUNCATED, length);
        }
        long h = header();
        if (valid() != polarity) {
            return fail(WqeCheck.NOT_POSTED, OFF_HEADER + 7);
        }
        SqOpcode op = sqOpcode();
        if (op == null) {
            return fail(WqeCheck.UNKNOWN_OPCODE, OFF_HEADER + 4);
        }
        long reserved = h & ~allowedHeaderBits(op, inline());
        if (reserved != 0) {
            return fail(WqeCheck.RESERVED_BITS, OFF_HEADER + Long.numberOfTrailingZeros(reserved) / 8);
        }
        if (!op.carriesFragments()) {
            return WqeCheck.ACCEPTED;
        }
        if (inline()) {
            if (!op.isSend() && !op.isWrite()) {
                return fail(WqeCheck.INLINE_NOT_ALLOWED, OFF_HEADER + 7);
            }
            if (inlineLength() > MAX_INLINE) {
                return fail(WqeCheck.INLINE_TOO_LONG, OFF_HEADER + 6);
            }
            int quanta = inlineQuanta(inlineLength());
            if (!has(0, (long) quanta * QUANTUM)) {
                return fail(WqeCheck.TRUNCATED, length);
            }
            for (int qn = 1; qn < quanta; qn++) {
                if ((u8(qn * QUANTUM + 31L) >>> 7 != 0) != polarity) {
                    return fail(WqeCheck.FRAGMENT_POLARITY, qn * QUANTUM + 31L);
                }
            }
            return WqeCheck.ACCEPTED;
        }
        int slots = fragmentSlots();
        int first = firstDataSlot();
        if (slots > 15 || slots - first > MAX_FRAGMENTS + 1) {
            return fail(WqeCheck.TOO_MANY_FRAGMENTS, OFF_HEADER + 4);
        }
        if (!has(0, (long) fragmentQuanta(slots) * QUANTUM)) {
            return fail(WqeCheck.TRUNCATED, length);
        }
        for (int s = first; s < slots; s++) {
            if (fragmentValid(s) != polarity) {
                return fail(WqeCheck.FRAGMENT_POLARITY, slotOffset(s) + 15L);
            }
        }
        if (totalLength() > MAX_MESSAGE) {
            return fail(WqeCheck.INVALID_LENGTH, slotOffset(first) + 12L);
        }
        return WqeCheck.ACCEPTED;
    }

    private static final long OPCODE_BITS = mask(37, 32);
    private static final long COMMON_BITS = OPCODE_BITS | 1L << BIT_VALID | 1L << BIT_SIGCOMPL
        | 1L << BIT_READFENCE | 1L << BIT_LOCALFENCE | 1L << BIT_PUSHWQE;

    /** Header bits an opcode may carry (uk.c / ctrl.c / puda.c writers); bind and fast-register unchecked. */
    static long allowedHeaderBits(SqOpcode op, boolean inline) {
        switch (op) {
            case NOP:
            case LOCAL_INVALIDATE:
            case GEN_RTS_AE:
                return COMMON_BITS;
            case BIND_MW:
            case FAST_REGISTER:
            case ATOMIC_FETCH_ADD:
            case ATOMIC_COMPARE_SWAP_ADD:
                return -1L;
            default:
                break;
        }
        long allowed = COMMON_BITS | mask(31, 0) | 1L << BIT_REPORTRTT;
        if (inline) {
            allowed |= mask(55, 48) | 1L << BIT_INLINEDATAFLAG;
        } else {
            allowed |= mask(41, 38);
        }
        if (!op.isRead()) {
            allowed |= 1L << BIT_IMMDATAFLAG;
        }
        if (op == SqOpcode.RDMA_SEND) {
            allowed |= 1L << BIT_STREAMMODE | 1L << BIT_WAITFORRCVPDU | mask(45, 42);
        }
        return allowed;
    }

    // fast-register fields (irdma_sc_mr_fast_register)

    /** Fast register: quadword 0, the VA when {@link #vaBased()}, else the first byte offset (info->fbo). */
    public long stagVaOrFbo() {
        return qword(0);
    }

    /** Fast register: IRDMAQPSQ_STAGKEY [7:0]. */
    public int stagKey() {
        return (int) get(header(), 7, 0);
    }

    /** Fast register: IRDMAQPSQ_STAGINDEX [31:8]. */
    public int stagIndex() {
        return (int) get(header(), 31, 8);
    }

    /** Fast register: IRDMAQPSQ_LPBLSIZE [45:44] (the PBLE chunk size code). */
    public int pblChunkSize() {
        return (int) get(header(), 45, 44);
    }

    /** Fast register: IRDMAQPSQ_HPAGESIZE [47:46], 0 = 4 KiB, 1 = 2 MiB, 2 = 1 GiB (type.h irdma_page_size). */
    public int hostPageSizeCode() {
        return (int) get(header(), 47, 46);
    }

    /** Fast register: IRDMAQPSQ_STAGRIGHTS [52:48] (user.h IRDMA_ACCESS_FLAGS_*). */
    public int stagRights() {
        return (int) get(header(), 52, 48);
    }

    /** Fast register: IRDMAQPSQ_VABASEDTO 53 (quadword 0 is then the VA, else the first byte offset). */
    public boolean vaBased() {
        return bit(header(), 53);
    }

    /** Fast register: IRDMAQPSQ_REMOTE_ATOMICS_EN 55. */
    public boolean remoteAtomics() {
        return bit(header(), 55);
    }

    /** Fast register: the page list's physical address (quadword 1, IRDMAQPSQ_PBLADDR [63:12] as written). */
    public long pblAddress() {
        return qword(8) & mask(51, 12);
    }

    /** Fast register: IRDMAQPSQ_FIRSTPMPBLIDXHI [11:0] of quadword 1 above IRDMAQPSQ_FIRSTPMPBLIDXLO. */
    public int firstPmPblIndex() {
        return (int) (get(qword(8), 11, 0) << 16 | get(qword(16), 63, 48));
    }

    /** Fast register: the region length (IRDMAQPSQ_STAGLEN [40:0] of quadword 2). */
    public long stagLength() {
        return get(qword(16), 40, 0);
    }

    // ---------------------------------------------------------------- writers (the driver)

    /** Fragments as uk.c lays them out; answers ADDFRAGCNT including the gen2 pad slot. */
    private int fragments(SgeList sges, boolean imm, long immData, boolean polarity) {
        int n = sges.count();
        int fragCnt = n + (imm ? 1 : 0);
        int addl = fragCnt > 1 ? fragCnt - 1 : 0;
        int i;
        if (imm) {
            putQ(0, immData);
            i = 0;
        } else {
            fragment(0, sges, 0, polarity);
            i = 1;
        }
        int off = 32;
        for (; i < n; i++) {
            fragment(off, sges, i, polarity);
            off += 16;
        }
        if (fragCnt > 0 && (fragCnt & 1) == 0) {
            fragment(off, null, 0, polarity);
            addl++;
        }
        return addl;
    }

    private int roomForFragments(SgeList sges, boolean imm) {
        int fragCnt = sges.count() + (imm ? 1 : 0);
        if (sges.count() > MAX_FRAGMENTS) {
            throw new IllegalArgumentException(sges.count() + " SGEs, at most " + MAX_FRAGMENTS);
        }
        int quanta = fragmentQuanta(fragCnt);
        requireRoom((long) quanta * QUANTUM, "SQ WQE");
        return quanta;
    }

    private static long common(int opcode, int flags, boolean polarity) {
        return prep(opcode, 37, 32) | flag((flags & READ_FENCE) != 0, BIT_READFENCE)
            | flag((flags & LOCAL_FENCE) != 0, BIT_LOCALFENCE) | flag((flags & SIGNALED) != 0, BIT_SIGCOMPL)
            | flag(polarity, BIT_VALID);
    }

    /**
     * Send / Send with SE / with Invalidate (irdma_uk_send, iWARP: no QKey, QPN, AH, UDP header or L4LEN).
     * Answers the quanta written.
     */
    public int writeSend(boolean polarity, SqOpcode opcode, SgeList sges, int flags, long immData,
                         int stagToInvalidate) {
        boolean imm = (flags & IMMEDIATE) != 0;
        int quanta = roomForFragments(sges, imm);
        int addl = fragments(sges, imm, immData, polarity);
        putQ(OFF_REMOTE_TO, 0L);
        putQ(OFF_HEADER, common(opcode.code(), flags, polarity) | prep(Integer.toUnsignedLong(stagToInvalidate), 31, 0)
            | flag(imm, BIT_IMMDATAFLAG) | flag((flags & REPORT_RTT) != 0, BIT_REPORTRTT) | prep(addl, 41, 38));
        return quanta;
    }

    /**
     * A UD Send / Send with SE as irdma_uk_send writes it for a RoCE UD QP (QP1's MADs, user UD QPs): the fragments
     * (or the immediate and then the fragments), IRDMAQPSQ_DESTQKEY 31:0 and IRDMAQPSQ_DESTQPN 55:32 in quadword 2,
     * IRDMAQPSQ_AHID in the header's low bits. Answers the quanta written.
     */
    public int writeUdSend(boolean polarity, SqOpcode opcode, SgeList sges, int flags, long immData, int ahId,
                           int destQp, int qKey) {
        int quanta = writeSend(polarity, opcode, sges, flags, immData, ahId);
        putQ(OFF_REMOTE_TO, prep(destQp & 0xff_ffff, 55, 32) | Integer.toUnsignedLong(qKey));
        return quanta;
    }

    /** UD Send: IRDMAQPSQ_DESTQPN, quadword 2 bits 55:32. */
    public int destQp() {
        return (int) get(qword(OFF_REMOTE_TO), 55, 32);
    }

    /** UD Send: IRDMAQPSQ_DESTQKEY, quadword 2 bits 31:0 (unsigned 32 bits in an int). */
    public int destQKey() {
        return (int) get(qword(OFF_REMOTE_TO), 31, 0);
    }

    /** RDMA Write / Write with SE (irdma_uk_rdma_write). */
    public int writeRdmaWrite(boolean polarity, SqOpcode opcode, SgeList sges, int remoteStag, long remoteTo,
                              int flags, long immData) {
        boolean imm = (flags & IMMEDIATE) != 0;
        int quanta = roomForFragments(sges, imm);
        putQ(OFF_REMOTE_TO, remoteTo);
        int addl = fragments(sges, imm, immData, polarity);
        putQ(OFF_HEADER, common(opcode.code(), flags, polarity) | prep(Integer.toUnsignedLong(remoteStag), 31, 0)
            | flag(imm, BIT_IMMDATAFLAG) | flag((flags & REPORT_RTT) != 0, BIT_REPORTRTT) | prep(addl, 41, 38));
        return quanta;
    }

    /** RDMA Read, or Read with local invalidate when {@code invalidateLocal} (irdma_uk_rdma_read). */
    public int writeRdmaRead(boolean polarity, SgeList sges, int remoteStag, long remoteTo, boolean invalidateLocal,
                             int flags) {
        int quanta = roomForFragments(sges, false);
        int addl = fragments(sges, false, 0, polarity);
        putQ(OFF_REMOTE_TO, remoteTo);
        int op = invalidateLocal ? SqOpcode.RDMA_READ_LOC_INV.code() : SqOpcode.RDMA_READ.code();
        putQ(OFF_HEADER, common(op, flags, polarity) | prep(Integer.toUnsignedLong(remoteStag), 31, 0)
            | flag((flags & REPORT_RTT) != 0, BIT_REPORTRTT) | prep(addl, 41, 38));
        return quanta;
    }

    /** Inline Send (irdma_uk_inline_send) of {@code len} bytes at {@code src[srcOffset]}. */
    public int writeInlineSend(boolean polarity, SqOpcode opcode, BytesStore<?, ?> src, long srcOffset, int len,
                               int stagToInvalidate, int flags, long immData) {
        int quanta = roomForInline(len);
        putQ(OFF_REMOTE_TO, 0L);
        return inlineBody(polarity, opcode.code(), src, srcOffset, len, stagToInvalidate, flags, immData, quanta);
    }

    /** Inline RDMA Write (irdma_uk_inline_rdma_write). */
    public int writeInlineRdmaWrite(boolean polarity, SqOpcode opcode, BytesStore<?, ?> src, long srcOffset, int len,
                                    int remoteStag, long remoteTo, int flags, long immData) {
        int quanta = roomForInline(len);
        putQ(OFF_REMOTE_TO, remoteTo);
        return inlineBody(polarity, opcode.code(), src, srcOffset, len, remoteStag, flags, immData, quanta);
    }

    private int roomForInline(int len) {
        if (len < 0 || len > MAX_INLINE) {
            throw new IllegalArgumentException("inline length " + len + ", at most " + MAX_INLINE);
        }
        int quanta = inlineQuanta(len);
        requireRoom((long) quanta * QUANTUM, "inline SQ WQE");
        return quanta;
    }

    private int inlineBody(boolean polarity, int opcode, BytesStore<?, ?> src, long srcOffset, int len, int stag,
                           int flags, long immData, int quanta) {
        boolean imm = (flags & IMMEDIATE) != 0;
        if (imm) {
            putQ(0, immData);
        }
        for (int i = 0; i < len; i++) {
            put8(inlineOffset(i), src.readByte(srcOffset + i));
        }
        int validByte = polarity ? 0x80 : 0;
        for (int qn = 1; qn < quanta; qn++) {
            put8(qn * QUANTUM + 31, validByte);
        }
        putQ(OFF_HEADER, common(opcode, flags, polarity) | prep(Integer.toUnsignedLong(stag), 31, 0)
            | prep(len, 55, 48) | flag((flags & REPORT_RTT) != 0, BIT_REPORTRTT) | 1L << BIT_INLINEDATAFLAG
            | flag(imm, BIT_IMMDATAFLAG));
        return quanta;
    }

    /**
     * Fast register of a non-shared MR (irdma_sc_mr_fast_register): one quantum, no fragment valid bit.
     * {@code vaOrFbo} is the VA when {@code vaBased}, else the first byte offset; {@code pageSizeCode} per
     * {@link #hostPageSizeCode()}.
     */
    public int writeFastRegister(boolean polarity, long vaOrFbo, boolean vaBased, long pblPa, int firstPmPblIndex,
                                 long totalLength, int stagKey, int stagIndex, int chunkSize, int pageSizeCode,
                                 int accessRights, boolean remoteAtomics, int flags) {
        requireRoom(QUANTUM, "SQ WQE");
        putQ(0, vaOrFbo);
        putQ(8, prep(get(Integer.toUnsignedLong(firstPmPblIndex) >>> 16, 11, 0), 11, 0) | prep(pblPa, 51, 0));
        putQ(OFF_REMOTE_TO, totalLength | prep(firstPmPblIndex, 63, 48));
        putQ(OFF_HEADER, common(SqOpcode.FAST_REGISTER.code(), flags, polarity) | prep(stagKey, 7, 0)
            | prep(stagIndex, 31, 8) | prep(chunkSize, 45, 44) | prep(pageSizeCode, 47, 46)
            | prep(accessRights, 52, 48) | flag(vaBased, 53) | flag(remoteAtomics, 55));
        return 1;
    }

    /** Local invalidate of {@code targetStag} (irdma_uk_stag_local_invalidate: its fragment's valid bit is 0). */
    public int writeLocalInvalidate(boolean polarity, int targetStag, int flags) {
        requireRoom(QUANTUM, "SQ WQE");
        putQ(0, 0L);
        putQ(8, prep(Integer.toUnsignedLong(targetStag), 31, 0));
        putQ(OFF_REMOTE_TO, 0L);
        putQ(OFF_HEADER, common(SqOpcode.LOCAL_INVALIDATE.code(), flags, polarity));
        return 1;
    }

    /** NOP (irdma_nop / irdma_nop_1). */
    public int writeNop(boolean polarity, boolean signaled) {
        requireRoom(QUANTUM, "SQ WQE");
        putQ(0, 0L);
        putQ(8, 0L);
        putQ(OFF_REMOTE_TO, 0L);
        putQ(OFF_HEADER, common(SqOpcode.NOP.code(), signaled ? SIGNALED : 0, polarity));
        return 1;
    }

    /**
     * The passive side's MPA reply as the QP's streaming-mode first message (irdma_sc_send_lsmm, gen2): a Send
     * with STREAMMODE and WAITFORRCVPDU, unsignaled, of {@code size} bytes at {@code address} under {@code stag}.
     */
    public int writeLsmm(boolean polarity, long address, int size, int stag) {
        requireRoom(QUANTUM, "SQ WQE");
        putQ(0, address);
        putQ(8, prep(Integer.toUnsignedLong(size), 62, 32) | prep(Integer.toUnsignedLong(stag), 31, 0)
            | flag(polarity, 63));
        putQ(OFF_REMOTE_TO, 0L);
        putQ(OFF_HEADER, prep(SqOpcode.RDMA_SEND.code(), 37, 32) | 1L << BIT_STREAMMODE | 1L << BIT_WAITFORRCVPDU
            | flag(polarity, BIT_VALID));
        return 1;
    }

    /** The MPA v2 RTR (irdma_sc_send_rtt, gen2): a zero-length RDMA Read ({@code read}) or RDMA Write. */
    public int writeRtr(boolean polarity, boolean read) {
        requireRoom(QUANTUM, "SQ WQE");
        putQ(0, 0L);
        putQ(OFF_REMOTE_TO, 0L);
        if (read) {
            putQ(8, RTR_READ_LOCAL_STAG | flag(polarity, 63));
            putQ(OFF_HEADER, prep(RTR_READ_REMOTE_STAG, 31, 0) | prep(SqOpcode.RDMA_READ.code(), 37, 32)
                | flag(polarity, BIT_VALID));
        } else {
            putQ(8, flag(polarity, 63));
            putQ(OFF_HEADER, prep(SqOpcode.RDMA_WRITE.code(), 37, 32) | flag(polarity, BIT_VALID));
        }
        return 1;
    }

    /**
     * The two header-only WQEs irdma_sc_gen_rts_ae posts after the LSMM or RTR when the device has
     * IRDMA_FEATURE_RTS_AE: at SQ index 1 a NOP with LOCALFENCE ({@code connEst} false), at index 2
     * IRDMAQP_OP_GEN_RTS_AE ({@code connEst} true). Only quadword 3 is written, as in the driver.
     */
    public int writeRtsAeRequest(boolean polarity, boolean connEst) {
        requireRoom(QUANTUM, "SQ WQE");
        putQ(OFF_HEADER, connEst
            ? prep(SqOpcode.GEN_RTS_AE.code(), 37, 32) | flag(polarity, BIT_VALID)
            : prep(SqOpcode.NOP.code(), 37, 32) | 1L << BIT_LOCALFENCE | flag(polarity, BIT_VALID));
        return 1;
    }

    /**
     * The PUDA (ILQ/IEQ) transmit descriptor (irdma_puda_send, gen2): one fragment of {@code len} bytes at
     * {@code paddr} that begins at the TCP header (cm.c irdma_form_ah_cm_frame; the device adds Ethernet and IP from
     * the AH), L4LEN = {@code tcpHeaderBytes} / 4 (IRDMA_UDA_QPSQ_L4LEN), the AH id (IRDMAQPSQ_AHID), always
     * signaled.
     */
    public int writePudaSend(boolean polarity, long paddr, int len, int tcpHeaderBytes, int ahId) {
        requireRoom(QUANTUM, "PUDA SQ WQE");
        putQ(0, paddr);
        putQ(8, prep(Integer.toUnsignedLong(len), 62, 32) | flag(polarity, 63));
        putQ(OFF_REMOTE_TO, 0L);
        putQ(OFF_HEADER, prep(SqOpcode.RDMA_SEND.code(), 37, 32) | prep(tcpHeaderBytes >>> 2, 45, 42)
            | prep(ahId, 24, 0) | 1L << BIT_SIGCOMPL | flag(polarity, BIT_VALID));
        return 1;
    }
}
