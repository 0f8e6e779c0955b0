package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.decode.FrameSummarizer;
import dev.irdmaemu.bridge.model.ModelNode;
import dev.irdmaemu.bridge.model.ModelPair;
import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmNode;
import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IbQpState;
import dev.irdmaemu.driver.verbs.MemoryRegion;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.ProtectionDomain;
import dev.irdmaemu.driver.verbs.QpEventType;
import dev.irdmaemu.driver.verbs.QpInit;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.ReceiveWorkRequest;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WcStatus;
import dev.irdmaemu.driver.verbs.WorkCompletion;
import dev.irdmaemu.driver.verbs.WrOpcode;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two model nodes end to end, through the verbs and the CM on the consumers' own QPs: the connection is set up with
 * MPA v2 and the RTR by the QPs' connection WQEs (the LSMM, the zero-length Read), ESTABLISHED / CONNECT_REPLY
 * come after each QP's RTS AE, then Send / Recv, RDMA Write and RDMA Read move bytes that are checked in host
 * memory, Send with Invalidate invalidates the peer's STag, the closes end both sides, and a bad access makes the
 * peer terminate. These need the model's iWARP data path (device-model model.iwarp, model.mr).
 */
class EndToEndVerbsIntegrationTest {
    private static final long LIMIT = 60_000_000_000L;
    private static final int PORT = 4791;
    private static final int BUF = 64 * 1024;

    private final List<String> wire = new ArrayList<>();
    private final FrameSummarizer summarizer = new FrameSummarizer();
    private final RecordingTraceSink traceA = new RecordingTraceSink();
    private final RecordingTraceSink traceB = new RecordingTraceSink();
    private final ModelPair pair = new ModelPair(1, (t, s, o, l) -> {
        StringBuilder sb = new StringBuilder();
        summarizer.summarize(s, o, l, sb);
        wire.add(sb.toString());
    }, traceA, traceB, d -> { }, d -> { });
    private final List<CmEvent> client = new ArrayList<>();
    private final List<CmEvent> server = new ArrayList<>();
    private final List<QpEventType> clientQpEvents = new ArrayList<>();
    private final List<QpEventType> serverQpEvents = new ArrayList<>();
    private boolean clientRtsAeAtReply;
    private boolean serverRtsAeAtEstablished;
    private Side a;
    private Side b;
    private CmNode clientNode;

    /** One node's consumer: a PD, a CQ, an RC QP moved to INIT, and a 64 KiB buffer registered for everything. */
    private record Side(ModelNode node, ProtectionDomain pd, CompletionQueue cq, QueuePair qp, long buf,
                        MemoryRegion mr) {
        static Side on(ModelNode n, List<QpEventType> events) {
            ProtectionDomain pd = n.verbs.allocatePd();
            CompletionQueue cq = n.verbs.createCq(256);
            QueuePair qp = n.verbs.createQp(new QpInit(pd, cq, cq, 64, 64, 4, 4, 64, false));
            qp.onEvent((q, e) -> events.add(e));
            qp.modify(IbQpState.INIT);
            long buf = n.verbs.allocateBuffer(BUF);
            MemoryRegion mr = n.verbs.registerBuffer(pd, buf, BUF, Access.LOCAL_WRITE | Access.REMOTE_WRITE
                    | Access.REMOTE_READ);
            return new Side(n, pd, cq, qp, buf, mr);
        }

        void put(long offset, byte[] data) {
            mr.write(buf + offset, data, 0, data.length);
        }

        byte[] get(long offset, int len) {
            byte[] d = new byte[len];
            mr.read(buf + offset, d, 0, len);
            return d;
        }

        /** Every completion waiting, as "wrId status opcode len". */
        List<String> poll() {
            List<String> got = new ArrayList<>();
            WorkCompletion wc = new WorkCompletion();
            while (cq.poll(wc)) {
                got.add(wc.wrId() + " " + wc.status() + " " + wc.opcode() + " " + wc.byteLen());
            }
            return got;
        }
    }

    @AfterEach
    void close() {
        pair.close();
    }

