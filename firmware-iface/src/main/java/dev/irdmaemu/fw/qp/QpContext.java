package dev.irdmaemu.fw.qp;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.queue.QuadView;
import java.util.OptionalInt;

/**
 * Flyweight over the 256-byte iWARP QP host context (user.h IRDMA_QP_CTX_SIZE) exactly as irdma_sc_qp_setctx
 * (ctrl.c) writes it for a gen2 device, the buffer Create QP / Modify QP point the device at. Quadword map
 * (defs.h IRDMAQPC_* masks; byte offset in brackets):
 * <pre>
 *  [0]   RQWQESIZE 9:8, RCV/XMIT/RQ/SQ TPHEN 28..31, PPIDX 41:32, PMENA 47; iWARP: DDP_VER 1:0, IBRDENABLE 2,
 *        ECN_EN 14, ERR_RQ_IDX_VALID 19, PDIDXHI 21:20, DC_TCP_EN 25, RDMAP_VER 63:62; TCP: IPV4 3, NONAGLE 4,
 *        INSERTVLANTAG 5, TIMESTAMP 7, LIMIT 13:12, DROPOOOSEG 15, DUPACK_THRESH 18:16
 *  [8]   SQ base   [16] RQ base
 *  [24]  TTL 7:0, RQSIZE 11:8, SQSIZE 15:12, AVOIDSTRETCHACK 23, TOS 31:24, SRCPORTNUM 47:32, DESTPORTNUM 63:48
 *  [32]  DESTIPADDR3 31:0, DESTIPADDR2 63:32     [40] DESTIPADDR1 31:0, DESTIPADDR0 63:32
 *  [48]  SNDMSS 29:16, SYN_RST_HANDLING 31:30, VLANTAG 47:32, ARPIDX 63:48
 *  [56]  FLOWLABEL 19:0, WSCALE 20, IGNORE_TCP_OPT 22, IGNORE_TCP_UNS_OPT 23, TCPSTATE 31:28, RCVSCALE 35:32,
 *        SNDSCALE 43:40, PDIDX 63:48
 *  [72]  TIMESTAMP_RECENT / _AGE   [80] SNDNXT / SNDWND   [88] RCVNXT / RCVWND   [96] SNDMAX / SNDUNA
 *  [104] SRTT / RTTVAR   [112] SSTHRESH / CWND   [120] SNDWL1 / SNDWL2            (each 31:0 / 63:32)
 *  [128] MAXSNDWND 31:0, ERR_RQ_IDX 46:32, REXMIT_THRESH 53:48, RTOMIN 63:57
 *  [136] TXCQNUM 24:0, RXCQNUM 56:32   [144] STAT_INDEX 6:0, Q2ADDR 63:8   [152] LASTBYTESENT 7:0, MAC 63:16
 *  [160] ORDSIZE 7:0, IRDSIZE 18:16, WRRDRSPOK 20, RDOK 21, SNDMARKERS 22, BINDEN 23, FASTREGEN 24, PRIVEN 25,
 *        USESTATSINSTANCE 26, TIMELYENABLE 27, IWARPMODE 28, RCVMARKERS 29, ALIGNHDRS 30, RCVNOMPACRC 31,
 *        RCVMARKOFFSET 40:32, SNDMARKOFFSET 56:48
 *  [168] QP completion context   [176] SQTPHVAL 7:0, RQTPHVAL 15:8, QSHANDLE 25:16, EXCEPTION_LAN_QUEUE 43:32
 *  [184] LOCAL_IPADDR3 31:0, LOCAL_IPADDR2 63:32   [192] LOCAL_IPADDR1 31:0, LOCAL_IPADDR0 63:32
 *  [200] TLOW 39:32, THIGH 63:52   [208] REMENDPOINTIDX 16:0
 * </pre>
 * The QP type and the iWARP QP state are not in this buffer: they travel in the Create/Modify QP CQP WQE. The
 * keepalive fields defs.h defines (IRDMAQPC_KEEPALIVE, KALIVE_TIMER_MAX_PROBES, KEEPALIVE_INTERVAL) are not
 * written by Linux 7.3's irdma_sc_qp_setctx, so they stay zero here too.
 *
 * <p>{@link #write} is the driver side; the getters, {@link #validate(boolean)} and the {@code read*} record
 * builders (which allocate; use them at Modify QP time, not per frame) are the model side.
 */
