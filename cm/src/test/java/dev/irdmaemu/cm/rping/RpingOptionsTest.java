package dev.irdmaemu.cm.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.IpEndpoint;
import org.junit.jupiter.api.Test;

/** rping's command line: its defaults, its flags in getopt's forms, and its refusals. */
class RpingOptionsTest {
    private static final IpEndpoint SRC = IpEndpoint.of("192.0.2.1", 40000);

    @Test
    void theServerDefaultsAreRpings() {
        RpingOptions o = RpingOptions.parse(SRC, "-s");
        assertTrue(o.server());
        assertEquals(IpEndpoint.of("0.0.0.0", 7174), o.address());
        assertEquals(64, o.size());
        assertEquals(0, o.count());
        assertFalse(o.validate());
        assertFalse(o.persistent());
    }

    @Test
    void aClientTakesItsFlagsJoinedOrApart() {
        RpingOptions o = RpingOptions.parse(SRC, "-c", "-a", "192.0.2.2", "-C10", "-VS", "100", "-p", "7000");
        assertFalse(o.server());
        assertEquals(IpEndpoint.of("192.0.2.2", 7000), o.address());
        assertEquals(SRC, o.source());
        assertEquals(10, o.count());
        assertEquals(100, o.size());
        assertTrue(o.validate());
        RpingOptions v6 = RpingOptions.parse(IpEndpoint.of("2001:db8::1", 40001), "-c", "-a", "2001:db8::2");
        assertFalse(v6.address().ipv4());
        assertEquals(40001, v6.source().port());
        RpingOptions src = RpingOptions.parse(SRC, "-c", "-a", "192.0.2.2", "-I", "192.0.2.9");
        assertEquals(IpEndpoint.of("192.0.2.9", 40000), src.source());
    }

    @Test
    void rpingsRefusalsAreKept() {
        assertEquals("Invalid size 25 (valid range is 26 to 65535)", assertThrows(IllegalArgumentException.class,
                () -> RpingOptions.parse(SRC, "-s", "-S", "25")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> RpingOptions.parse(SRC, "-s", "-S", "65536"));
        assertEquals(65535, RpingOptions.parse(SRC, "-s", "-S", "65535").size());
        assertEquals(26, RpingOptions.parse(SRC, "-s", "-S", "26").size());
        assertEquals("Invalid count -1", assertThrows(IllegalArgumentException.class,
                () -> RpingOptions.parse(SRC, "-s", "-C", "-1")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> RpingOptions.parse(SRC, "-a", "192.0.2.2"),
                "neither -s nor -c");
        assertThrows(IllegalArgumentException.class, () -> RpingOptions.parse(SRC, "-c"), "a client without -a");
        assertThrows(IllegalArgumentException.class, () -> RpingOptions.parse(SRC, "-s", "-x"));
        assertThrows(IllegalArgumentException.class, () -> RpingOptions.parse(SRC, "-s", "-S"));
        assertThrows(IllegalArgumentException.class, () -> RpingOptions.parse(SRC, "-s", "-S", "big"));
        assertThrows(IllegalArgumentException.class, () -> RpingOptions.parse(SRC, "-s", "-a", "host.example"));
        assertThrows(IllegalArgumentException.class, () -> RpingOptions.parse(SRC, "-c", "-a", "2001:db8::2"),
                "a v4 source for a v6 server");
        assertThrows(IllegalArgumentException.class, () -> RpingOptions.parse(SRC, "-s", "-p", "70000"));
    }
}