    private void connect() {
        a = Side.on(pair.a, clientQpEvents);
        b = Side.on(pair.b, serverQpEvents);
        pair.b.cm.listen(CmPair.B_V4.withPort(PORT), 8, e -> {
            server.add(e);
            if (e.type() == CmEventType.CONNECT_REQUEST) {
                assertTrue(pair.b.cm.accept(e.node(), "from B".getBytes(StandardCharsets.UTF_8), ev -> {
                    server.add(ev);
                    if (ev.type() == CmEventType.ESTABLISHED) {
                        serverRtsAeAtEstablished = b.qp.rtsAeReceived();
                    }
                }, b.qp.id()));
            }
        });
        clientNode = pair.a.cm.connect(CmPair.A_V4.withPort(50000), CmPair.B_V4.withPort(PORT),
                ConnectParams.of("from A".getBytes(StandardCharsets.UTF_8), 16, 16).withQp(a.qp.id()), e -> {
                    client.add(e);
                    if (e.type() == CmEventType.CONNECT_REPLY) {
                        clientRtsAeAtReply = a.qp.rtsAeReceived();
                    }
                });
        assertTrue(pair.runUntilIdle(LIMIT));
        assertEquals(List.of(CmEventType.CONNECT_REPLY), types(client));
        assertEquals(CmStatus.OK, client.get(0).status());
    }

    private static List<CmEventType> types(List<CmEvent> events) {
        return events.stream().map(CmEvent::type).toList();
    }

    @Test
    void theConnectionIsSetUpByTheConsumersQpsAndEstablishedOnlyAfterTheRtsAe() {
        connect();
        assertEquals(List.of(CmEventType.CONNECT_REQUEST, CmEventType.ESTABLISHED), types(server));
        assertTrue(clientRtsAeAtReply, "CONNECT_REPLY after A's IRDMA_AE_LLP_CONNECTION_ESTABLISHED");
        assertTrue(serverRtsAeAtEstablished, "ESTABLISHED after B's IRDMA_AE_LLP_CONNECTION_ESTABLISHED");
        assertEquals(a.qp.id(), clientNode.qpn(), "the consumer's QP carries the connection");
        assertEquals(QpState.RTS, pair.a.device.qps().get(a.qp.id()).state());
        assertEquals(QpState.RTS, pair.b.device.qps().get(b.qp.id()).state());
        // the RTS AEs came from the device, before the upcalls
        long aeA = aeTime(traceA, a.qp.id());
        long aeB = aeTime(traceB, b.qp.id());
        assertTrue(aeA <= client.get(0).timeNanos());
        assertTrue(aeB <= server.get(1).timeNanos());
        // on the wire: the MPA request (A's CM), the reply (B's QP, the LSMM), the RTR (A's QP: zero-length Read)
        int req = indexOf("MPA Req rev 2");
        int rep = indexOf("MPA Rep rev 2");
        int rtr = indexOf("Read Request");
        assertTrue(req >= 0 && rep > req && rtr > rep, wire.toString());
        assertTrue(wire.get(rtr).contains("CRC ok"), wire.get(rtr));
        assertEquals("from B", new String(client.get(0).privateData(), StandardCharsets.UTF_8));
    }

    private long aeTime(RecordingTraceSink sink, int qpId) {
        for (RecordingTraceSink.Recorded r : sink.of(TraceKind.AEQE)) {
            if (Integer.decode(r.get("ae")) == AeCode.LLP_CONNECTION_ESTABLISHED.code()
                    && Integer.parseInt(r.get("id")) == qpId) {
                return r.timeNanos();
            }
        }
        throw new AssertionError("no RTS AE for QP " + qpId + " in " + sink.of(TraceKind.AEQE));
    }

    private int indexOf(String what) {
        for (int i = 0; i < wire.size(); i++) {
            if (wire.get(i).contains(what)) {
                return i;
            }
        }
        return -1;
    }

    private static byte[] pattern(int len, int seed) {
        byte[] d = new byte[len];
        for (int i = 0; i < len; i++) {
            d[i] = (byte) (i * 31 + seed);
        }
        return d;
    }