public final class QpContext extends QuadView implements Flyweight<QpContext> {
    public static final int SIZE = 256;

    /** defs.h IRDMA_IRD_HW_SIZE_4 .. _256 (codes 0 to 4): the hardware IRD entries each code stands for. */
    private static final OptionalInt[] IRD_ENTRIES = {
        OptionalInt.of(4), OptionalInt.of(16), OptionalInt.of(64), OptionalInt.of(128), OptionalInt.of(256)
    };

    public static final int OFF_QW0 = 0;
    public static final int OFF_SQ_ADDR = 8;
    public static final int OFF_RQ_ADDR = 16;
    public static final int OFF_QW3 = 24;
    public static final int OFF_DEST_IP_23 = 32;
    public static final int OFF_DEST_IP_01 = 40;
    public static final int OFF_QW6 = 48;
    public static final int OFF_QW7 = 56;
    public static final int OFF_TIMESTAMP = 72;
    public static final int OFF_SND_NXT_WND = 80;
    public static final int OFF_RCV_NXT_WND = 88;
    public static final int OFF_SND_MAX_UNA = 96;
    public static final int OFF_RTT = 104;
    public static final int OFF_SSTHRESH_CWND = 112;
    public static final int OFF_SND_WL = 120;
    public static final int OFF_QW16 = 128;
    public static final int OFF_CQ_NUMS = 136;
    public static final int OFF_Q2_STATS = 144;
    public static final int OFF_MAC = 152;
    public static final int OFF_IWARP = 160;
    public static final int OFF_COMPL_CTX = 168;
    public static final int OFF_TPH_QS = 176;
    public static final int OFF_LOCAL_IP_32 = 184;
    public static final int OFF_LOCAL_IP_10 = 192;
    public static final int OFF_TIMELY = 200;
    public static final int OFF_REM_ENDPOINT = 208;

    /** defs.h ECN_CODE_PT_VAL: the ECT codepoint irdma_sc_qp_setctx puts in TOS when ECN or DCTCP is on. */
    public static final int ECN_CODE_PT_VAL = 2;

    // ---------------------------------------------------------------- checks

    /** Checks the iWARP half always and, when {@code withTcp}, the TCP offload half (Modify QP to RTS). */
    public QpContextCheck validate(boolean withTcp) {
        if (!beginValidation(SIZE)) {
            return fail(QpContextCheck.TRUNCATED, length);
        }
        if (!iwarpMode()) {
            return fail(QpContextCheck.NOT_IWARP_MODE, OFF_IWARP + 3);
        }
        if (ddpVersion() != 1) {
            return fail(QpContextCheck.BAD_DDP_VERSION, OFF_QW0);
        }
        if (rdmapVersion() != 1) {
            return fail(QpContextCheck.BAD_RDMAP_VERSION, OFF_QW0 + 7);
        }
        if (irdHwSize().isEmpty()) {
            return fail(QpContextCheck.BAD_IRD_SIZE, OFF_IWARP + 2);
        }
        if (withTcp) {
            if (rcvWscale() > 14) {
                return fail(QpContextCheck.BAD_WINDOW_SCALE, OFF_QW7 + 4);
            }
            if (sndWscale() > 14) {
                return fail(QpContextCheck.BAD_WINDOW_SCALE, OFF_QW7 + 5);
            }
            if (sndMss() == 0) {
                return fail(QpContextCheck.ZERO_MSS, OFF_QW6 + 2);
            }
            if (tcpState() >= 12) {
                return fail(QpContextCheck.BAD_TCP_STATE, OFF_QW7 + 3);
            }
        }
        return QpContextCheck.ACCEPTED;
    }

    // ---------------------------------------------------------------- IRD encoding

