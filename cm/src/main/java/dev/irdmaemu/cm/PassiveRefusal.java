package dev.irdmaemu.cm;

import dev.irdmaemu.cm.mpa.MpaRejection;

/**
 * A connection the CM dropped on the passive side before it indicated it to a listener (cm.c
 * irdma_passive_open_err): irdma tells no consumer about these, no CM_EVENT reaches the listener, so this is the
 * only account of why a peer's connect was reset or went unanswered. Reported to the
 * {@link ConnectionManager#onPassiveRefusal} listener, on the CM's thread, once per refused connection.
 *
 * @param local  the listener's side of the connection (address and port)
 * @param remote the peer's address and port
 * @param reason which path of cm.c refused it: {@link CmReason#BAD_MPA} (irdma_handle_rcv_mpa after
 *               irdma_parse_mpa said no), {@link CmReason#BACKLOG_FULL}, {@link CmReason#PROTOCOL_ERROR} (bad TCP
 *               options, a SYN-ACK to a passive node), {@link CmReason#PEER_RESET}, {@link CmReason#LOCAL_ABORT}
 *               (the address went away, or no quad hash entry could be added)
 * @param mpa    for {@link CmReason#BAD_MPA}, the irdma_parse_mpa rule the request broke; null otherwise
 * @param reset  whether the CM answered the peer with a TCP reset (otherwise the node was dropped silently)
 */
public record PassiveRefusal(IpEndpoint local, IpEndpoint remote, CmReason reason, MpaRejection mpa, boolean reset) {
    @Override
    public String toString() {
        return "refused " + remote + " -> " + local + ": " + reason + (mpa == null ? "" : " (" + mpa.name() + ")")
                + (reset ? ", reset" : ", dropped");
    }
}
