package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.model.iwarp.DriverPair.Ae;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import dev.irdmaemu.model.iwarp.DriverPair.Completion;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * 64 MiB RDMA Writes and Reads between two model nodes, MPA CRC on, compared by checksum: over a perfect link,
 * over a faulty one (loss, duplication, reordering, delay: TCP recovers, the data path sees an in-order stream),
 * with bit flips the TCP checksum catches (dropped, resent), and with corruption that keeps the TCP checksum
 * right (a middlebox rewriting it): then the MPA CRC is what stands between the wire and host memory, and the
 * receiving QP raises IRDMA_AE_LLP_RECEIVED_MPA_CRC_ERROR with nothing corrupt placed.
 */
class BigTransferTest {
    private static final int MIB = 1 << 20;
    private static final int SIZE = 64 * MIB;
    private static final long RAM = 96L * MIB;
    private DriverPair pair;

    @AfterEach
    void close() {
        if (pair != null) {
            pair.close();
        }
    }

    private DriverPair pair(FaultProfile aOut, FaultProfile bOut) {
        pair = new DriverPair(RAM, aOut, bOut, 17);
        pair.a.traceOff();
        pair.b.traceOff();
        return pair;
    }

    private Completion waitFor(DriverPair.Node n, CompletionQueue cq) {
        Completion[] got = new Completion[1];
        pair.runUntil(() -> (got[0] = n.poll(cq)) != null, 120_000_000_000L);
        return got[0];
    }