    /** irdma_sc_get_encoded_ird_size: the IRDMA_IRD_HW_SIZE_* code for a driver IRD. */
    public static int encodeIrd(int irdSize) {
        int ird = irdSize & 0xffff;
        long slots = ird == 0 ? 4 : roundUpPowerOfTwo(2L * ird);
        if (slots == 256) {
            return 4;
        }
        if (slots == 128) {
            return 3;
        }
        if (slots == 64 || slots == 32) {
            return 2;
        }
        if (slots == 16 || slots == 8) {
            return 1;
        }
        return 0;
    }

    /**
     * The hardware IRD entries an IRDMA_IRD_HW_SIZE_* code stands for (4, 16, 64, 128, 256), empty for a code defs.h
     * does not define. The answers are shared instances: no allocation.
     */
    public static OptionalInt decodeIrd(int code) {
        return code >= 0 && code < IRD_ENTRIES.length ? IRD_ENTRIES[code] : OptionalInt.empty();
    }

    private static long roundUpPowerOfTwo(long v) {
        return v <= 1 ? 1 : Long.highestOneBit(v - 1) << 1;
    }

    /** The TOS irdma_sc_qp_setctx writes: ECN_CODE_PT_VAL added when ECN or DCTCP is on and TOS has no ECN bits. */
    public static int effectiveTos(int tos, boolean ecnEn, boolean dctcpEn) {
        return (ecnEn || dctcpEn) && (tos & 0x03) == 0 ? tos | ECN_CODE_PT_VAL : tos;
    }

    // ---------------------------------------------------------------- writer (the driver)

