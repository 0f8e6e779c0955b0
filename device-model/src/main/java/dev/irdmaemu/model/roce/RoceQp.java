package dev.irdmaemu.model.roce;

import dev.irdmaemu.fw.qp.RoceQpContext;

/**
 * What the device holds of one RoCE QP beyond {@link dev.irdmaemu.model.qp.QueuePair}: the RoCE fields of its
 * context as the last Create or Modify QP left them (ctrl.c irdma_sc_qp_setctx_roce_gen_2 writes all of them before
 * every modify, verbs.c irdma_modify_qp_roce, so each load replaces every field), and the UD send PSN the device
 * advances per packet. One slot per QP id, reused; read only while the QP lives.
 */
public final class RoceQp {
    /** Between Create QP and Destroy QP. */
    boolean live;
    boolean ipv4;
    boolean insertVlan;
    int vlanTag;
    int ttl;
    int tos;
    int srcPort;
    int flowLabel;
    int pathMtu;
    int arpIndex;
    int pKey;
    int pd;
    /** The QP's own Q_Key (unsigned 32 bits): what a WQE Q_Key with bit 31 set stands for (IBTA vol. 1 10.2.5). */
    int qKey;
    int destQp;
    long mac;
    final int[] localIp = new int[4];
    final int[] destIp = new int[4];
    /** The next PSN the device sends with (PSNNXT at each load; UD advances it per packet, 24 bits). */
    int sendPsn;
    int expectedPsn;
    int retryCount;
    int rnrRetry;
    /** ORDSIZE: RDMA READs this QP may have outstanding (RC). */
    int ord;
    /** IRDSIZE's code (QpContext.decodeIrd): READs the responder keeps (RC). */
    int irdCode;
    /** IRDMAQPC_PRIVEN: a kernel QP, whose STag-0 SGEs are physical addresses ({@link LocalBuffers}). */
    boolean privileged;
    /** Bytes per RQ WQE: 32 << IRDMAQPC_RQWQESIZE. */
    int rqWqeBytes;
    /** A UD send was refused with an AE: the SQ stays stopped until the QP is moved to a new state. */
    boolean sqStopped;

    void load(RoceQpContext c) {
        ipv4 = c.ipv4();
        insertVlan = c.insertVlanTag();
        vlanTag = c.vlanTag();
        ttl = c.ttl();
        tos = c.tos();
        srcPort = c.srcPort();
        flowLabel = c.flowLabel();
        pathMtu = c.pathMtuBytes();
        arpIndex = c.arpIdx();
        pKey = c.pKey();
        pd = c.pdId();
        qKey = c.qKey();
        destQp = c.destQp();
        mac = c.macAddress();
        for (int i = 0; i < 4; i++) {
            localIp[i] = c.localIp(i);
            destIp[i] = c.destIp(i);
        }
        sendPsn = c.psnNext();
        expectedPsn = c.expectedPsn();
        retryCount = c.rexmitThresh();
        rnrRetry = c.rnrNakThresh();
        ord = c.ordSize();
        irdCode = c.irdSizeCode();
        privileged = c.privEnabled();
        rqWqeBytes = 32 << c.rqWqeSize();
    }

    /** The PSN to send with, advancing the counter (24-bit wrap). */
    int takeSendPsn() {
        int psn = sendPsn;
        sendPsn = (sendPsn + 1) & 0xff_ffff;
        return psn;
    }

    /** The QP's Q_Key as last loaded (unsigned 32 bits in an int). */
    public int qKey() {
        return qKey;
    }

    /** The path MTU in bytes (SNDMSS), as last loaded. */
    public int pathMtu() {
        return pathMtu;
    }

    public int arpIndex() {
        return arpIndex;
    }

    public int destQp() {
        return destQp;
    }

    public int pKey() {
        return pKey;
    }

    /** The PSN the next packet goes out with. */
    public int sendPsn() {
        return sendPsn;
    }
}
