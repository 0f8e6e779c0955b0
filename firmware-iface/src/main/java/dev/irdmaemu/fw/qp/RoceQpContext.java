package dev.irdmaemu.fw.qp;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.queue.QuadView;

/**
 * Flyweight over the 256-byte RoCEv2 QP host context (user.h IRDMA_QP_CTX_SIZE) as irdma_sc_qp_setctx_roce_gen_2
 * (ctrl.c) writes it for a gen2 device, the buffer Create QP and every Modify QP point the device at for a QP of
 * type IRDMA_QP_TYPE_ROCE_RC (3) or IRDMA_QP_TYPE_ROCE_UD (4). Quadword map (defs.h IRDMAQPC_* masks; byte offset
 * in brackets):
 * <pre>
 *  [0]   IPV4 3, INSERTVLANTAG 5, ISQP1 6, RQWQESIZE 9:8, ERR_RQ_IDX_VALID 19, PDIDXHI 21:20, DC_TCP_EN 25,
 *        RCV/XMIT/RQ/SQ TPHEN 28..31, PPIDX 41:32, PMENA 47, ROCE_TVER 63:60
 *  [8]   SQ base   [16] RQ base
 *  [24]  TTL 7:0, RQSIZE 11:8, SQSIZE 15:12, TOS 31:24, SRCPORTNUM 47:32, DESTPORTNUM 63:48
 *  [32]  DESTIPADDR3 31:0, DESTIPADDR2 63:32     [40] DESTIPADDR1 31:0, DESTIPADDR0 63:32
 *  [48]  SNDMSS 29:16, VLANTAG 47:32, ARPIDX 63:48
 *  [56]  FLOWLABEL 19:0, ACKCREDITS 24:20, PKEY 47:32, PDIDX 63:48
 *  [64]  DESTQP 23:0, QKEY 63:32
 *  [80]  PSNNXT 23:0, LSN 55:32   [88] EPSN 23:0   [96] PSNMAX 23:0, PSNUNA 55:32   [112] CWNDROCE 55:32
 *  [128] ERR_RQ_IDX 46:32, REXMIT_THRESH 53:48, RNRNAK_THRESH 56:54, RTOMIN 63:57
 *  [136] TXCQNUM 24:0, RXCQNUM 56:32   [144] STAT_INDEX 6:0   [152] MAC 63:16
 *  [160] ORDSIZE 7:0, IRDSIZE 18:16, UDPRIVCQENABLE 19, WRRDRSPOK 20, RDOK 21, DCQCNENABLE 22, BINDEN 23,
 *        FASTREGEN 24, PRIVEN 25, USESTATSINSTANCE 26, TIMELYENABLE 27, FW_CC_ENABLE 28, RCVNOICRC 31
 *  [168] QP completion context   [176] SQTPHVAL 7:0, RQTPHVAL 15:8, QSHANDLE 25:16
 *  [184] LOCAL_IPADDR3 31:0, LOCAL_IPADDR2 63:32   [192] LOCAL_IPADDR1 31:0, LOCAL_IPADDR0 63:32
 *  [200] TLOW 39:32, THIGH 63:52   [208] REMENDPOINTIDX 16:0
 * </pre>
 * Bit 28 of [160] is IWARPMODE in the iWARP layout ({@link QpContext}) and FW_CC_ENABLE here; irdma leaves it 0
 * for RoCE. The getters are the model side (no allocation); the {@code put*} setters, each one field, are the
 * driver side that tests write contexts with.
 */
public final class RoceQpContext extends QuadView implements Flyweight<RoceQpContext> {
    public static final int SIZE = 256;
    /** include/rdma/ib_verbs.h ROCE_V2_UDP_DPORT. */
    public static final int ROCE_V2_UDP_DPORT = 4791;
    /**
     * The largest SQSIZE / RQSIZE code: 4 &lt;&lt; 13 = 32768 quanta, user.h IRDMA_MAX_WQ_ENTRIES (the code is
     * log2(quanta) - 2, ctrl.c irdma_get_encoded_wqe_size; defs.h IRDMA_QP_SW_MAX_WQ_QUANTA is the same 32768).
     */
    public static final int MAX_QUEUE_SIZE_CODE = 13;