    /**
     * Writes the quadwords irdma_sc_qp_setctx writes (gen2) and no others. {@code tcp} may be null (the driver's
     * tcp_info pointer); it is used for the marker offsets even when {@code info.tcpInfoValid()} is false, as
     * in the driver. {@code iw} is required when either half is valid.
     */
    public QpContext write(QpResources r, QpHostContextInfo info, IwarpOffloadInfo iw, TcpOffloadInfo tcp) {
        requireRoom(SIZE, "QP context");
        boolean push = r.pushIdx() != QpResources.NO_PUSH_PAGE;
        long qw0 = prep(r.rqWqeSize(), 9, 8) | flag(r.rcvTphEn(), 28) | flag(r.xmitTphEn(), 29)
            | flag(r.rqTphEn(), 30) | flag(r.sqTphEn(), 31) | prep(push ? r.pushIdx() : 0, 41, 32) | flag(push, 47);
        putQ(OFF_SQ_ADDR, r.sqPa());
        putQ(OFF_RQ_ADDR, r.rqPa());
        long qw3 = prep(r.hwRqSize(), 11, 8) | prep(r.hwSqSize(), 15, 12);
        long qw7 = 0;
        long qw16 = 0;
        putQ(OFF_CQ_NUMS, prep(info.sendCqNum(), 24, 0) | prep(info.rcvCqNum(), 56, 32));
        putQ(OFF_COMPL_CTX, info.qpComplCtx());
        putQ(OFF_TPH_QS, prep(r.sqTphVal(), 7, 0) | prep(r.rqTphVal(), 15, 8) | prep(r.qsHandle(), 25, 16)
            | prep(r.ieqQp(), 43, 32));
        if (info.iwarpInfoValid()) {
            qw0 |= prep(iw.ddpVer(), 1, 0) | prep(iw.rdmapVer(), 63, 62) | flag(iw.dctcpEn(), 25)
                | flag(iw.ecnEn(), 14) | flag(iw.ibRdEn(), 2) | prep(Integer.toUnsignedLong(iw.pdId()) >>> 16, 21, 20)
                | flag(iw.errRqIdxValid(), 19);
            qw7 |= prep(iw.pdId(), 63, 48);
            qw16 |= prep(iw.errRqIdx(), 46, 32) | prep(iw.rtomin(), 63, 57);
            putQ(OFF_Q2_STATS, prep(r.q2Pa() >>> 8, 63, 8) | prep(info.statsIdx(), 6, 0));
            putQ(OFF_MAC, (iw.macAddr() & mask(47, 0)) << 16 | prep(iw.lastByteSent(), 7, 0));
            long rcvMark = iw.rcvMarkOffset() != 0 || tcp == null ? iw.rcvMarkOffset() : tcp.rcvNxt();
            long sndMark = iw.sndMarkOffset() != 0 || tcp == null ? iw.sndMarkOffset() : tcp.sndNxt();
            putQ(OFF_IWARP, prep(iw.ordSize(), 7, 0) | prep(encodeIrd(iw.irdSize()), 18, 16)
                | flag(iw.wrRdrespEn(), 20) | flag(iw.rdEn(), 21) | flag(iw.sndMarkEn(), 22) | flag(iw.bindEn(), 23)
                | flag(iw.fastRegEn(), 24) | flag(iw.privModeEn(), 25) | flag(info.statsIdxValid(), 26)
                | 1L << 28 | flag(iw.rcvMarkEn(), 29) | flag(iw.alignHdrs(), 30) | flag(iw.rcvNoMpaCrc(), 31)
                | prep(rcvMark, 40, 32) | prep(sndMark, 56, 48) | flag(iw.timelyEn(), 27));
        }
        if (info.tcpInfoValid()) {
            qw0 |= flag(tcp.ipv4(), 3) | flag(tcp.noNagle(), 4) | flag(tcp.insertVlanTag(), 5)
                | flag(tcp.timeStamp(), 7) | prep(tcp.cwndIncLimit(), 13, 12) | flag(tcp.dropOooSeg(), 15)
                | prep(tcp.dupAckThresh(), 18, 16);
            int tos = iw == null ? tcp.tos() : effectiveTos(tcp.tos(), iw.ecnEn(), iw.dctcpEn());
            qw3 |= prep(tcp.ttl(), 7, 0) | flag(tcp.avoidStretchAck(), 23) | prep(tos, 31, 24)
                | prep(tcp.srcPort(), 47, 32) | prep(tcp.dstPort(), 63, 48);
            putQ(OFF_DEST_IP_23, pair(tcp.destIp3(), tcp.destIp2()));
            putQ(OFF_DEST_IP_01, pair(tcp.destIp1(), tcp.destIp0()));
            putQ(OFF_QW6, prep(tcp.sndMss(), 29, 16) | prep(tcp.synRstHandling(), 31, 30)
                | prep(tcp.vlanTag(), 47, 32) | prep(tcp.arpIdx(), 63, 48));
            qw7 |= prep(tcp.flowLabel(), 19, 0) | flag(tcp.wscale(), 20) | flag(tcp.ignoreTcpOpt(), 22)
                | flag(tcp.ignoreTcpUnsOpt(), 23) | prep(tcp.tcpState(), 31, 28) | prep(tcp.rcvWscale(), 35, 32)
                | prep(tcp.sndWscale(), 43, 40);
            putQ(OFF_TIMESTAMP, pair(tcp.timeStampRecent(), tcp.timeStampAge()));
            putQ(OFF_SND_NXT_WND, pair(tcp.sndNxt(), tcp.sndWnd()));
            putQ(OFF_RCV_NXT_WND, pair(tcp.rcvNxt(), tcp.rcvWnd()));
            putQ(OFF_SND_MAX_UNA, pair(tcp.sndMax(), tcp.sndUna()));
            putQ(OFF_RTT, pair(tcp.srtt(), tcp.rttVar()));
            putQ(OFF_SSTHRESH_CWND, pair(tcp.ssThresh(), tcp.cwnd()));
            putQ(OFF_SND_WL, pair(tcp.sndWl1(), tcp.sndWl2()));
            qw16 |= prep(tcp.maxSndWindow(), 31, 0) | prep(tcp.rexmitThresh(), 53, 48);
            putQ(OFF_LOCAL_IP_32, pair(tcp.localIp3(), tcp.localIp2()));
            putQ(OFF_LOCAL_IP_10, pair(tcp.localIp1(), tcp.localIp0()));
            putQ(OFF_TIMELY, iw == null ? 0 : prep(iw.tHigh(), 63, 52) | prep(iw.tLow(), 39, 32));
            putQ(OFF_REM_ENDPOINT, prep(info.remEndpointIdx(), 16, 0));
        }
        putQ(OFF_QW0, qw0);
        putQ(OFF_QW3, qw3);
        putQ(OFF_QW7, qw7);
        putQ(OFF_QW16, qw16);
        return this;
    }

