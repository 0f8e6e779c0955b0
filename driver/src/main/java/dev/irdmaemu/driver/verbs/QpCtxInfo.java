package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.qp.IwarpOffloadInfo;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.qp.QpHostContextInfo;
import dev.irdmaemu.fw.qp.QpResources;
import dev.irdmaemu.fw.qp.TcpOffloadInfo;

/**
 * A QP's host context as irdma fills and writes it (struct irdma_qp_host_ctx_info with its iWARP and TCP offload
 * info): at create (verbs.c irdma_iw_fill_and_set_qpctx_info), for a connection (cm.c irdma_cm_init_tsa_conn, the TCP
 * half from irdma_init_tcp_ctx) and after an RQ error AE (hw.c irdma_process_aeq's err_rq_idx), each time written with
 * ctrl.c irdma_sc_qp_setctx.
 */
final class QpCtxInfo {
    private final QueuePair qp;
    private final QpContext context = new QpContext();
    private IwarpOffloadInfo iwarpInfo;
    private TcpOffloadInfo tcpInfo;
    private int arpIndex;

    QpCtxInfo(QueuePair qp) {
        this.qp = qp;
    }

    /**
     * verbs.c irdma_iw_fill_and_set_qpctx_info then ctrl.c irdma_sc_qp_setctx: the context the QP is created with,
     * the iWARP half only (kernel consumer: privileged mode and fast registration on; ECN on, RTO floor 5).
     */
    void writeCreate() {
        iwarpInfo = new IwarpOffloadInfo.Builder().ddpVer(1).rdmapVer(1).ibRdEn(true).wrRdrespEn(true).fastRegEn(true)
                .privModeEn(true).rdEn(true).ecnEn(true).macAddr(qp.verbs.macAddress()).rtomin(5).build();
        write(false, 0);
    }

    /**
     * cm.c irdma_cm_init_tsa_conn: the negotiated IRD / ORD, reads on, the PD, and the TCP half from
     * irdma_init_tcp_ctx ({@code tcp}); written with irdma_sc_qp_setctx.
     */
    void writeConnection(TcpOffloadInfo tcp, int ord, int ird, int arp) {
        IwarpOffloadInfo w = iwarpInfo;
        iwarpInfo = w.toBuilder().ddpVer(1).rdmapVer(1).pdId(qp.pd.id()).ordSize(ord).irdSize(ird).rdEn(true)
                .build();
        tcpInfo = tcp;
        arpIndex = arp;
        write(true, 0);
    }

    /** hw.c irdma_process_aeq for an RQ error: the failing RQ WQE named in the context (err_rq_idx). */
    void writeRqError(int wqeIndex) {
        if (iwarpInfo == null) {
            return;
        }
        IwarpOffloadInfo w = iwarpInfo;
        iwarpInfo = w.toBuilder().errRqIdx(wqeIndex).errRqIdxValid(true).build();
        write(false, 0);
    }

    /** The ARP cache index the connection's context names. */
    int arpIndex() {
        return arpIndex;
    }

    private void write(boolean withTcp, int remEndpoint) {
        QpQueues queues = qp.queues;
        var r = new QpResources(qp.rqShift, false, false, false, false, QpResources.NO_PUSH_PAGE, qp.sqPa, qp.rqPa,
                encodedSize(queues.rqSize << qp.rqShift), encodedSize(queues.sqSize), qp.q2Address, 0, 0,
                qp.driver.workScheduler().qsHandle(), IrdmaDriver.IEQ_QP);
        var info = new QpHostContextInfo(queues.handle, qp.sendCq.id, qp.recvCq.id, remEndpoint, 0, false, withTcp,
                true);
        context.wrap(qp.store, qp.driver.offsetOf(qp.hostContextAddress), QpContext.SIZE)
                .write(r, info, iwarpInfo, withTcp ? tcpInfo : null);
    }

    /** ctrl.c irdma_get_encoded_wqe_size for an SQ/RQ: log2(quanta / 4). */
    static int encodedSize(int quanta) {
        int size = quanta >>> 2;
        int e = 0;
        while ((size >>>= 1) != 0) {
            e++;
        }
        return e;
    }
}