    @Test
    void aSendLandsInThePeersPostedReceive() {
        connect();
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        assertEquals(PostStatus.OK, b.qp.postRecv(rr.clear().wrId(100).sge(b.buf + 4096, 8192, b.mr.lkey())));
        byte[] data = pattern(5000, 1);
        a.put(0, data);
        SendWorkRequest wr = new SendWorkRequest();
        assertEquals(PostStatus.OK, a.qp.postSend(wr.clear().wrId(1).opcode(WrOpcode.SEND)
                .flags(SendWorkRequest.SIGNALED).sge(a.buf, data.length, a.mr.lkey())));
        assertTrue(pair.runUntilIdle(LIMIT));
        assertEquals(List.of("1 SUCCESS SEND 5000"), a.poll());
        assertEquals(List.of("100 SUCCESS RECV 5000"), b.poll());
        assertArrayEquals(data, b.get(4096, data.length));
    }

    @Test
    void anRdmaWritePlacesIntoThePeersRegionWithoutAReceive() {
        connect();
        byte[] data = pattern(3000, 2);
        a.put(100, data);
        SendWorkRequest wr = new SendWorkRequest();
        assertEquals(PostStatus.OK, a.qp.postSend(wr.clear().wrId(2).opcode(WrOpcode.RDMA_WRITE)
                .flags(SendWorkRequest.SIGNALED).sge(a.buf + 100, data.length, a.mr.lkey())
                .remote(b.mr.address() + 20_000, b.mr.rkey())));
        assertTrue(pair.runUntilIdle(LIMIT));
        assertEquals(List.of("2 SUCCESS RDMA_WRITE 3000"), a.poll());
        assertArrayEquals(data, b.get(20_000, data.length));
        assertEquals(List.of(), b.poll(), "a Write completes nothing on the target");
    }

    @Test
    void anRdmaReadFetchesThePeersBytes() {
        connect();
        byte[] data = pattern(7000, 3);
        b.put(30_000, data);
        SendWorkRequest wr = new SendWorkRequest();
        assertEquals(PostStatus.OK, a.qp.postSend(wr.clear().wrId(3).opcode(WrOpcode.RDMA_READ)
                .flags(SendWorkRequest.SIGNALED).sge(a.buf + 8192, data.length, a.mr.lkey())
                .remote(b.mr.address() + 30_000, b.mr.rkey())));
        assertTrue(pair.runUntilIdle(LIMIT));
        assertEquals(List.of("3 SUCCESS RDMA_READ 7000"), a.poll());
        assertArrayEquals(data, a.get(8192, data.length));
    }

    @Test
    void aSendWithInvalidateInvalidatesThePeersStagAndSaysSo() {
        connect();
        long extra = b.node().verbs.allocateBuffer(4096);
        MemoryRegion target = b.node().verbs.registerBuffer(b.pd, extra, 4096, Access.LOCAL_WRITE
                | Access.REMOTE_WRITE);
        ReceiveWorkRequest rr = new ReceiveWorkRequest();
        b.qp.postRecv(rr.clear().wrId(200).sge(b.buf, 64, b.mr.lkey()));
        a.put(0, pattern(16, 4));
        SendWorkRequest wr = new SendWorkRequest();
        a.qp.postSend(wr.clear().wrId(4).opcode(WrOpcode.SEND_WITH_INV).flags(SendWorkRequest.SIGNALED)
                .invalidate(target.rkey()).sge(a.buf, 16, a.mr.lkey()));
        assertTrue(pair.runUntilIdle(LIMIT));
        assertEquals(List.of("4 SUCCESS SEND 16"), a.poll());
        WorkCompletion wc = new WorkCompletion();
        assertTrue(b.cq.poll(wc));
        assertEquals(200, wc.wrId());
        assertTrue(wc.withInvalidate());
        assertEquals(target.rkey(), wc.invalidatedRkey());
    }