    private void write64MiB() {
        DriverPair.Conn c = pair.connect(false);
        // the source as a kernel consumer registers it (irdma_reg_phys_mr: no PBL), the sink as a user region whose
        // pages are not contiguous (a PBL of 16384 PBLEs the device walks)
        Buffer src = pair.a.physicalBuffer(SIZE, Access.LOCAL_WRITE);
        Buffer dst = pair.b.pagedBuffer(SIZE, Access.REMOTE_WRITE);
        assertTrue(dst.mr().pbleLevel() > 0, "the sink is reached through a PBL");
        pair.a.fill(src, 4242);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .sge(src.gpa(), SIZE, src.stag()).remote(dst.gpa(), dst.stag()));
        Completion done = waitFor(pair.a, c.aCq);
        assertFalse(done.error());
        assertEquals(WcOpcode.RDMA_WRITE, done.opcode());
        assertEquals(pair.a.checksum(src), pair.b.checksum(dst));
        assertEquals(SIZE, pair.b.engine(c.passive).stats().bytesPlaced());
        assertEquals(0, pair.b.engine(c.passive).stats().crcErrors());
        assertTrue(pair.a.pollAes().isEmpty() && pair.b.pollAes().isEmpty(), "no AE on either side");
    }

    private void read64MiB() {
        DriverPair.Conn c = pair.connect(false);
        // the responder reads through a PBL, the Read Responses land through another
        Buffer src = pair.b.pagedBuffer(SIZE, Access.REMOTE_READ);
        Buffer dst = pair.a.pagedBuffer(SIZE, Access.LOCAL_WRITE);
        assertTrue(src.mr().pbleLevel() > 0 && dst.mr().pbleLevel() > 0, "both regions are reached through a PBL");
        pair.b.fill(src, 777);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                .sge(dst.gpa(), SIZE, dst.stag()).remote(src.gpa(), src.stag()));
        Completion done = waitFor(pair.a, c.aCq);
        assertFalse(done.error());
        assertEquals(WcOpcode.RDMA_READ, done.opcode());
        assertEquals(pair.b.checksum(src), pair.a.checksum(dst));
        assertTrue(pair.a.pollAes().isEmpty() && pair.b.pollAes().isEmpty(), "no AE on either side");
    }

    @Test
    void a64MiBWriteArrivesByteExact() {
        pair(FaultProfile.NONE, FaultProfile.NONE);
        write64MiB();
    }

    @Test
    void a64MiBReadArrivesByteExact() {
        pair(FaultProfile.NONE, FaultProfile.NONE);
        read64MiB();
    }

    private static FaultProfile faulty() {
        return FaultProfile.delay(10_000).withLoss(0.05).withDuplication(0.02).withReordering(0.05, 30_000)
                .withJitter(2_000);
    }

    @Test
    void a64MiBWriteOverALossyDuplicatingReorderingLinkArrivesByteExact() {
        pair(faulty(), faulty());
        write64MiB();
        assertTrue(pair.link.framesLost() > 1000, "the link did lose frames: " + pair.link.framesLost());
        assertTrue(pair.link.framesDuplicated() > 100);
        assertTrue(pair.link.framesReordered() > 100);
    }

    @Test
    void a64MiBReadOverALossyDuplicatingReorderingLinkArrivesByteExact() {
        pair(faulty(), faulty());
        read64MiB();
        assertTrue(pair.link.framesLost() > 1000);
    }

    @Test
    void bitFlipsTheTcpChecksumCatchesAreDroppedAndResentAndTheWriteArrivesByteExact() {
        pair(FaultProfile.NONE.withCorruption(0.01), FaultProfile.NONE.withCorruption(0.01));
        write64MiB();
        assertTrue(pair.link.framesCorrupted() > 100, "corrupted: " + pair.link.framesCorrupted());
    }

    @Test
    void corruptionWithAValidTcpChecksumIsStoppedByTheMpaCrcAndNothingCorruptIsPlaced() {
        pair(FaultProfile.NONE, FaultProfile.NONE);
        DriverPair.Conn c = pair.connect(false);
        Buffer src = pair.a.buffer(8 * MIB, Access.LOCAL_WRITE);
        Buffer dst = pair.b.buffer(8 * MIB, Access.REMOTE_WRITE);
        pair.a.fill(src.gpa(), 8 * MIB, 1);
        pair.b.fill(dst.gpa(), 8 * MIB, 2);
        byte[] original = pair.b.read(dst.gpa(), 8 * MIB);
        byte[] source = pair.a.read(src.gpa(), 8 * MIB);
        // A middlebox on A's side flips a payload bit in one data segment of fifty and rewrites the TCP checksum.
        SplittableRandom rnd = new SplittableRandom(3);
        BytesStore<?, Void> copy = BytesStore.nativeStoreWithFixedCapacity(2048);
        int[] corrupted = {0};
        pair.a.dev().port().setTransmitter((s, o, l) -> {
            copy.write(0, s, o, l);
            int payload = l - 54;
            if (payload > 64 && rnd.nextInt(50) == 0) {
                int at = 54 + rnd.nextInt(payload);
                copy.writeByte(at, (byte) (copy.readByte(at) ^ 1 << rnd.nextInt(8)));
                long pseudo = InternetChecksum.ipv4PseudoHeaderSum(NetworkOrder.i32(copy, 26),
                        NetworkOrder.i32(copy, 30), InternetChecksum.PROTOCOL_TCP, l - 34);
                TcpHeader.writeChecksum(copy, 34, l - 34, pseudo);
                corrupted[0]++;
            }
            pair.a.linkPort().transmit(copy, 0, l);
        });
        try {
            pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                    .sge(src.gpa(), 8 * MIB, src.stag()).remote(dst.gpa(), dst.stag()));
            List<Ae> aes = new ArrayList<>();
            pair.runUntil(() -> {
                aes.addAll(pair.b.pollAes());
                return !aes.isEmpty();
            }, 10_000_000_000L);
            assertEquals(AeCode.LLP_RECEIVED_MPA_CRC_ERROR.code(), aes.get(0).code());
            assertEquals(c.passive.id(), aes.get(0).qpId());
            assertEquals(1, aes.get(0).q2Data());
            assertTrue(corrupted[0] >= 1);
            pair.run(100_000_000L);
            assertEquals(1, pair.b.engine(c.passive).stats().crcErrors(), "the QP stopped at the first");
            byte[] placed = pair.b.read(dst.gpa(), 8 * MIB);
            long good = 0;
            for (int i = 0; i < placed.length; i++) {
                if (placed[i] != original[i]) {
                    assertEquals(source[i], placed[i], "byte " + i + " is neither the old one nor the sent one");
                    good++;
                }
            }
            assertTrue(good > 0, "some data was placed before the corrupt FPDU");
            assertTrue(pair.b.engine(c.passive).stats().bytesPlaced() < 8 * MIB);
        } finally {
            copy.releaseLast();
        }
    }
}
