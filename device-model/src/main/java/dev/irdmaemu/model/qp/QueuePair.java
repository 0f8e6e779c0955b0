package dev.irdmaemu.model.qp;

import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.model.eq.RingCursor;
import dev.irdmaemu.model.hmc.RingPages;

/**
 * One QP as the device holds it: its state, the fields of its HMC QP object the model acts on (decoded with
 * {@link QpContext}), and the device's positions in its SQ and RQ (PUDA QPs and offloaded iWARP QPs alike; the
 * iWARP data path, {@code model.iwarp}, works the rings from these cursors). Frames steered to the QP are counted
 * in its {@link SteeredFrames}, the queues Flush WQEs ended kept in its {@link FlushedQueues}; the TCP context
 * ({@link #rcvNxt()}, {@link #sndNxt()}) is what the context said at the last load.
 */
public final class QueuePair {
    /** defs.h IRDMA_QP_TYPE_IWARP / IRDMA_QP_TYPE_UDA. */
    public static final int TYPE_IWARP = 1;
    public static final int TYPE_UDA = 2;
    /** defs.h IRDMA_QP_TYPE_ROCE_RC / IRDMA_QP_TYPE_ROCE_UD (QP1, the GSI QP, is a UD QP with id 1 on gen2). */
    public static final int TYPE_ROCE_RC = 3;
    public static final int TYPE_ROCE_UD = 4;
    /** type.h enum irdma_rsvd_qp_id: the ILQ is QP 1, the IEQ QP 2 (hw.c irdma_initialize_ilq / _ieq). */
    public static final int ILQ_QP_ID = 1;
    public static final int IEQ_QP_ID = 2;
    /** 32-byte WQE quanta (IRDMA_QP_WQE_MIN_SIZE). */
    public static final int QUANTUM = 32;

    /** What the QP is to the receive path. */
    public enum Role {
        IWARP, ILQ, IEQ, OTHER_UDA, ROCE_RC, ROCE_UD;

        /** A RoCEv2 QP (its context is the RoCE layout, its frames go through {@code model.roce}). */
        public boolean roce() {
            return this == ROCE_RC || this == ROCE_UD;
        }
    }

    /** How the device checks the framing of an iWARP QP's FPDUs (the context's IRDMAQPC_RCVMARKERS / RCVNOMPACRC). */
    public enum MpaFraming {
        /** FPDUs carry an MPA CRC (RFC 5044 §4.3). */
        CRC,
        /** FPDUs carry none (the CRC field is there, unchecked). */
        NO_CRC,
        /** Not checked: markers asked for (irdma never does), or not an iWARP QP. */
        UNCHECKED
    }

    private final int id;
    boolean live;
    int type;
    Role role;
    QpState state = QpState.INVALID;
    long contextAddress;
    /** Create QP quadword 5 (ctrl.c irdma_sc_qp_create): where the device writes its SQ tail. */
    long shadowArea;
    long completionContext;
    /** Where the SQ and RQ lie: the context's PAs, or (VQ) the page lists resolved at Create QP. */
    final RingPages sqRing = new RingPages();
    final RingPages rqRing = new RingPages();
    /** Create QP had IRDMA_CQPSQ_QP_VQ: context quadwords 1 and 2 are PBLE indexes, never re-read as addresses. */
    boolean virtualMap;
    int sqQuanta;
    int rqQuanta;
    int txCq;
    int rxCq;
    int mss;
    boolean ipv4;
    final int[] localIp = new int[4];
    final int[] remoteIp = new int[4];
    int localPort;
    int remotePort;
    boolean insertVlan;
    int vlanTag;
    int tcpState;
    MpaFraming mpaFraming = MpaFraming.UNCHECKED;
    long sndNxt;
    long rcvNxt;
    final RingCursor sq = new RingCursor();
    final RingCursor rq = new RingCursor();
    final SteeredFrames steering = new SteeredFrames();
    final FlushedQueues flushed = new FlushedQueues();

    QueuePair(int id) {
        this.id = id;
    }