    @Test
    void aRegionDescribedByPblesTakesAWrite() {
        connect();
        // 5 pages, none adjacent: a level-1 PBL in the HMC PBLE object
        long[] pages = new long[5];
        long[] gaps = new long[5];
        for (int i = 0; i < 5; i++) {
            pages[i] = pair.b.ram.allocate(4096);
            gaps[i] = pair.b.ram.allocate(4096);
        }
        long iova = 0x7f00_0000_0000L;
        MemoryRegion scattered = pair.b.verbs.registerPages(b.pd, iova, pages, 5 * 4096, Access.LOCAL_WRITE
                | Access.REMOTE_WRITE);
        assertEquals(1, scattered.pbleLevel());
        byte[] data = pattern(5 * 4096 - 300, 5);
        a.put(0, data);
        SendWorkRequest wr = new SendWorkRequest();
        a.qp.postSend(wr.clear().wrId(5).opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .sge(a.buf, data.length, a.mr.lkey()).remote(iova + 300, scattered.rkey()));
        assertTrue(pair.runUntilIdle(LIMIT));
        assertEquals(List.of("5 SUCCESS RDMA_WRITE " + data.length), a.poll());
        byte[] got = new byte[data.length];
        scattered.read(iova + 300, got, 0, got.length);
        assertArrayEquals(data, got, "placed page by page through the PBLEs");
    }

    @Test
    void anArmedCqsHandlerRunsWhenTheCompletionArrives() {
        connect();
        int[] calls = new int[1];
        b.cq.onCompletion(cq -> calls[0]++);
        b.cq.requestNotify(false);
        b.qp.postRecv(new ReceiveWorkRequest().wrId(300).sge(b.buf, 64, b.mr.lkey()));
        a.put(0, pattern(10, 6));
        a.qp.postSend(new SendWorkRequest().wrId(6).opcode(WrOpcode.SEND).sge(a.buf, 10, a.mr.lkey()));
        assertTrue(pair.runUntilIdle(LIMIT));
        assertEquals(1, calls[0], "one CEQE for the armed CQ, one call");
        assertEquals(List.of("300 SUCCESS RECV 10"), b.poll());
    }

    @Test
    void aGracefulCloseEndsBothSidesAndFlushesTheReceivesLeft() {
        connect();
        b.qp.postRecv(new ReceiveWorkRequest().wrId(400).sge(b.buf, 64, b.mr.lkey()));
        b.qp.postRecv(new ReceiveWorkRequest().wrId(401).sge(b.buf, 64, b.mr.lkey()));
        pair.a.cm.disconnect(clientNode, false);
        // one simulated second for the FINs, the close AEs and the flush; the receives left complete flushed
        pair.scheduler.runFor(1_000_000_000L);
        assertEquals(List.of("400 WR_FLUSH_ERR RECV 0", "401 WR_FLUSH_ERR RECV 0"), b.poll());
        // the flush worker (verbs.c irdma_flush_worker) re-queues itself while a CQE waits unpolled, and the
        // active closer's TCP sits in TIME_WAIT for 60 s: only after both is the model idle
        assertTrue(pair.runUntilIdle(2 * LIMIT), () -> "still pending at " + pair.scheduler.now() + ": "
                + pair.scheduler.describePending());
        assertEquals(List.of(CmEventType.CONNECT_REQUEST, CmEventType.ESTABLISHED, CmEventType.DISCONNECT,
                CmEventType.CLOSE), types(server));
        assertEquals(List.of(CmEventType.CONNECT_REPLY, CmEventType.CLOSE), types(client));
        assertEquals(CmReason.NONE, client.get(1).reason());
        assertTrue(indexOf("[FIN, ACK]") >= 0, "the QPs sent the FINs: " + wire);
        assertEquals(0, pair.a.cm.nodeCount());
        assertEquals(0, pair.b.cm.nodeCount());
        assertFalse(a.qp.connected());
        a.qp.destroy();
        b.qp.destroy();
        assertEquals(2, pair.a.device.qps().liveCount(), "the PUDA QPs");
        assertEquals(0, pair.a.device.quadHash().establishedCount());
    }