    private static final int QW0 = 0;
    private static final int SQ = 8;
    private static final int RQ = 16;
    private static final int QW3 = 24;
    private static final int DEST_IP_23 = 32;
    private static final int DEST_IP_01 = 40;
    private static final int QW6 = 48;
    private static final int QW7 = 56;
    private static final int QW8 = 64;
    private static final int PSN_NXT = 80;
    private static final int EPSN = 88;
    private static final int PSN_MAX_UNA = 96;
    private static final int CWND = 112;
    private static final int QW16 = 128;
    private static final int CQ_NUMS = 136;
    private static final int STATS = 144;
    private static final int MAC = 152;
    private static final int QW20 = 160;
    private static final int COMPL_CTX = 168;
    private static final int TPH_QS = 176;
    private static final int LOCAL_IP_32 = 184;
    private static final int LOCAL_IP_10 = 192;
    private static final int REM_ENDPOINT = 208;

    /** Checks what the device cannot act on; the table checks (CQs, ARP index, PD) are the model's. */
    public RoceQpContextCheck validate() {
        if (!beginValidation(SIZE)) {
            return fail(RoceQpContextCheck.TRUNCATED, length);
        }
        if (dcqcnEnabled() || timelyEnabled() || fwCcEnabled()) {
            // bit 28 is IWARPMODE in the iWARP layout: an iWARP context under a RoCE type lands here too
            return fail(RoceQpContextCheck.CONGESTION_CONTROL, QW20 + 2);
        }
        if (transportVersion() != 0) {
            return fail(RoceQpContextCheck.BAD_TRANSPORT_VERSION, QW0 + 7);
        }
        if (pathMtuBytes() < 0) {
            return fail(RoceQpContextCheck.BAD_PATH_MTU, QW6 + 2);
        }
        if (destPort() != ROCE_V2_UDP_DPORT) {
            return fail(RoceQpContextCheck.BAD_DEST_PORT, QW3 + 6);
        }
        if (QpContext.decodeIrd(irdSizeCode()).isEmpty()) {
            return fail(RoceQpContextCheck.BAD_IRD_SIZE, QW20 + 2);
        }
        if (sqSize() > MAX_QUEUE_SIZE_CODE || rqSize() > MAX_QUEUE_SIZE_CODE) {
            return fail(RoceQpContextCheck.BAD_QUEUE_SIZE, QW3 + 1);
        }
        return RoceQpContextCheck.ACCEPTED;
    }

    /** SNDMSS as an IB path MTU in bytes (256..4096, a power of two), or -1 when it is none. */
    public int pathMtuBytes() {
        int mss = sndMss();
        return mss >= 256 && mss <= 4096 && Integer.bitCount(mss) == 1 ? mss : -1;
    }

    private long f(int off, int hi, int lo) {
        return get(qword(off), hi, lo);
    }

    private boolean b(int off, int bit) {
        return bit(qword(off), bit);
    }

    // ---------------------------------------------------------------- getters (the device)

    public boolean ipv4() { return b(QW0, 3); }
    public boolean insertVlanTag() { return b(QW0, 5); }
    public boolean isQp1() { return b(QW0, 6); }
    public int rqWqeSize() { return (int) f(QW0, 9, 8); }
    public boolean errRqIdxValid() { return b(QW0, 19); }
    public boolean dcTcpEnabled() { return b(QW0, 25); }
    public boolean pushModeEnabled() { return b(QW0, 47); }
    public int transportVersion() { return (int) f(QW0, 63, 60); }
    /** The 18-bit PD: PDIDXHI 21:20 of [0] over PDIDX 63:48 of [56]. */
    public int pdId() { return (int) (f(QW0, 21, 20) << 16 | f(QW7, 63, 48)); }
    public long sqAddress() { return qword(SQ); }
    public long rqAddress() { return qword(RQ); }
    public int ttl() { return (int) f(QW3, 7, 0); }
    public int rqSize() { return (int) f(QW3, 11, 8); }
    public int sqSize() { return (int) f(QW3, 15, 12); }
    public int tos() { return (int) f(QW3, 31, 24); }
    public int srcPort() { return (int) f(QW3, 47, 32); }
    public int destPort() { return (int) f(QW3, 63, 48); }

    /** Word {@code i} (0..3) of the destination address, host order; IPv4 is word 3. */
    public int destIp(int i) {
        return switch (i) {
            case 0 -> (int) f(DEST_IP_01, 63, 32);
            case 1 -> (int) f(DEST_IP_01, 31, 0);
            case 2 -> (int) f(DEST_IP_23, 63, 32);
            default -> (int) f(DEST_IP_23, 31, 0);
        };
    }

    /** Word {@code i} (0..3) of the local address, host order; IPv4 is word 3. */
    public int localIp(int i) {
        return switch (i) {
            case 0 -> (int) f(LOCAL_IP_10, 63, 32);
            case 1 -> (int) f(LOCAL_IP_10, 31, 0);
            case 2 -> (int) f(LOCAL_IP_32, 63, 32);
            default -> (int) f(LOCAL_IP_32, 31, 0);
        };
    }

