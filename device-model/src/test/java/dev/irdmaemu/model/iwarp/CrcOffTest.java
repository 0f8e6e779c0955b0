package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IwarpConnection;
import dev.irdmaemu.driver.verbs.MpaOutcome;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.Rdma0;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.fw.iwarp.FpduCheck;
import dev.irdmaemu.fw.iwarp.IwarpFrame;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.model.iwarp.DriverPair.Ae;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import dev.irdmaemu.model.iwarp.DriverPair.Completion;
import dev.irdmaemu.model.tcp.TcpConnectionParams;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * QPs with MPA CRC off (the context's RCV_NO_MPA_CRC set: irdma never negotiates it, so the tests rewrite the
 * context the real driver wrote, through the fw.qp codec). RFC 5044 §4.1: the 4-byte CRC field is in every FPDU
 * whether or not CRC was negotiated; without CRC its value is unspecified and the receiver does not check it. siw
 * sends zeros there and skips the check, irdma's IEQ sizes every FPDU with it. So on the wire the model's CRC-off
 * FPDUs end in 4 zero bytes, and a CRC-off QP takes any value in the field.
 */
class CrcOffTest {
    private final List<byte[]> fromA = new ArrayList<>();
    private final List<byte[]> fromB = new ArrayList<>();
    private final TcpPacket view = new TcpPacket();
    private DriverPair pair;

    @AfterEach
    void close() {
        pair.close();
    }

    private void tap(BytesStore<?, ?> s, long o, int l) {
        if (!view.wrap(s, o, l).validate().accepted() || view.tcpPayloadLength() == 0) {
            return;
        }
        int src = view.tcp().sourcePort();
        int dst = view.tcp().destinationPort();
        // the connection under test only: A's 40000 <-> B's 20000
        List<byte[]> to = src == 40000 && dst == 20000 ? fromA : src == 20000 && dst == 40000 ? fromB : null;
        if (to == null) {
            return;
        }
        byte[] b = new byte[(int) view.tcpPayloadLength()];
        s.read(o + view.tcpPayloadOffset(), b, 0, b.length);
        to.add(b);
    }

    private List<Completion> completions(DriverPair.Node n, CompletionQueue cq, int count) {
        List<Completion> got = new ArrayList<>();
        pair.runUntil(() -> {
            got.addAll(n.pollAll(cq));
            return got.size() >= count;
        }, 2_000_000_000L);
        return got;
    }

    /**
     * Splits one TCP segment into FPDUs, each sized ULPDU_Length + pad + 2 + 4 (the CRC field counted: RFC 5044
     * §4.1), and checks each: the segment is a whole number of them, the field holds zeros, the FPDU and its DDP
     * header validate with CRC off, and the field is not a CRC (so it is not CRC on by mistake). Answers the RDMAP
     * opcodes seen.
     */
    private static List<Integer> checkSegment(byte[] p) {
        List<Integer> ops = new ArrayList<>();
        BytesStore<?, ?> s = BytesStore.wrap(p);
        IwarpFrame frame = new IwarpFrame();
        int at = 0;
        while (at < p.length) {
            assertTrue(at + 2 <= p.length, "a segment ends inside an FPDU's length field");
            int ulpdu = (p[at] & 0xff) << 8 | p[at + 1] & 0xff;
            int total = Fpdu.totalLengthFor(ulpdu);
            assertEquals(2 + ulpdu + Fpdu.padFor(ulpdu) + 4, total);
            assertTrue(at + total <= p.length, "FPDU of " + total + " bytes at " + at + " runs past a segment of "
                    + p.length + ": its CRC field is missing");
            assertArrayEquals(new byte[4], Arrays.copyOfRange(p, at + total - 4, at + total),
                    "the CRC field of a CRC-off FPDU holds zeros");
            assertEquals(FpduCheck.ACCEPTED, frame.parse(s, at, total, false));
            assertEquals(FpduCheck.CRC_MISMATCH, new Fpdu().wrap(s, at, total, true).validate(),
                    "zeros, not the CRC");
            ops.add(frame.ddp().opcode());
            at += total;
        }
        return ops;
    }

