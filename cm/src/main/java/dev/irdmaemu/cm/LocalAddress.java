package dev.irdmaemu.cm;

/**
 * An address configured on the device's netdev or one of its VLAN sub-interfaces (what irdma_add_mqh_4/_6 walk
 * for a wildcard listen, and irdma_get_vlan_ipv4 looks up for a specific one). {@code vlanId} 0xffff: untagged.
 */
public record LocalAddress(boolean ipv4, long addressHi, long addressLo, int vlanId) {
    public static LocalAddress of(IpEndpoint address, int vlanId) {
        return new LocalAddress(address.ipv4(), address.addressHi(), address.addressLo(), vlanId);
    }

    public static LocalAddress untagged(String literal) {
        return of(IpEndpoint.of(literal, 0), CmNode.NO_VLAN);
    }

    public static LocalAddress onVlan(String literal, int vlanId) {
        return of(IpEndpoint.of(literal, 0), vlanId);
    }

    public boolean matches(boolean v4, long hi, long lo) {
        return ipv4 == v4 && addressHi == hi && addressLo == lo;
    }
}
