package dev.irdmaemu.cm;

/**
 * One entry of the hardware's quad hash, which steers received TCP segments to the CM's ILQ
 * (irdma hw.c irdma_manage_qhash): a listener's entry matches SYNs to a local address and port, a connection's
 * entry matches its four-tuple. {@code vlanId} 0xffff means untagged (no VLAN), as irdma's {@code vlan_id >= VLAN_N_VID}.
 */
public record Qhash(Kind kind, boolean ipv4, long localHi, long localLo, int localPort,
                    long remoteHi, long remoteLo, int remotePort, int vlanId, int userPriority) {
    /** irdma {@code IRDMA_QHASH_TYPE_TCP_SYN} / {@code IRDMA_QHASH_TYPE_TCP_ESTABLISHED}. */
    public enum Kind { LISTENER_SYN, CONNECTION }

    public boolean vlanValid() {
        return vlanId < 4096;
    }

    @Override
    public String toString() {
        String local = IpEndpoint.format(ipv4, localHi, localLo) + ":" + localPort;
        return kind + " " + (kind == Kind.CONNECTION
                ? local + "<-" + IpEndpoint.format(ipv4, remoteHi, remoteLo) + ":" + remotePort : local)
                + (vlanValid() ? " vlan " + vlanId : "");
    }
}