    @Test
    void twoCrcOffQpsExchangeSendsWritesAndReadsAndEveryFpduEndsInAZeroCrcField() {
        pair = new DriverPair(32L << 20, FaultProfile.NONE, FaultProfile.NONE, 5, (t, s, o, l) -> tap(s, o, l));
        DriverPair.Conn c = pair.connect(true, o -> o.context = DriverPair::crcOff, o -> o.context = DriverPair::crcOff);
        Buffer src = pair.a.buffer(64 * 1024, Access.LOCAL_WRITE);
        pair.a.fill(src.gpa(), 64 * 1024, 11);
        Buffer rbuf = pair.b.buffer(16 * 4096, Access.LOCAL_WRITE);
        Buffer remote = pair.b.buffer(64 * 1024, Access.LOCAL_WRITE | Access.REMOTE_WRITE
                | Access.REMOTE_READ);
        Buffer sink = pair.a.buffer(64 * 1024, Access.LOCAL_WRITE);

        // Sends of every pad (ULPDU 18 + n: n = 1, 2, 3, 4 give pads 3, 2, 1, 0) and one of several FPDUs
        int[] sizes = {1, 2, 3, 4, 64, 3000};
        for (int i = 0; i < sizes.length; i++) {
            pair.b.postRecv(c.passive, rbuf.gpa() + 4096L * i, 4096, rbuf.stag());
        }
        long at = 0;
        for (int n : sizes) {
            pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.SEND).flags(SendWorkRequest.SIGNALED)
                    .sge(src.gpa() + at, n, src.stag()));
            at += n;
        }
        List<Completion> recv = completions(pair.b, c.bCq, sizes.length);
        at = 0;
        for (int i = 0; i < sizes.length; i++) {
            assertFalse(recv.get(i).error(), recv.get(i).toString());
            assertEquals(sizes[i], recv.get(i).bytes());
            assertArrayEquals(pair.a.read(src.gpa() + at, sizes[i]), pair.b.read(rbuf.gpa() + 4096L * i, sizes[i]));
            at += sizes[i];
        }
        assertTrue(completions(pair.a, c.aCq, sizes.length).stream().noneMatch(Completion::error));

        // an RDMA Write of 10,001 bytes (several tagged FPDUs, the last one padded)
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .sge(src.gpa(), 10_001, src.stag()).remote(remote.gpa() + 7, remote.stag()));
        assertFalse(completions(pair.a, c.aCq, 1).get(0).error());
        assertArrayEquals(pair.a.read(src.gpa(), 10_001), pair.b.read(remote.gpa() + 7, 10_001));

        // an RDMA Read of 20,003 bytes back (Read Request from A, Read Responses from B)
        pair.b.fill(remote.gpa() + 32 * 1024, 20_003, 77);
        pair.a.post(c.active, pair.a.wr().opcode(WrOpcode.RDMA_READ).flags(SendWorkRequest.SIGNALED)
                .sge(sink.gpa() + 1, 20_003, sink.stag()).remote(remote.gpa() + 32 * 1024, remote.stag()));
        Completion read = completions(pair.a, c.aCq, 1).get(0);
        assertFalse(read.error());
        assertArrayEquals(pair.b.read(remote.gpa() + 32 * 1024, 20_003), pair.a.read(sink.gpa() + 1, 20_003));

        assertEquals(0, pair.a.engine(c.active).stats().crcErrors());
        assertEquals(0, pair.b.engine(c.passive).stats().crcErrors());
        List<Ae> aesA = pair.a.pollAes();
        List<Ae> aesB = pair.b.pollAes();
        assertTrue(aesA.isEmpty() && aesB.isEmpty(), () -> "no AE after the connection: " + aesA + " " + aesB);

        // the wire: every FPDU each way carries the 4-byte field, zeros
        Set<Integer> opsA = new HashSet<>();
        for (byte[] p : fromA) {
            opsA.addAll(checkSegment(p));
        }
        Set<Integer> opsB = new HashSet<>();
        assertTrue(new String(fromB.get(0), StandardCharsets.ISO_8859_1).startsWith("MPA ID Rep frame"),
                "B's first segment is the LSMM (the MPA Reply), not an FPDU");
        for (byte[] p : fromB.subList(1, fromB.size())) {
            opsB.addAll(checkSegment(p));
        }
        assertTrue(opsA.containsAll(Set.of(RdmapOpcode.CODE_SEND, RdmapOpcode.CODE_RDMA_WRITE,
                RdmapOpcode.CODE_RDMA_READ_REQUEST)), "A sent " + opsA);
        assertTrue(opsB.contains(RdmapOpcode.CODE_RDMA_READ_RESPONSE), "B sent " + opsB);
    }

    /**
     * A raw peer writes CRC-off FPDUs with junk in the CRC field at a CRC-off QP of B's: it does not check the
     * field, so a Send and an RDMA Write are placed and complete as with zeros there, and no AE is raised.
     */
    @Test
    void aCrcOffQpAcceptsAnyValueInTheCrcField() {
        pair = new DriverPair(32L << 20);
        pair.b.driver().cqp().manageArp(4, 0x02_00_00_00_00_0cL, true);
        int ipC = IpAddress.ipv4(192, 0, 2, 3);
        CompletionQueue cq = pair.b.verbs.createCq(256);
        QueuePair qp = pair.b.verbs.createQp(new DriverPair.Options().init(pair.b, cq));
        DriverPair.steerToIlq(pair.b, 21000, ipC, 41000);
        MpaOutcome mpa = new MpaOutcome(1, 8, 8, Rdma0.WRITE, true, null);
        IwarpConnection.writeRtr(qp, Rdma0.WRITE);
        IwarpConnection.writeContext(qp, DriverPair.tcp(pair.b, 21000, ipC, 0x02_00_00_00_00_0cL, 41000, 7000,
                9000), mpa, 4);
        DriverPair.rewriteIwarpHalf(pair.b, qp, DriverPair::crcOff);
        IwarpConnection.moveToRts(qp, (q, e) -> { });
        TcpConnectionParams p = TcpConnectionParams.ipv4(0x02_00_00_00_00_0cL, DriverPair.MAC_B, ipC, 41000,
                DriverPair.IP_B, 21000, 9000, 7000, 1460).toBuilder().window(256 * 1024, 7, 7).build();
        try (RawPeer peer = new RawPeer(pair.scheduler, pair.link, p, false)) {
            List<Ae> aes = new ArrayList<>();
            pair.runUntil(() -> {
                aes.addAll(pair.b.pollAes());
                return aes.stream().anyMatch(e -> e.qpId() == qp.id()
                        && e.code() == dev.irdmaemu.fw.queue.AeCode.LLP_CONNECTION_ESTABLISHED.code());
            }, 1_000_000_000L);
            // the model's RTR (a zero-length RDMA Write) came with the field, zeros
            assertEquals(1, peer.fpdus().size());
            byte[] rtr = peer.fpdus().get(0);
            assertEquals(Fpdu.totalLengthFor(DdpHeader.TAGGED_LENGTH), rtr.length);
            assertEquals(peer.received.size(), rtr.length, "nothing after the RTR's CRC field");
            assertArrayEquals(new byte[4], Arrays.copyOfRange(rtr, rtr.length - 4, rtr.length));

            Buffer rbuf = pair.b.buffer(4096, Access.LOCAL_WRITE);
            Buffer wbuf = pair.b.buffer(4096, Access.LOCAL_WRITE | Access.REMOTE_WRITE);
            pair.b.postRecv(qp, rbuf.gpa(), 4096, rbuf.stag());

            byte[] data = "a Send with junk where a CRC would be".getBytes(StandardCharsets.US_ASCII);
            int n = peer.untagged(RdmapOpcode.CODE_SEND, true, 0, 0, 1, 0, data);
            assertArrayEquals(new byte[4], new byte[] {peer.out.readByte(n - 4), peer.out.readByte(n - 3),
                    peer.out.readByte(n - 2), peer.out.readByte(n - 1)}, "the codec writes zeros with CRC off");
            peer.out.writeInt(n - 4, 0xdeadbeef);
            peer.send(n);
            byte[] wdata = new byte[1001];
            Arrays.fill(wdata, (byte) 0x3c);
            n = peer.tagged(RdmapOpcode.CODE_RDMA_WRITE, true, wbuf.stag(), wbuf.gpa() + 3, wdata);
            peer.out.writeInt(n - 4, 0x12345678);
            peer.send(n);

            Completion got = completions(pair.b, cq, 1).get(0);
            assertFalse(got.error(), got.toString());
            assertEquals(data.length, got.bytes());
            assertArrayEquals(data, pair.b.read(rbuf.gpa(), data.length));
            pair.run(20_000_000L);
            assertArrayEquals(wdata, pair.b.read(wbuf.gpa() + 3, wdata.length));
            List<Ae> after = new ArrayList<>(pair.b.pollAes());
            after.removeIf(e -> e.qpId() != qp.id());
            assertTrue(after.isEmpty(), () -> "no AE for the CRC-off QP: " + after);
            IwarpQp q = pair.b.engine(qp);
            assertNotNull(q);
            assertEquals(0, q.stats().crcErrors());
            assertEquals(2, q.stats().fpdusReceived());
            assertTrue(peer.fpdus().stream().noneMatch(RawPeer::isTerminate), "no Terminate");
        }
    }
}
