package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.driver.verbs.Rdma0;
import dev.irdmaemu.fw.qp.TcpOffloadInfo;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * What cm.c does with a consumer's QP when the CM hands it a connection: the first WQEs (irdma_accept: the MPA reply
 * as the LSMM from a physically registered buffer; irdma_cm_event_connected: the RTR), the QP context with the TCP
 * connection and the negotiated IRD / ORD (irdma_cm_init_tsa_conn, irdma_init_tcp_ctx), and the move to RTS
 * (irdma_modify_qp), after which the device sends the connection WQEs and raises IRDMA_AE_LLP_CONNECTION_ESTABLISHED.
 * The hardware port between the CM and the device drives these steps; they throw {@link VerbsException} when the
 * QP cannot take the connection or the device refuses an op.
 */
public final class IwarpConnection {
    /** cm.h IRDMA_MAX_IETF_SIZE: irdma_accept registers the private data plus this much for the MPA reply. */
    public static final int MAX_IETF_SIZE = 32;
    /** MPA v1 / v2 frame headers in front of the private data (RFC 5044 §7.1, RFC 6581 §4: + the RTR message). */
    static final int MPA_V1_HEADER = 20;
    static final int MPA_V2_HEADER = 24;

    private IwarpConnection() {
    }

    /** The QP can take a connection: created, not destroyed, not connected, not past IDLE. */
    public static boolean available(QueuePair qp) {
        return qp != null && !qp.destroyed && qp.connection == null && qp.iwarpState <= QueuePair.STATE_IDLE
                && qp.termFlags == 0;
    }

    /**
     * irdma_accept: the MPA reply ({@code mpa.lsmm()}) copied into a DMA buffer, that buffer registered as a physical
     * MR with local write (irdma_reg_phys_mr, its own address as tagged offset), the LSMM WQE and the RTS-AE WQEs
     * written at SQ indexes 0..2 (ctrl.c irdma_sc_send_lsmm).
     */
    public static void writeLsmm(QueuePair qp, MpaOutcome mpa) {
        check(qp);
        byte[] lsmm = mpa.lsmm();
        int header = mpa.revision() >= 2 ? MPA_V2_HEADER : MPA_V1_HEADER;
        long bufLen = Math.max(0, lsmm.length - header) + MAX_IETF_SIZE;
        IrdmaVerbs verbs = qp.verbs;
        long buffer = verbs.allocateBuffer(bufLen);
        BytesStore<?, ?> store = verbs.driver().store();
        long o = verbs.driver().offsetOf(buffer);
        for (int i = 0; i < lsmm.length; i++) {
            store.writeByte(o + i, lsmm[i]);
        }
        MemoryRegion mr;
        try {
            mr = verbs.registerPhysical(qp.pd, buffer, bufLen, Access.LOCAL_WRITE, buffer);
        } catch (VerbsException e) {
            verbs.freeBuffer(buffer, bufLen);
            throw e;
        }
        qp.lsmmBuffer = buffer;
        qp.lsmmBufferBytes = bufLen;
        qp.lsmmRegion = mr;
        qp.post.writeLsmm(buffer, lsmm.length, mr.lkey());
    }

    /** irdma_cm_event_connected: the RTR (a zero-length Read for read0, else a Write) and the RTS-AE WQEs. */
    public static void writeRtr(QueuePair qp, Rdma0 rdma0) {
        check(qp);
        qp.post.writeRtr(rdma0 == Rdma0.READ);
    }

    /**
     * irdma_cm_init_tsa_conn with irdma_init_tcp_ctx: the QP context gets the connection's TCP state (window scaling
     * on, TCP options ignored, out-of-order segments dropped as iw_ooo is off by default, the TTL, RTT variance,
     * slow-start threshold and retransmit threshold cm.c fixes), the ARP index of the next hop, the negotiated
     * ORD / IRD and the QP's PD.
     */
    public static void writeContext(QueuePair qp, TcpOffloadContext t, MpaOutcome mpa, int arpIndex) {
        check(qp);
        int[] d = new int[4];
        int[] l = new int[4];
        if (t.ipv4()) {
            d[3] = (int) t.remoteLo();
            l[3] = (int) t.localLo();
        } else {
            d[0] = (int) (t.remoteHi() >>> 32);
            d[1] = (int) t.remoteHi();
            d[2] = (int) (t.remoteLo() >>> 32);
            d[3] = (int) t.remoteLo();
            l[0] = (int) (t.localHi() >>> 32);
            l[1] = (int) t.localHi();
            l[2] = (int) (t.localLo() >>> 32);
            l[3] = (int) t.localLo();
        }
        TcpOffloadInfo tcp = new TcpOffloadInfo.Builder()
                .addresses(t.ipv4(), l, d)
                .ports(t.localPort(), t.remotePort()).ipHeader(t.ttl(), t.tos(), 0)
                .vlan(t.insertVlanTag(), t.insertVlanTag() ? t.vlanTag() : 0).dropOooSeg(true)
                .windowScale(true, t.sndWscale(), t.rcvWscale()).ignoreTcpOptions(true, true).sndMss(t.mss())
                .arpIdx(arpIndex).tcpState(QueuePair.TCP_ESTABLISHED).sendSequence(t.sndNxt(), t.sndUna(), t.sndMax())
                .sendWindow(t.sndWnd(), t.sndWl1(), t.sndWl2(), t.maxSndWnd()).receive(t.rcvNxt(), t.rcvWnd())
                .rtt(0, t.rttVar()).congestion(t.cwnd(), t.ssThresh()).rexmitThresh(t.rexmitThresh()).build();
        qp.ctx.writeConnection(tcp, Math.max(0, mpa.ord()), Math.max(0, mpa.ird()), arpIndex);
    }

    /**
     * irdma_modify_qp to IB_QPS_RTS: Modify QP with the TCP context valid; from now on the QP owns the connection and
     * {@code events} hears its RTS AE and how it ends.
     */
    public static void moveToRts(QueuePair qp, ConnectionEvents events) {
        check(qp);
        qp.modifier.moveToRts(events);
    }

    /** The connection is gone from the CM (cm.c irdma_destroy_connection): the QP stays the consumer's. */
    public static void release(QueuePair qp) {
        qp.modifier.unbind();
    }

    private static void check(QueuePair qp) {
        if (!available(qp)) {
            throw new VerbsException(VerbsException.Kind.INVALID_ARGUMENT, "QP " + (qp == null ? "null" : qp)
                    + " cannot take a connection");
        }
    }
}
