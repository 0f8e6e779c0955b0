package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.decode.FrameSummarizer;
import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.fw.wire.FaultProfile;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 5's transfers between two model nodes through the verbs, the CM and the iWARP data path, with MPA CRC on:
 * 1 GiB by RDMA Write and 1 GiB by RDMA Read arrive byte-exact (CRC32C of the whole stream at the source and at the
 * sink, and of each window), and over a link that loses 5% of the frames each way, duplicates, reorders and delays
 * them, 64 MiB each way arrive byte-exact through the QP's TCP recovery.
 */
class BulkTransferIntegrationTest {
    private static final long GIB = 1L << 30;
    private static final int WINDOW = 16 << 20;
    private static final int MESSAGE = 256 << 10;
    private static final long LIMIT = 60_000_000_000L;
    private static final long STALL = 30_000_000_000L;

    private static void assertByteExact(BulkTransfer t, long total) {
        assertEquals(total, t.bytesMoved);
        assertEquals(0, t.roundMismatches, "windows whose sink checksum differed from the source's");
        assertEquals(t.sourceChecksum, t.sinkChecksum, "CRC32C of the whole stream, source and sink");
    }

    /** The first frames, summarized: the MPA exchange must have negotiated CRC, and the FPDUs carry good ones. */
    private static void assertCrcOn(List<String> wire) {
        String req = wire.stream().filter(f -> f.contains("MPA Req")).findFirst().orElse("no MPA request");
        String rep = wire.stream().filter(f -> f.contains("MPA Rep")).findFirst().orElse("no MPA reply");
        assertTrue(req.contains("[CRC") && rep.contains("[CRC"), req + "\n" + rep);
        long fpdus = wire.stream().filter(f -> f.contains("FPDU len")).count();
        long good = wire.stream().filter(f -> f.contains("FPDU len") && f.contains("CRC ok")).count();
        assertTrue(fpdus > 10, wire.toString());
        assertEquals(fpdus, good, "every FPDU seen carries a good CRC");
    }

    private static TwoNodes summarizing(List<String> wire) {
        FrameSummarizer summarizer = new FrameSummarizer();
        long[] frames = {0};
        return TwoNodes.linked((t, s, o, l) -> {
            if (frames[0]++ < 200) {
                StringBuilder sb = new StringBuilder();
                summarizer.summarize(s, o, l, sb);
                wire.add(sb.toString());
            }
        }, tr -> tr, tr -> tr);
    }

    @Test
    void aGibibyteOfRdmaWritesArrivesByteExactWithCrcOn() {
        List<String> wire = new ArrayList<>();
        try (TwoNodes nodes = summarizing(wire)) {
            BulkTransfer t = new BulkTransfer(nodes, WINDOW);
            assertTrue(t.connect(LIMIT), t.aEvents.toString());
            assertTrue(t.transfer(true, GIB, MESSAGE, STALL), t.failure);
            assertByteExact(t, GIB);
            assertCrcOn(wire);
        }
    }

    @Test
    void aGibibyteOfRdmaReadsArrivesByteExactWithCrcOn() {
        List<String> wire = new ArrayList<>();
        try (TwoNodes nodes = summarizing(wire)) {
            BulkTransfer t = new BulkTransfer(nodes, WINDOW);
            assertTrue(t.connect(LIMIT), t.aEvents.toString());
            assertTrue(t.transfer(false, GIB, MESSAGE, STALL), t.failure);
            assertByteExact(t, GIB);
            assertCrcOn(wire);
            assertTrue(wire.stream().anyMatch(f -> f.contains("Read Response")), "Read Responses on the wire");
        }
    }

    /** 5% loss each way, 2% duplicated, 2% held back 60 µs (reordered), 20 µs delay with 5 µs jitter. */
    static final FaultProfile FAULTY = new FaultProfile(0.05, 0.02, 0.02, 0, 20_000, 5_000, 60_000);

    @Test
    void writesOverALossyDuplicatingReorderingLinkArriveByteExact() {
        try (TwoNodes nodes = TwoNodes.linked(5, FAULTY, FAULTY)) {
            BulkTransfer t = new BulkTransfer(nodes, WINDOW);
            assertTrue(t.connect(LIMIT), t.aEvents.toString());
            assertTrue(t.transfer(true, 64L << 20, MESSAGE, STALL), t.failure);
            assertByteExact(t, 64L << 20);
            assertTrue(nodes.link.framesLost() > 100 && nodes.link.framesDuplicated() > 10
                    && nodes.link.framesReordered() > 10, "the link did its damage: lost " + nodes.link.framesLost()
                    + ", duplicated " + nodes.link.framesDuplicated() + ", reordered " + nodes.link.framesReordered());
            nodes.scheduler.runFor(10_000_000L); // 10 ms simulated: the last interrupts handled
            assertIeqAccountedFor(nodes.b);
        }
    }

    /**
     * The receiving node's out-of-order segments were reassembled by the model's TCP and counted as IEQ exceptions,
     * and none was copied to the IEQ (the IEQ contract of model.puda: one truth), so the driver's IEQ received and
     * refused nothing.
     */
    private static void assertIeqAccountedFor(ModelNode node) {
        long outOfOrder = node.device.iwarp().ieqOutOfOrder();
        assertTrue(outOfOrder > 10, "out-of-order segments " + outOfOrder);
        assertEquals(0, node.driver.puda().ieqReceived(), "no copies on the IEQ");
        assertEquals(0, node.driver.puda().ieqRefused());
    }

    @Test
    void readsOverALossyDuplicatingReorderingLinkArriveByteExact() {
        try (TwoNodes nodes = TwoNodes.linked(6, FAULTY, FAULTY)) {
            BulkTransfer t = new BulkTransfer(nodes, WINDOW);
            assertTrue(t.connect(LIMIT), t.aEvents.toString());
            assertTrue(t.transfer(false, 64L << 20, MESSAGE, STALL), t.failure);
            assertByteExact(t, 64L << 20);
            assertTrue(nodes.link.framesLost() > 100, "lost " + nodes.link.framesLost());
        }
    }

    @Test
    void writesOverALinkThatFlipsBitsArriveByteExactTheTcpChecksumRefusingTheDamagedFrames() {
        FaultProfile flipping = FaultProfile.delay(10_000).withCorruption(0.02);
        try (TwoNodes nodes = TwoNodes.linked(7, flipping, flipping)) {
            BulkTransfer t = new BulkTransfer(nodes, WINDOW);
            assertTrue(t.connect(LIMIT), t.aEvents.toString());
            assertTrue(t.transfer(true, 32L << 20, MESSAGE, STALL), t.failure);
            assertByteExact(t, 32L << 20);
            assertTrue(nodes.link.framesCorrupted() > 50, "corrupted " + nodes.link.framesCorrupted());
            assertTrue(t.bQpEvents.isEmpty() && t.aQpEvents.isEmpty(), "no QP error: " + t.bQpEvents);
        }
    }
}