    /**
     * Writes the quadwords puda.c irdma_puda_qp_setctx writes for an ILQ/IEQ (UDA) QP on gen2 and no others: SQ and
     * RQ base, RQSIZE / SQSIZE, SNDMSS = the PUDA buffer size, quadword 7 cleared, TXCQNUM = RXCQNUM = the PUDA
     * CQ, STAT_INDEX, PRIVEN with USESTATSINSTANCE, the completion context, and SQTPHVAL / RQTPHVAL / QSHANDLE
     * ({@code r.ieqQp()} is not written: a PUDA QP names no exception queue).
     */
    public QpContext writePuda(QpResources r, int bufferSize, int cqId, int statsIdx, boolean statsIdxValid,
                               long complCtx) {
        requireRoom(SIZE, "QP context");
        putQ(OFF_SQ_ADDR, r.sqPa());
        putQ(OFF_RQ_ADDR, r.rqPa());
        putQ(OFF_QW3, prep(r.hwRqSize(), 11, 8) | prep(r.hwSqSize(), 15, 12));
        putQ(OFF_QW6, prep(bufferSize, 29, 16));
        putQ(OFF_QW7, 0);
        putQ(OFF_CQ_NUMS, prep(cqId, 24, 0) | prep(cqId, 56, 32));
        putQ(OFF_Q2_STATS, prep(statsIdx, 6, 0));
        putQ(OFF_IWARP, flag(true, 25) | flag(statsIdxValid, 26));
        putQ(OFF_COMPL_CTX, complCtx);
        putQ(OFF_TPH_QS, prep(r.sqTphVal(), 7, 0) | prep(r.rqTphVal(), 15, 8) | prep(r.qsHandle(), 25, 16));
        return this;
    }

    /** A quadword whose low half is {@code lo} and high half {@code hi} (each a u32). */
    private static long pair(long lo, long hi) {
        return prep(lo, 31, 0) | prep(hi, 63, 32);
    }

    // ---------------------------------------------------------------- reader (the model)

    private long f(int off, int hi, int lo) {
        return get(qword(off), hi, lo);
    }

    private boolean b(int off, int bit) {
        return bit(qword(off), bit);
    }

    public int rqWqeSize() { return (int) f(OFF_QW0, 9, 8); }
    public boolean rcvTphEn() { return b(OFF_QW0, 28); }
    public boolean xmitTphEn() { return b(OFF_QW0, 29); }
    public boolean rqTphEn() { return b(OFF_QW0, 30); }
    public boolean sqTphEn() { return b(OFF_QW0, 31); }
    public int pushPageIndex() { return (int) f(OFF_QW0, 41, 32); }
    public boolean pushModeEnabled() { return b(OFF_QW0, 47); }
    public int ddpVersion() { return (int) f(OFF_QW0, 1, 0); }
    public int rdmapVersion() { return (int) f(OFF_QW0, 63, 62); }
    public boolean dcTcpEnabled() { return b(OFF_QW0, 25); }
    public boolean ecnEnabled() { return b(OFF_QW0, 14); }
    public boolean ibRdEnabled() { return b(OFF_QW0, 2); }
    public boolean errRqIdxValid() { return b(OFF_QW0, 19); }
    /** IRDMAQPC_PDIDXHI (2 bits) above IRDMAQPC_PDIDX (16 bits): an 18-bit PD id. */
    public int pdId() { return (int) (f(OFF_QW0, 21, 20) << 16 | f(OFF_QW7, 63, 48)); }
    public boolean ipv4() { return b(OFF_QW0, 3); }
    public boolean noNagle() { return b(OFF_QW0, 4); }
    public boolean insertVlanTag() { return b(OFF_QW0, 5); }
    public boolean timeStamp() { return b(OFF_QW0, 7); }
    public int cwndIncLimit() { return (int) f(OFF_QW0, 13, 12); }
    public boolean dropOooSeg() { return b(OFF_QW0, 15); }
    public int dupAckThresh() { return (int) f(OFF_QW0, 18, 16); }

