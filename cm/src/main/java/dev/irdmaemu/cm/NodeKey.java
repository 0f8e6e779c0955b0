package dev.irdmaemu.cm;

/**
 * What identifies a connection node in the node table (cm.c irdma_find_node): local and remote address and port
 * and the VLAN. Nodes hold immutable instances; the receive path reuses one mutable probe, so a lookup allocates
 * nothing.
 */
final class NodeKey {
    long localHi;
    long localLo;
    long remoteHi;
    long remoteLo;
    int localPort;
    int remotePort;
    int vlanId;

    NodeKey set(long localHi, long localLo, int localPort, long remoteHi, long remoteLo, int remotePort, int vlanId) {
        this.localHi = localHi;
        this.localLo = localLo;
        this.localPort = localPort;
        this.remoteHi = remoteHi;
        this.remoteLo = remoteLo;
        this.remotePort = remotePort;
        this.vlanId = vlanId;
        return this;
    }

    NodeKey copy() {
        return new NodeKey().set(localHi, localLo, localPort, remoteHi, remoteLo, remotePort, vlanId);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof NodeKey k)) {
            return false;
        }
        return localPort == k.localPort && remotePort == k.remotePort && vlanId == k.vlanId
                && localLo == k.localLo && remoteLo == k.remoteLo && localHi == k.localHi && remoteHi == k.remoteHi;
    }

    @Override
    public int hashCode() {
        // cm.c hashes on (rem_port << 16 | loc_port); mixing the addresses in spreads many peers on one port pair
        long h = ((long) remotePort << 16 | localPort) * 0x9E3779B97F4A7C15L;
        h ^= (localLo * 31 + remoteLo) * 0xC2B2AE3D27D4EB4FL;
        h ^= localHi ^ (remoteHi * 17) ^ vlanId;
        return (int) (h ^ (h >>> 32));
    }
}
