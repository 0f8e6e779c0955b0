package dev.irdmaemu.cm;

/**
 * A TCP four-tuple and VLAN, value-compared: the key of the CM's node table (cm.c irdma_find_node: local and remote
 * address and port, and the VLAN) and of the ports' quad-hash steering tables. Tables hold their own instances (a
 * {@link #copy}); a receive path reuses one mutable probe, so a lookup allocates nothing. Addresses are in the
 * two-long form of {@link IpEndpoint} (IPv4 in the low word); a listen entry has zero remote address and port.
 */
public final class FourTuple {
    public long localHi;
    public long localLo;
    public long remoteHi;
    public long remoteLo;
    public int localPort;
    public int remotePort;
    public int vlanId;

    public FourTuple set(long localHi, long localLo, int localPort, long remoteHi, long remoteLo, int remotePort,
                         int vlanId) {
        this.localHi = localHi;
        this.localLo = localLo;
        this.localPort = localPort;
        this.remoteHi = remoteHi;
        this.remoteLo = remoteLo;
        this.remotePort = remotePort;
        this.vlanId = vlanId;
        return this;
    }

    public FourTuple copy() {
        return new FourTuple().set(localHi, localLo, localPort, remoteHi, remoteLo, remotePort, vlanId);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FourTuple k && localPort == k.localPort && remotePort == k.remotePort
                && vlanId == k.vlanId && localLo == k.localLo && remoteLo == k.remoteLo && localHi == k.localHi
                && remoteHi == k.remoteHi;
    }

    @Override
    public int hashCode() {
        // cm.c hashes on (rem_port << 16 | loc_port); mixing the addresses in spreads many peers on one port pair
        long h = ((long) remotePort << 16 | localPort) * 0x9E3779B97F4A7C15L;
        h ^= (localLo * 31 + remoteLo) * 0xC2B2AE3D27D4EB4FL;
        h ^= localHi ^ (remoteHi * 17) ^ vlanId;
        return (int) (h ^ (h >>> 32));
    }

    @Override
    public String toString() {
        return "FourTuple[" + Long.toHexString(localHi) + ":" + Long.toHexString(localLo) + " port " + localPort
                + ", " + Long.toHexString(remoteHi) + ":" + Long.toHexString(remoteLo) + " port " + remotePort
                + ", vlan " + vlanId + "]";
    }
}