    public long sqAddress() { return qword(OFF_SQ_ADDR); }
    public long rqAddress() { return qword(OFF_RQ_ADDR); }

    /**
     * Quadword 1 of a QP created with IRDMA_CQPSQ_QP_VQ: the SQ's first PBLE index in place of its PA (verbs.c
     * irdma_setup_virt_qp sets sq_pa = sq_pbl.idx; ctrl.c irdma_sc_qp_setctx writes it unchanged).
     */
    public long sqPbleIndex() { return qword(OFF_SQ_ADDR); }

    /** Quadword 2 under VQ: the RQ's first PBLE index (the SQ's plus its page count, irdma_handle_q_mem). */
    public long rqPbleIndex() { return qword(OFF_RQ_ADDR); }

    public int ttl() { return (int) f(OFF_QW3, 7, 0); }
    public int rqSize() { return (int) f(OFF_QW3, 11, 8); }
    public int sqSize() { return (int) f(OFF_QW3, 15, 12); }
    public boolean avoidStretchAck() { return b(OFF_QW3, 23); }
    public int tos() { return (int) f(OFF_QW3, 31, 24); }
    public int srcPort() { return (int) f(OFF_QW3, 47, 32); }
    public int dstPort() { return (int) f(OFF_QW3, 63, 48); }

    /** The driver's dest_ip_addr[i] (IPv4 in index 3). */
    public int destIp(int i) {
        return addressWord(OFF_DEST_IP_01, OFF_DEST_IP_23, i);
    }

    /** The driver's local_ipaddr[i] (IPv4 in index 3). */
    public int localIp(int i) {
        return addressWord(OFF_LOCAL_IP_10, OFF_LOCAL_IP_32, i);
    }

    /**
     * Word {@code i} (0 to 3; 0 otherwise) of an address the context holds as the driver's u32[4], two words a
     * quadword ({@code words01}: words 0 and 1, {@code words23}: 2 and 3), the even word in the high half
     * (irdma_sc_qp_setctx's FIELD_PREP of IRDMAQPC_DESTIPADDR0..3 / LOCAL_IPADDR0..3).
     */
    private int addressWord(int words01, int words23, int i) {
        if (i < 0 || i > 3) {
            return 0;
        }
        int qw = i < 2 ? words01 : words23;
        return (int) ((i & 1) == 0 ? f(qw, 63, 32) : f(qw, 31, 0));
    }

    public long sndMss() { return f(OFF_QW6, 29, 16); }
    public int synRstHandling() { return (int) f(OFF_QW6, 31, 30); }
    /** IRDMAQPC_VLANTAG: the whole 802.1Q TCI (VLAN id and priority, irdma_init_tcp_ctx). */
    public int vlanTag() { return (int) f(OFF_QW6, 47, 32); }
    /** IRDMAQPC_ARPIDX: the ARP table entry whose MAC is the next hop (Manage ARP entry CQP op). */
    public int arpIdx() { return (int) f(OFF_QW6, 63, 48); }

    public int flowLabel() { return (int) f(OFF_QW7, 19, 0); }
    public boolean wscale() { return b(OFF_QW7, 20); }
    public boolean ignoreTcpOpt() { return b(OFF_QW7, 22); }
    public boolean ignoreTcpUnsOpt() { return b(OFF_QW7, 23); }
    public int tcpState() { return (int) f(OFF_QW7, 31, 28); }
    public int rcvWscale() { return (int) f(OFF_QW7, 35, 32); }
    public int sndWscale() { return (int) f(OFF_QW7, 43, 40); }