    public int sndMss() { return (int) f(QW6, 29, 16); }
    public int vlanTag() { return (int) f(QW6, 47, 32); }
    public int arpIdx() { return (int) f(QW6, 63, 48); }
    public int flowLabel() { return (int) f(QW7, 19, 0); }
    public int ackCredits() { return (int) f(QW7, 24, 20); }
    public int pKey() { return (int) f(QW7, 47, 32); }
    public int destQp() { return (int) f(QW8, 23, 0); }
    /** The QP's Q_Key, unsigned 32 bits in an int. */
    public int qKey() { return (int) f(QW8, 63, 32); }
    public int psnNext() { return (int) f(PSN_NXT, 23, 0); }
    public int lastSequenceNumber() { return (int) f(PSN_NXT, 55, 32); }
    public int expectedPsn() { return (int) f(EPSN, 23, 0); }
    public int psnMax() { return (int) f(PSN_MAX_UNA, 23, 0); }
    public int psnUnacked() { return (int) f(PSN_MAX_UNA, 55, 32); }
    public int congestionWindow() { return (int) f(CWND, 55, 32); }
    public int errRqIdx() { return (int) f(QW16, 46, 32); }
    public int rexmitThresh() { return (int) f(QW16, 53, 48); }
    public int rnrNakThresh() { return (int) f(QW16, 56, 54); }
    public int rtoMin() { return (int) f(QW16, 63, 57); }
    public int txCqNum() { return (int) f(CQ_NUMS, 24, 0); }
    public int rxCqNum() { return (int) f(CQ_NUMS, 56, 32); }
    public int statsIndex() { return (int) f(STATS, 6, 0); }
    /** The source MAC, first octet most significant. */
    public long macAddress() { return f(MAC, 63, 16); }
    public int ordSize() { return (int) f(QW20, 7, 0); }
    public int irdSizeCode() { return (int) f(QW20, 18, 16); }
    public boolean udPrivCqEnabled() { return b(QW20, 19); }
    public boolean wrRdRespOk() { return b(QW20, 20); }
    public boolean rdOk() { return b(QW20, 21); }
    public boolean dcqcnEnabled() { return b(QW20, 22); }
    public boolean bindEnabled() { return b(QW20, 23); }
    public boolean fastRegEnabled() { return b(QW20, 24); }
    public boolean privEnabled() { return b(QW20, 25); }
    public boolean useStatsInstance() { return b(QW20, 26); }
    public boolean timelyEnabled() { return b(QW20, 27); }
    public boolean fwCcEnabled() { return b(QW20, 28); }
    public boolean rcvNoIcrc() { return b(QW20, 31); }
    public long qpComplCtx() { return qword(COMPL_CTX); }
    public int qsHandle() { return (int) f(TPH_QS, 25, 16); }
    public int remEndpointIdx() { return (int) f(REM_ENDPOINT, 16, 0); }

    // ---------------------------------------------------------------- setters (the driver, in tests)

    /**
     * What irdma_roce_fill_and_set_qpctx_info (verbs.c) writes for a kernel QP before any attribute: the queues,
     * CQs and completion context given, SNDMSS {@code mss}, ports 0xC000 / 4791, retry counts 2, RTOMIN 5, ACK
     * credits 0x1E, CWND 0x400, P_Key 0xFFFF, read and write-response enabled, IRD code 4, ORD 255, privileged.
     */
    public RoceQpContext writeDefaults(long sqPa, long rqPa, int sqSizeCode, int rqSizeCode, int txCq, int rxCq,
                                       int mss, long complCtx) {
        requireRoom(SIZE, "RoCE QP context");
        for (int off = 0; off < SIZE; off += 8) {
            putQ(off, 0);
        }
        putQ(SQ, sqPa);
        putQ(RQ, rqPa);
        putQ(QW3, prep(rqSizeCode, 11, 8) | prep(sqSizeCode, 15, 12) | prep(0xC000, 47, 32)
                | prep(ROCE_V2_UDP_DPORT, 63, 48));
        putQ(QW6, prep(mss, 29, 16));
        putQ(QW7, prep(0x1E, 24, 20) | prep(0xFFFF, 47, 32));
        putQ(CWND, prep(0x400, 55, 32));
        putQ(QW16, prep(2, 53, 48) | prep(2, 56, 54) | prep(5, 63, 57));
        putQ(CQ_NUMS, prep(txCq, 24, 0) | prep(rxCq, 56, 32));
        putQ(QW20, prep(255, 7, 0) | prep(4, 18, 16) | flag(true, 19) | flag(true, 20) | flag(true, 21)
                | flag(true, 24) | flag(true, 25));
        putQ(COMPL_CTX, complCtx);
        return this;
    }