    @Test
    void anAbortiveCloseResetsThePeer() {
        connect();
        pair.a.cm.disconnect(clientNode, true);
        assertTrue(pair.runUntilIdle(LIMIT));
        assertEquals(List.of(CmEventType.CONNECT_REPLY, CmEventType.CLOSE), types(client));
        assertEquals(CmReason.LOCAL_ABORT, client.get(1).reason(), "IRDMA_AE_RESET_SENT");
        assertEquals(List.of(CmEventType.CONNECT_REQUEST, CmEventType.ESTABLISHED, CmEventType.DISCONNECT,
                CmEventType.CLOSE), types(server));
        assertEquals(CmStatus.CONNECTION_RESET, server.get(2).status());
        assertTrue(indexOf("[RST") >= 0, wire.toString());
        assertEquals(IbQpState.ERR, a.qp.state());
    }

    @Test
    void aWriteToAStagThePeerDoesNotHaveMakesThePeerTerminate() {
        connect();
        a.put(0, pattern(64, 7));
        SendWorkRequest wr = new SendWorkRequest();
        int bogus = b.mr.rkey() ^ 0x0000_7f00;
        a.qp.postSend(wr.clear().wrId(7).opcode(WrOpcode.RDMA_WRITE).flags(SendWorkRequest.SIGNALED)
                .sge(a.buf, 64, a.mr.lkey()).remote(b.mr.address(), bogus));
        pair.scheduler.runFor(1_000_000_000L);
        // B's QP saw the bad STag: a Terminate (RDMAP or DDP layer) went to A, and B's consumer heard of it
        int term = indexOf("Terminate (");
        assertTrue(term >= 0, "a Terminate on the wire: " + wire);
        // B's close ran when its TCP had reached TIME_WAIT (the FINs followed the Terminate): cm.c
        // irdma_cm_disconn_true then clears term_flags before the flush, so irdma raises no IB QP event for
        // iWARP here; B's consumer hears of the terminate through the CM (CLOSE with TERMINATED, below)
        assertEquals(List.of(), serverQpEvents, () -> b.qp + " " + traceB.of(TraceKind.AEQE));
        assertTrue(b.qp.flushIssued(), "B's WQEs flushed after the terminate");
        // A received the Terminate and its QP went to error
        // likewise A (irdma_terminate_received, then the close in CLOSED): no IB QP event, the CM's CLOSE instead
        assertEquals(List.of(), clientQpEvents);
        List<String> got = a.poll();
        // an RDMA Write completes at the requester once TCP has its bytes acknowledged: the peer's error comes
        // back as the Terminate, not as this completion's status
        assertEquals(List.of("7 SUCCESS RDMA_WRITE 64"), got);
        // with A's completion polled, the flush worker stops re-queueing; TIME_WAIT ends after 60 s
        assertTrue(pair.runUntilIdle(2 * LIMIT), () -> "still pending at " + pair.scheduler.now() + ": "
                + pair.scheduler.describePending());
        // both connections ended: DISCONNECT and CLOSE after the terminate
        assertTrue(types(server).contains(CmEventType.CLOSE), types(server).toString());
        assertTrue(types(client).contains(CmEventType.CLOSE), types(client).toString());
        CmEvent close = server.get(server.size() - 1);
        assertEquals(CmReason.TERMINATED, close.reason());
        assertNotNull(pair.b.device.qps().get(b.qp.id()));
        assertEquals(QpState.ERROR, pair.b.device.qps().get(b.qp.id()).state());
    }

    @Test
    void nothingFromTheDataPathReachesTheIlq() {
        connect();
        long toCmA = pair.a.port.framesToCm();
        long toCmB = pair.b.port.framesToCm();
        b.qp.postRecv(new ReceiveWorkRequest().wrId(1).sge(b.buf, 64, b.mr.lkey()));
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).sge(a.buf, 10, a.mr.lkey()));
        assertTrue(pair.runUntilIdle(LIMIT));
        assertEquals(toCmA, pair.a.port.framesToCm());
        assertEquals(toCmB, pair.b.port.framesToCm());
        assertEquals(0, traceA.of(TraceKind.CQP_ERROR).size(), "no op refused on A");
        assertEquals(0, traceB.of(TraceKind.CQP_ERROR).size(), "no op refused on B");
    }
}