    public long timeStampRecent() { return f(OFF_TIMESTAMP, 31, 0); }
    public long timeStampAge() { return f(OFF_TIMESTAMP, 63, 32); }
    public long sndNxt() { return f(OFF_SND_NXT_WND, 31, 0); }
    public long sndWnd() { return f(OFF_SND_NXT_WND, 63, 32); }
    public long rcvNxt() { return f(OFF_RCV_NXT_WND, 31, 0); }
    public long rcvWnd() { return f(OFF_RCV_NXT_WND, 63, 32); }
    public long sndMax() { return f(OFF_SND_MAX_UNA, 31, 0); }
    public long sndUna() { return f(OFF_SND_MAX_UNA, 63, 32); }
    public long srtt() { return f(OFF_RTT, 31, 0); }
    public long rttVar() { return f(OFF_RTT, 63, 32); }
    public long ssThresh() { return f(OFF_SSTHRESH_CWND, 31, 0); }
    public long cwnd() { return f(OFF_SSTHRESH_CWND, 63, 32); }
    public long sndWl1() { return f(OFF_SND_WL, 31, 0); }
    public long sndWl2() { return f(OFF_SND_WL, 63, 32); }

    public long maxSndWindow() { return f(OFF_QW16, 31, 0); }
    public int errRqIdx() { return (int) f(OFF_QW16, 46, 32); }
    public int rexmitThresh() { return (int) f(OFF_QW16, 53, 48); }
    public int rtoMin() { return (int) f(OFF_QW16, 63, 57); }

    public int txCqNum() { return (int) f(OFF_CQ_NUMS, 24, 0); }
    public int rxCqNum() { return (int) f(OFF_CQ_NUMS, 56, 32); }
    public int statsIndex() { return (int) f(OFF_Q2_STATS, 6, 0); }
    /** The Q2 buffer's address (IRDMAQPC_Q2ADDR, 256-byte aligned). */
    public long q2Address() { return qword(OFF_Q2_STATS) & mask(63, 8); }
    public int lastByteSent() { return (int) f(OFF_MAC, 7, 0); }
    /** IRDMAQPC_MACADDRESS: the local MAC, first byte most significant. */
    public long macAddress() { return f(OFF_MAC, 63, 16); }

    public int ordSize() { return (int) f(OFF_IWARP, 7, 0); }
    public int irdSizeCode() { return (int) f(OFF_IWARP, 18, 16); }
    /** The hardware IRD entries ({@link #decodeIrd(int)}), empty for an undefined code. */
    public OptionalInt irdHwSize() { return decodeIrd(irdSizeCode()); }
    public boolean wrRdRespOk() { return b(OFF_IWARP, 20); }
    public boolean rdOk() { return b(OFF_IWARP, 21); }
    public boolean sndMarkers() { return b(OFF_IWARP, 22); }
    public boolean bindEnabled() { return b(OFF_IWARP, 23); }
    public boolean fastRegEnabled() { return b(OFF_IWARP, 24); }
    public boolean privEnabled() { return b(OFF_IWARP, 25); }
    public boolean useStatsInstance() { return b(OFF_IWARP, 26); }
    public boolean timelyEnabled() { return b(OFF_IWARP, 27); }
    public boolean iwarpMode() { return b(OFF_IWARP, 28); }
    public boolean rcvMarkers() { return b(OFF_IWARP, 29); }
    public boolean alignHeaders() { return b(OFF_IWARP, 30); }
    /** IRDMAQPC_RCVNOMPACRC: the peer sends no MPA CRC (negotiated off, RFC 5044 §7.1). */
    public boolean rcvNoMpaCrc() { return b(OFF_IWARP, 31); }
    public int rcvMarkOffset() { return (int) f(OFF_IWARP, 40, 32); }
    public int sndMarkOffset() { return (int) f(OFF_IWARP, 56, 48); }

    public long qpComplCtx() { return qword(OFF_COMPL_CTX); }
    public int sqTphVal() { return (int) f(OFF_TPH_QS, 7, 0); }
    public int rqTphVal() { return (int) f(OFF_TPH_QS, 15, 8); }
    public int qsHandle() { return (int) f(OFF_TPH_QS, 25, 16); }
    /** IRDMAQPC_EXCEPTION_LAN_QUEUE: the IEQ QP that gets this QP's exception segments. */
    public int exceptionLanQueue() { return (int) f(OFF_TPH_QS, 43, 32); }
    public int tHigh() { return (int) f(OFF_TIMELY, 63, 52); }
    public int tLow() { return (int) f(OFF_TIMELY, 39, 32); }
    public int remEndpointIdx() { return (int) f(OFF_REM_ENDPOINT, 16, 0); }