    public RoceQpContext putIpv4(boolean v) { putBit(QW0, 3, v); return this; }
    public RoceQpContext putInsertVlanTag(boolean v) { putBit(QW0, 5, v); return this; }
    public RoceQpContext putTransportVersion(int v) { putField(QW0, 63, 60, v); return this; }

    public RoceQpContext putPdId(int pd) {
        putField(QW0, 21, 20, pd >>> 16);
        putField(QW7, 63, 48, pd & 0xffff);
        return this;
    }

    public RoceQpContext putTtl(int v) { putField(QW3, 7, 0, v); return this; }
    public RoceQpContext putTos(int v) { putField(QW3, 31, 24, v); return this; }
    public RoceQpContext putSrcPort(int v) { putField(QW3, 47, 32, v); return this; }
    public RoceQpContext putDestPort(int v) { putField(QW3, 63, 48, v); return this; }
    public RoceQpContext putQueueSizes(int sqCode, int rqCode) {
        putField(QW3, 15, 12, sqCode);
        putField(QW3, 11, 8, rqCode);
        return this;
    }

    /** The destination address words, host order (IPv4: {@code 0, 0, 0, addr}). */
    public RoceQpContext putDestIp(int w0, int w1, int w2, int w3) {
        putQ(DEST_IP_01, prep(w0 & 0xffffffffL, 63, 32) | (w1 & 0xffffffffL));
        putQ(DEST_IP_23, prep(w2 & 0xffffffffL, 63, 32) | (w3 & 0xffffffffL));
        return this;
    }

    /** The local address words, host order (IPv4: {@code 0, 0, 0, addr}). */
    public RoceQpContext putLocalIp(int w0, int w1, int w2, int w3) {
        putQ(LOCAL_IP_10, prep(w0 & 0xffffffffL, 63, 32) | (w1 & 0xffffffffL));
        putQ(LOCAL_IP_32, prep(w2 & 0xffffffffL, 63, 32) | (w3 & 0xffffffffL));
        return this;
    }

    public RoceQpContext putSndMss(int v) { putField(QW6, 29, 16, v); return this; }
    public RoceQpContext putVlanTag(int v) { putField(QW6, 47, 32, v); return this; }
    public RoceQpContext putArpIdx(int v) { putField(QW6, 63, 48, v); return this; }
    public RoceQpContext putFlowLabel(int v) { putField(QW7, 19, 0, v); return this; }
    public RoceQpContext putPKey(int v) { putField(QW7, 47, 32, v); return this; }
    public RoceQpContext putDestQp(int v) { putField(QW8, 23, 0, v); return this; }
    public RoceQpContext putQKey(int v) { putField(QW8, 63, 32, v & 0xffffffffL); return this; }

    /** SQ PSN as irdma_modify_qp_roce sets it: PSNNXT, PSNUNA and PSNMAX, LSN 0xFFFF. */
    public RoceQpContext putSqPsn(int psn) {
        putQ(PSN_NXT, prep(psn, 23, 0) | prep(0xffff, 55, 32));
        putQ(PSN_MAX_UNA, prep(psn, 23, 0) | prep(psn, 55, 32));
        return this;
    }

    public RoceQpContext putExpectedPsn(int v) { putField(EPSN, 23, 0, v); return this; }
    public RoceQpContext putRetry(int rexmit, int rnr) {
        putField(QW16, 53, 48, rexmit);
        putField(QW16, 56, 54, rnr);
        return this;
    }

    public RoceQpContext putCqs(int tx, int rx) { putQ(CQ_NUMS, prep(tx, 24, 0) | prep(rx, 56, 32)); return this; }
    public RoceQpContext putMac(long mac) { putQ(MAC, mac << 16); return this; }
    /** Sets IRDMAQPC_DCQCNENABLE (irdma 7.3 never does). */
    public RoceQpContext putDcqcn() { putBit(QW20, 22, true); return this; }
    public RoceQpContext putIrdSizeCode(int v) { putField(QW20, 18, 16, v); return this; }
    public RoceQpContext putQsHandle(int v) { putField(TPH_QS, 25, 16, v); return this; }
    public RoceQpContext putRemEndpointIdx(int v) { putField(REM_ENDPOINT, 16, 0, v); return this; }
}
