package dev.irdmaemu.cm;

import dev.irdmaemu.cm.mpa.MpaRejection;
import dev.irdmaemu.cm.mpa.MpaVerdict;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MPA exchange of the setup phase: the request the active side sends, the rules a received request or reply
 * must pass (with the RFC 6581 IRD/ORD negotiation for revision 2), what the node does with it, and the frames the
 * CM builds (request, reply, reject, the passive side's LSMM). After irdma cm.c irdma_handle_rcv_mpa,
 * irdma_parse_mpa, irdma_negotiate_mpa_v2_ird_ord (in {@link dev.irdmaemu.cm.mpa.IrdOrd}), irdma_send_mpa_request,
 * irdma_build_mpa_v1 / irdma_build_mpa_v2 and the frame irdma_accept gives the QP. Judging a frame allocates
 * nothing.
 */
final class MpaExchange {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionManager.class);

    private final ConnectionManager cm;
    private final MpaFrame rxMpa = new MpaFrame();
    private final MpaFrame.Builder txMpa = new MpaFrame.Builder();

    MpaExchange(ConnectionManager cm) {
        this.cm = cm;
    }

    /**
     * cm.c irdma_handle_rcv_mpa: an MPA request (passive) or reply (active) arrived as a segment's data, {@code
     * length} bytes at {@code offset}.
     */
    void received(CmNode n, BytesStore<?, ?> store, long offset, int length) {
        MpaVerdict verdict = parse(n, store, offset, length);
        if (!verdict.accepted()) {
            LOG.debug("MPA refused ({}) on {}", verdict.rule(), n);
            if (n.state == CmState.MPAREQ_SENT) {
                cm.openErrors.active(n, true, CmReason.BAD_MPA);
            } else {
                cm.openErrors.passive(n, true, CmReason.BAD_MPA, verdict.rule());
            }
            return;
        }
        switch (n.state) {
            case ESTABLISHED -> {
                n.state = CmState.MPAREQ_RCVD;
                cm.sender.sendAck(n);
                n.passiveState = 0;
                cm.events.post(n, CmEvents.Work.MPA_REQUEST);
            }
            case MPAREQ_SENT -> {
                cm.sender.clearSendEntry(n);
                if (verdict.peerRejected()) {
                    n.state = CmState.MPAREJ_RCVD;
                    cm.sender.sendAck(n);
                    // the peer owes us its FIN (a reject goes with one); a peer that never sends it gets what a
                    // FIN_WAIT2 gets (see ConnectionManager's class comment), then a reset
                    cm.closeEntries.arm(n, ConnectionManager.FIN_WAIT2_TIMEOUT_NANOS);
                    cm.events.post(n, CmEvents.Work.MPA_REJECT);
                } else {
                    n.state = CmState.OFFLOADED;
                    cm.sender.sendAck(n);
                    cm.events.post(n, CmEvents.Work.CONNECTED);
                }
            }
            default -> LOG.debug("MPA frame in wrong state {}", n);
        }
    }

    /**
     * cm.c irdma_parse_mpa, rule by rule in its order, then the RFC 6581 negotiation for revision 2. On success
     * the peer's private data is in the node and the verdict tells whether the R flag was set.
     */
    MpaVerdict parse(CmNode n, BytesStore<?, ?> store, long offset, int length) {
        MpaRejection rule = rule(n, store, offset, length);
        if (!rule.accepted()) {
            return MpaVerdict.refused(rule);
        }
        return MpaVerdict.accepted((rxMpa.flags() & MpaFrame.FLAG_REJECT) != 0);
    }

    /** The rules of {@link #parse}; on ACCEPTED {@link #rxMpa} still wraps the frame. */
    private MpaRejection rule(CmNode n, BytesStore<?, ?> store, long offset, int length) {
        if (length < MpaFrame.HEADER_SIZE) {
            return MpaRejection.BUFFER_TOO_SMALL;
        }
        MpaFrame f = rxMpa.wrap(store, offset, length);
        int pdLength = f.privateDataLengthField();
        if (pdLength > MpaFrame.MAX_PRIVATE_DATA) {
            return MpaRejection.PRIVATE_DATA_TOO_LONG;
        }
        int rev = f.revision();
        if (rev != MpaFrame.REVISION_1 && rev != MpaFrame.REVISION_2) {
            return MpaRejection.UNKNOWN_REVISION;
        }
        if (rev > n.mpaRevision) {
            return MpaRejection.REVISION_ABOVE_OURS;
        }
        n.mpaRevision = rev;
        boolean initiator = n.state == CmState.MPAREQ_SENT;
        if (initiator ? !f.isReply() : !f.isRequest()) {
            return MpaRejection.UNEXPECTED_KEY;
        }
        if (pdLength + MpaFrame.HEADER_SIZE > length) {
            return MpaRejection.LENGTH_MISMATCH;
        }
        if (length > MpaFrame.MAX_CM_BUF) {
            return MpaRejection.OVER_MAX_CM_BUF;
        }
        int headerLength = MpaFrame.HEADER_SIZE;
        if (rev == MpaFrame.REVISION_2) {
            headerLength += MpaFrame.RTR_SIZE;
            MpaRejection r = n.irdOrd.negotiate(initiator, f.ctrlIrd(), f.ctrlOrd());
            if (!r.accepted()) {
                return r;
            }
        }
        // cm.c copies PD_Length bytes from after the RTR message, so for revision 2 it hands the ULP four bytes
        // beyond the frame; we hand over exactly the private data the peer sent.
        int ulpLength = Math.max(0, Math.min(pdLength - (headerLength - MpaFrame.HEADER_SIZE), length - headerLength));
        store.read(offset + headerLength, n.privateData, 0, ulpLength);
        n.privateDataLength = ulpLength;
        if ((f.flags() & MpaFrame.FLAG_MARKERS) != 0) {
            n.peerWantsMarkers = true;
            return MpaRejection.MARKERS_REQUESTED;
        }
        return MpaRejection.ACCEPTED;
    }

    /** cm.c irdma_send_mpa_request: MPA request with our private data, retransmitted until answered. */
    void sendRequest(CmNode n) {
        int len = cm.sender.buildFrame(n, n.sendFrame, TcpHeader.ACK, true, true, false, n.privateDataStore(),
                n.privateDataLength);
        cm.sender.scheduleSend(n, len, true, false);
    }

    /**
     * cm.c irdma_reject / irdma_cm_reject: the MPA reply with the R flag and the consumer's private data, sent with
     * FIN and retransmitted until answered.
     */
    void sendReject(CmNode n, byte[] privateData) {
        int len = cm.sender.buildFrame(n, n.sendFrame, TcpHeader.ACK | TcpHeader.FIN, true, false, true,
                BytesStore.wrap(privateData), privateData.length);
        n.state = CmState.FIN_WAIT1;
        cm.sender.scheduleSend(n, len, true, false);
    }

    /** irdma_accept: the MPA reply with the consumer's private data, which the QP sends as its LSMM. */
    byte[] acceptReply(CmNode n, byte[] privateData) {
        BytesStore<?, ?> scratch = cm.sender.scratch();
        int lsmmLength = buildMpaFrame(n, scratch, 0, false, false, BytesStore.wrap(privateData),
                privateData.length);
        byte[] lsmm = new byte[lsmmLength];
        scratch.read(0, lsmm, 0, lsmmLength);
        return lsmm;
    }

    /**
     * irdma_build_mpa_v1 / irdma_build_mpa_v2: key, CRC flag always, our revision, and for revision 2 the RTR
     * message (PD_Length counting it). Returns the bytes written at {@code at}.
     */
    int buildMpaFrame(CmNode n, BytesStore<?, ?> out, long at, boolean request, boolean reject,
                      BytesStore<?, ?> pd, int pdLength) {
        MpaFrame.Builder b = txMpa.reset();
        if (request) {
            b.request();
        } else {
            b.reply();
        }
        b.revision(n.mpaRevision);
        b.flags(MpaFrame.FLAG_CRC | (reject ? MpaFrame.FLAG_REJECT : 0));
        if (n.mpaRevision == MpaFrame.REVISION_2) {
            int ctrlIrd = n.irdOrd.ctrlIrd();
            int ctrlOrd = n.irdOrd.ctrlOrd(request);
            b.rtr(ctrlIrd, ctrlOrd, (ctrlIrd & MpaFrame.IRD_PEER_TO_PEER) != 0, false,
                    (ctrlOrd & MpaFrame.ORD_RDMA0_WRITE) != 0, (ctrlOrd & MpaFrame.ORD_RDMA0_READ) != 0);
        }
        b.privateData(pd, pd == null ? 0 : pd.start(), pdLength);
        return b.build(out, at, out.capacity() - at);
    }
}
