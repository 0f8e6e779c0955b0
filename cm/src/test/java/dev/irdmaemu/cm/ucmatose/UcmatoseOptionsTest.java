package dev.irdmaemu.cm.ucmatose;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.IpEndpoint;
import org.junit.jupiter.api.Test;

/** ucmatose's options: cmatose.c's defaults, its queue depth rule, and the bounds this peer keeps. */
class UcmatoseOptionsTest {
    private static final IpEndpoint SERVER = IpEndpoint.of("192.0.2.2", UcmatoseOptions.DEFAULT_PORT);
    private static final IpEndpoint SOURCE = IpEndpoint.of("192.0.2.1", 40000);

    @Test
    void theDefaultsAreCmatoses() {
        UcmatoseOptions s = UcmatoseOptions.server(SERVER, 1);
        assertTrue(s.server());
        assertEquals(10, s.messages());
        assertEquals(100, s.size());
        assertEquals(10, s.queueDepth(), "CQs and queues of -C entries");
        assertFalse(s.sendFirst(), "cmatose's client Sends after the server's messages");
        assertEquals("ucmatose -b 192.0.2.2 -p 7471 -c 1 -C 10 -S 100", s.commandLine());
        UcmatoseOptions c = UcmatoseOptions.client(SERVER, SOURCE, 25).withMessages(0, 100);
        assertFalse(c.server());
        assertEquals(1, c.queueDepth(), "-C 0 still makes CQs and queues of one entry (init_node's cqe)");
        assertEquals("ucmatose -s 192.0.2.2 -p 7471 -c 25 -C 0 -S 100", c.commandLine());
        assertTrue(UcmatoseOptions.client(IpEndpoint.of("2001:db8::2", 7471), IpEndpoint.of("2001:db8::1", 40000), 1)
                .commandLine().matches("ucmatose -s 2001:db8:[0:]*:?2 -p 7471 -c 1 -C 10 -S 100"), "IPv6, unbracketed");
    }

    @Test
    void aSizeOfZeroMeansNoMessagesAsCreateMessageHasIt() {
        UcmatoseOptions o = UcmatoseOptions.server(SERVER, 2).withMessages(10, 0);
        assertEquals(0, o.messages());
        assertEquals(1, o.queueDepth());
    }

    @Test
    void outOfRangeValuesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> UcmatoseOptions.server(SERVER, 0));
        assertThrows(IllegalArgumentException.class,
                () -> UcmatoseOptions.server(SERVER, UcmatoseOptions.MAX_CONNECTIONS + 1));
        assertThrows(IllegalArgumentException.class, () -> UcmatoseOptions.server(SERVER, 1).withMessages(-1, 100));
        assertThrows(IllegalArgumentException.class, () -> UcmatoseOptions.server(SERVER, 1).withMessages(1, -1));
        assertThrows(IllegalArgumentException.class,
                () -> UcmatoseOptions.server(SERVER, 1).withMessages(1, UcmatoseOptions.MAX_SIZE + 1));
        assertThrows(IllegalArgumentException.class, () -> UcmatoseOptions.server(SERVER.withPort(0), 1));
        assertThrows(IllegalArgumentException.class, () -> UcmatoseOptions.server(SERVER, 1).sendingFirst(0));
        assertThrows(IllegalArgumentException.class,
                () -> UcmatoseOptions.client(SERVER, SOURCE, 1).sendingFirst(-1));
        assertThrows(NullPointerException.class, () -> UcmatoseOptions.client(SERVER, null, 1));
        assertThrows(IllegalArgumentException.class,
                () -> UcmatoseOptions.client(SERVER, IpEndpoint.of("2001:db8::1", 40000), 1), "families differ");
        assertThrows(IllegalArgumentException.class,
                () -> UcmatoseOptions.client(SERVER, SOURCE.withPort(65500), 100), "local ports past 65535");
    }
}
