package dev.irdmaemu.cm.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The client against the server, back to back in memory (no model): a thousand pings verified on both sides,
 * nothing allocated per ping, a corrupted echo caught, a client bigger than the server refused.
 */
class RpingLoopbackTest {

    @Test
    void aThousandPingsAreVerifiedOnBothSides() {
        RpingLoopback l = new RpingLoopback(RpingLoopback.clientOptions(1000, 64), RpingLoopback.serverOptions(64));
        RpingResult[] r = new RpingResult[2];
        l.client.onDone(x -> r[0] = x);
        l.server.onDone(x -> r[1] = x);
        l.connect();
        l.run();
        assertTrue(r[0].ok(), r[0].toString());
        assertEquals(1000, r[0].pings());
        assertEquals(1000, r[0].verified());
        assertEquals(64_000, r[0].bytesRead());
        assertEquals(64_000, r[0].bytesWritten());
        assertTrue(r[1].ok(), r[1].toString());
        assertEquals(1000, r[1].pings());
        assertEquals(1000, r[1].verified(), "the server checked each Read against rping's data");
        assertEquals(64_000, r[1].bytesWritten());
        assertEquals(1, l.clientSide.disconnects, "the client disconnected once, after its count");
        assertEquals(0, l.serverSide.disconnects, "the server only heard it");
        assertTrue(l.clientSide.released && l.serverSide.released);
    }

    @Test
    void aLargerServerBufferTakesTheClientsSize() {
        RpingLoopback l = new RpingLoopback(RpingLoopback.clientOptions(5, 100), RpingLoopback.serverOptions(4000));
        RpingResult[] r = new RpingResult[1];
        l.client.onDone(x -> r[0] = x);
        l.connect();
        l.run();
        assertTrue(r[0].ok(), r[0].toString());
        assertEquals(5, r[0].verified());
        assertEquals(500, l.server.result().bytesWritten(), "strlen + 1 of the client's data, not rdma_buf's size");
    }

    @Test
    void aClientBiggerThanTheServersBufferIsRefusedByTheServer() {
        RpingLoopback l = new RpingLoopback(RpingLoopback.clientOptions(5, 200), RpingLoopback.serverOptions(100));
        l.connect();
        l.run();
        assertFalse(l.server.result().ok());
        assertEquals("the client advertised 200 bytes to read, rdma_buf holds 100", l.server.result().failure());
        assertFalse(l.client.result().ok());
        assertEquals("the server disconnected after 0 of 5 pings", l.client.result().failure());
    }

    @Test
    void anEchoCorruptedOnTheWayIsCaughtByTheClient() {
        RpingLoopback l = new RpingLoopback(RpingLoopback.clientOptions(10, 64), RpingLoopback.serverOptions(64));
        l.connect();
        while (l.client.pings() < 4) {
            l.run(1);
        }
        l.corruptNextWrite = true;
        l.run();
        RpingResult c = l.client.result();
        assertFalse(c.ok());
        assertTrue(c.failure().startsWith("data mismatch! (ping "), c.failure());
        assertEquals(c.pings(), c.verified());
        assertTrue(l.server.result().ok(), "the server saw an orderly disconnect: " + l.server.result());
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    @Test
    void pingsAllocateNothing() {
        RpingLoopback l = new RpingLoopback(RpingLoopback.clientOptions(0, 4096),
                RpingLoopback.serverOptions(4096));
        l.connect();
        // a ping is 10 completions (4 Sends, 4 receives, the Read, the Write); warm up, then count
        l.run(20_000);
        int before = l.client.pings();
        long a0 = allocated();
        l.run(40_000);
        long bytes = allocated() - a0;
        assertEquals(4000, l.client.pings() - before, "pings made");
        // slack for the measurement itself (the MX bean call), far below one byte per ping
        assertTrue(bytes < 4096, bytes + " bytes allocated over " + (l.client.pings() - before) + " pings");
    }
}
