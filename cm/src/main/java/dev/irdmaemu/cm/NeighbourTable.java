package dev.irdmaemu.cm;

import java.util.HashMap;
import java.util.List;
import java.util.OptionalLong;

/**
 * A port's static neighbour entries (what ARP or neighbour discovery would resolve) and its own addresses, which
 * resolve to its own MAC (a connection to oneself loops back through the port).
 */
public final class NeighbourTable {
    private final long ownMac;
    private final List<LocalAddress> ownAddresses;
    private final HashMap<Address, Long> entries = new HashMap<>();

    public NeighbourTable(long ownMac, List<LocalAddress> ownAddresses) {
        this.ownMac = ownMac;
        this.ownAddresses = List.copyOf(ownAddresses);
    }

    /** One entry: {@code address} is at {@code mac}. */
    public void add(IpEndpoint address, long mac) {
        entries.put(new Address(address.addressHi(), address.addressLo()), mac);
    }

    /** Every one of another port's addresses is at that port's {@code mac}. */
    public void addAll(List<LocalAddress> addresses, long mac) {
        for (LocalAddress a : addresses) {
            entries.put(new Address(a.addressHi(), a.addressLo()), mac);
        }
    }

    /** The MAC of {@code remote}, this port's own for its own addresses; empty when unknown. */
    public OptionalLong resolve(boolean ipv4, long remoteHi, long remoteLo) {
        Long m = entries.get(new Address(remoteHi, remoteLo));
        if (m != null) {
            return OptionalLong.of(m);
        }
        for (LocalAddress a : ownAddresses) {
            if (a.matches(ipv4, remoteHi, remoteLo)) {
                return OptionalLong.of(ownMac);
            }
        }
        return OptionalLong.empty();
    }

    private record Address(long hi, long lo) {
    }
}