    // ---------------------------------------------------------------- record views (allocate)

    public TcpOffloadInfo readTcp() {
        return new TcpOffloadInfo.Builder()
                .addresses(ipv4(), new int[] {localIp(0), localIp(1), localIp(2), localIp(3)},
                        new int[] {destIp(0), destIp(1), destIp(2), destIp(3)})
                .ports(srcPort(), dstPort()).ipHeader(ttl(), tos(), flowLabel()).vlan(insertVlanTag(), vlanTag())
                .noNagle(noNagle()).timeStamp(timeStamp(), timeStampRecent(), timeStampAge()).dropOooSeg(dropOooSeg())
                .avoidStretchAck(avoidStretchAck()).windowScale(wscale(), sndWscale(), rcvWscale())
                .ignoreTcpOptions(ignoreTcpOpt(), ignoreTcpUnsOpt()).cwndIncLimit(cwndIncLimit())
                .dupAckThresh(dupAckThresh()).sndMss(sndMss()).synRstHandling(synRstHandling()).arpIdx(arpIdx())
                .tcpState(tcpState()).sendSequence(sndNxt(), sndUna(), sndMax())
                .sendWindow(sndWnd(), sndWl1(), sndWl2(), maxSndWindow()).receive(rcvNxt(), rcvWnd())
                .rtt(srtt(), rttVar()).congestion(cwnd(), ssThresh()).rexmitThresh(rexmitThresh()).build();
    }

    /**
     * The iWARP half; {@code irdSize} here is the hardware IRD entries ({@link #irdHwSize()}), not the code (0 for an
     * undefined code, which {@link #validate} rejects as BAD_IRD_SIZE).
     */
    public IwarpOffloadInfo readIwarp() {
        return new IwarpOffloadInfo.Builder().rcvMarkOffset(rcvMarkOffset()).sndMarkOffset(sndMarkOffset())
                .ddpVer(ddpVersion()).rdmapVer(rdmapVersion()).errRqIdx(errRqIdx()).pdId(pdId()).ordSize(ordSize())
                .irdSize(irdHwSize().orElse(0)).ibRdEn(ibRdEnabled()).alignHdrs(alignHeaders()).rcvNoMpaCrc(rcvNoMpaCrc())
                .errRqIdxValid(errRqIdxValid()).sndMarkEn(sndMarkers()).rcvMarkEn(rcvMarkers()).wrRdrespEn(wrRdRespOk())
                .bindEn(bindEnabled()).fastRegEn(fastRegEnabled()).privModeEn(privEnabled()).rdEn(rdOk())
                .timelyEn(timelyEnabled()).ecnEn(ecnEnabled()).dctcpEn(dcTcpEnabled()).tHigh(tHigh()).tLow(tLow())
                .lastByteSent(lastByteSent()).macAddr(macAddress()).rtomin(rtoMin()).build();
    }

    public QpResources readResources() {
        return new QpResources(rqWqeSize(), rcvTphEn(), xmitTphEn(), rqTphEn(), sqTphEn(),
            pushModeEnabled() ? pushPageIndex() : QpResources.NO_PUSH_PAGE, sqAddress(), rqAddress(), rqSize(),
            sqSize(), q2Address(), sqTphVal(), rqTphVal(), qsHandle(), exceptionLanQueue());
    }

    /** The host-context fields; the two validity flags cannot be read back and are answered as given. */
    public QpHostContextInfo readInfo(boolean tcpInfoValid, boolean iwarpInfoValid) {
        return new QpHostContextInfo(qpComplCtx(), txCqNum(), rxCqNum(), remEndpointIdx(), statsIndex(),
            useStatsInstance(), tcpInfoValid, iwarpInfoValid);
    }
}