    /**
     * Reads the fields the model uses from the QP object (the host context copied into HMC). The queue, CQ, MSS and
     * completion-context fields lie at the same places in the iWARP and the RoCE layouts (ctrl.c
     * irdma_sc_qp_setctx and irdma_sc_qp_setctx_roce_gen_2), so {@code c} serves both; the rest is iWARP only.
     */
    void load(QpContext c, boolean withTcp) {
        sqQuanta = 4 << c.sqSize();
        rqQuanta = 4 << c.rqSize();
        if (!virtualMap) {
            sqRing.contiguous(c.sqAddress(), (long) sqQuanta * QUANTUM);
            rqRing.contiguous(c.rqAddress(), (long) rqQuanta * QUANTUM);
        }
        txCq = c.txCqNum();
        rxCq = c.rxCqNum();
        completionContext = c.qpComplCtx();
        mss = (int) c.sndMss();
        if (type == TYPE_IWARP) {
            ipv4 = c.ipv4();
            for (int i = 0; i < 4; i++) {
                localIp[i] = c.localIp(i);
                remoteIp[i] = c.destIp(i);
            }
            localPort = c.srcPort();
            remotePort = c.dstPort();
            insertVlan = c.insertVlanTag();
            // FPDU framing is checked only without markers (irdma never enables them): 1 with CRC, 0 without.
            mpaFraming = c.rcvMarkers() ? MpaFraming.UNCHECKED
                    : c.rcvNoMpaCrc() ? MpaFraming.NO_CRC : MpaFraming.CRC;
            vlanTag = c.vlanTag();
            if (withTcp) {
                tcpState = c.tcpState();
                sndNxt = c.sndNxt();
                rcvNxt = c.rcvNxt();
            }
        }
    }

    void resetRings() {
        sq.reset(Math.max(1, sqQuanta));
        rq.reset(Math.max(1, rqQuanta));
    }

    public int id() {
        return id;
    }

    public boolean live() {
        return live;
    }

    public int type() {
        return type;
    }

    public Role role() {
        return role;
    }

    public QpState state() {
        return state;
    }

    /** Guest address of the QP's object in HMC. */
    public long contextAddress() {
        return contextAddress;
    }

    /**
     * Guest address of the QP's doorbell shadow area, from Create QP; the device writes its consumed SQ tail in
     * quadword 0 (defs.h IRDMA_QP_DBSA_HW_SQ_TAIL).
     */
    public long shadowArea() {
        return shadowArea;
    }

    public long completionContext() {
        return completionContext;
    }

    /** The SQ's first byte (its PA, or its first page under VQ). */
    public long sqAddress() {
        return sqRing.address(0);
    }

    /** Where the SQ lies, for address computation per WQE ({@link RingPages#address(long)}). */
    public RingPages sqRing() {
        return sqRing;
    }

    public RingPages rqRing() {
        return rqRing;
    }

    public boolean virtualMap() {
        return virtualMap;
    }

    /** The RQ's first byte (its PA, or its first page under VQ). */
    public long rqAddress() {
        return rqRing.address(0);
    }

    public int sqQuanta() {
        return sqQuanta;
    }

    public int rqQuanta() {
        return rqQuanta;
    }

    public int txCq() {
        return txCq;
    }

    public int rxCq() {
        return rxCq;
    }

    public int mss() {
        return mss;
    }

    public boolean ipv4() {
        return ipv4;
    }

    /** Word {@code i} of the local address as the context holds it (IPv4 in word 3... see QpContext). */
    public int localIp(int i) {
        return localIp[i];
    }

    public int remoteIp(int i) {
        return remoteIp[i];
    }

    public int localPort() {
        return localPort;
    }

    public int remotePort() {
        return remotePort;
    }

    public int vlanTag() {
        return vlanTag;
    }

    public boolean insertVlan() {
        return insertVlan;
    }

    public int tcpState() {
        return tcpState;
    }

    public MpaFraming mpaFraming() {
        return mpaFraming;
    }

    public long sndNxt() {
        return sndNxt;
    }

    public long rcvNxt() {
        return rcvNxt;
    }

    /** The device's next RQ quantum (PUDA QPs). */
    public RingCursor rqCursor() {
        return rq;
    }

    public RingCursor sqCursor() {
        return sq;
    }

    /** The receive seam for offloaded QPs: a frame of {@code tcpPayload} bytes was steered to this QP. */
    public void steered(long tcpPayload) {
        steering.countSteered(tcpPayload);
    }

    public void dropped() {
        steering.countDropped();
    }

    /** What was steered to this QP and dropped for it. */
    public SteeredFrames steering() {
        return steering;
    }

    /** Which queues Flush WQEs already ended. */
    public FlushedQueues flushed() {
        return flushed;
    }
}
