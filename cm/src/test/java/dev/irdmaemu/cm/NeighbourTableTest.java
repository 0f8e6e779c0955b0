package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.Test;

class NeighbourTableTest {
    private static final long OWN = 0x02_00_00_00_00_0aL;
    private static final long PEER = 0x02_00_00_00_00_0bL;

    private static long resolve(NeighbourTable t, String literal) {
        IpEndpoint e = IpEndpoint.of(literal, 0);
        return t.resolve(e.ipv4(), e.addressHi(), e.addressLo()).orElse(-1);
    }

    @Test
    void ownAddressesResolveToTheOwnMacOthersOnlyOnceLearned() {
        NeighbourTable t = new NeighbourTable(OWN, List.of(LocalAddress.untagged("192.0.2.1"),
                LocalAddress.onVlan("2001:db8::1", 7)));
        assertEquals(OWN, resolve(t, "192.0.2.1"));
        assertEquals(OWN, resolve(t, "2001:db8::1"));
        assertEquals(-1, resolve(t, "192.0.2.2"));
        t.add(IpEndpoint.of("192.0.2.2", 4791), PEER);
        assertEquals(PEER, resolve(t, "192.0.2.2"), "the port number plays no part");
        assertEquals(-1, resolve(t, "2001:db8::2"));
        t.addAll(List.of(LocalAddress.untagged("2001:db8::2")), PEER);
        assertEquals(PEER, resolve(t, "2001:db8::2"));
    }

    @Test
    void anEntryForAnOwnAddressWins() {
        NeighbourTable t = new NeighbourTable(OWN, List.of(LocalAddress.untagged("192.0.2.1")));
        t.add(IpEndpoint.of("192.0.2.1", 0), PEER);
        assertEquals(PEER, resolve(t, "192.0.2.1"));
    }

    @Test
    void fourTuplesAreEqualByValueAndACopyIsIndependentOfTheProbe() {
        FourTuple probe = new FourTuple().set(1, 2, 3, 4, 5, 6, 7);
        HashMap<FourTuple, String> m = new HashMap<>();
        m.put(probe.copy(), "x");
        assertEquals("x", m.get(probe));
        probe.set(1, 2, 3, 4, 5, 6, 8);
        assertEquals(null, m.get(probe), "the VLAN is part of the key");
        probe.set(1, 2, 3, 4, 5, 6, 7);
        assertEquals("x", m.get(probe));
        assertNotEquals(new FourTuple().set(1, 2, 3, 4, 5, 7, 7), probe, "the remote port is part of the key");
        assertNotEquals(new FourTuple().set(9, 2, 3, 4, 5, 6, 7), probe, "the local address's high word too");
    }
}
