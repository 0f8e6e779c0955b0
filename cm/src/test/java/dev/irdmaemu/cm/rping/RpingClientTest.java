package dev.irdmaemu.cm.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.QpEventType;
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WcStatus;
import java.util.List;
import java.util.OptionalInt;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The client's steps, one completion and one CM upcall at a time from a script: what it posts and advertises, what
 * it checks, and how each failure ends the run (rping.c rping_test_client, client_recv, rping_cq_event_handler).
 */
class RpingClientTest {
    private static final int SIZE = 64;
    private final RpingLoopback layout = new RpingLoopback(RpingLoopback.clientOptions(3, SIZE),
            RpingLoopback.serverOptions(SIZE));
    private final RpingBuffers buf = layout.clientBuffers;
    private final BytesStore<?, ?> store = layout.store;
    private final ScriptedVerbs qp = new ScriptedVerbs();
    private RpingResult done;

    private RpingClient client(RpingOptions options) {
        RpingClient c = new RpingClient(options, buf, qp).onDone(r -> {
            assertNull(done, "one result");
            done = r;
        });
        c.start();
        assertEquals(List.of("recv"), qp.take(), "the receive is posted before the connect");
        return c;
    }

    private RpingClient connected(RpingOptions options) {
        RpingClient c = client(options);
        c.cmEvent(CmEventType.CONNECT_REPLY, CmStatus.OK, CmReason.NONE);
        return c;
    }

    /** The server's side of one ping: it Read the start buffer, then Wrote it into the sink. */
    private void echo(RpingClient c) {
        c.completion(WcStatus.SUCCESS, WcOpcode.SEND, 16);
        c.completion(WcStatus.SUCCESS, WcOpcode.RECV, 16);
        store.move(buf.startOffset, buf.rdmaOffset, SIZE);
        c.completion(WcStatus.SUCCESS, WcOpcode.SEND, 16);
        c.completion(WcStatus.SUCCESS, WcOpcode.RECV, 16);
    }

    @Test
    void theFirstPingAdvertisesTheStartBufferFilledWithPingZero() {
        RpingClient c = connected(RpingLoopback.clientOptions(3, SIZE));
        assertEquals(List.of("send"), qp.take());
        assertEquals(RpingState.RDMA_READ_ADV, c.state());
        assertEquals(OptionalInt.empty(), RpingPattern.mismatch(store, buf.startOffset, SIZE, 0));
        assertEquals(buf.startAddress, RpingInfo.address(store, buf.sendOffset));
        assertEquals(buf.startKey, RpingInfo.rkey(store, buf.sendOffset));
        assertEquals(SIZE, RpingInfo.length(store, buf.sendOffset));
    }

    @Test
    void theFirstGoAheadAdvertisesTheSinkAndTheSecondEndsThePing() {
        RpingClient c = connected(RpingLoopback.clientOptions(3, SIZE));
        qp.take();
        c.completion(WcStatus.SUCCESS, WcOpcode.RECV, 16);
        assertEquals(List.of("recv", "send"), qp.take(), "the receive reposted, then the sink advertised");
        assertEquals(RpingState.RDMA_WRITE_ADV, c.state());
        assertEquals(buf.rdmaAddress, RpingInfo.address(store, buf.sendOffset));
        assertEquals(buf.rdmaKey, RpingInfo.rkey(store, buf.sendOffset));
        store.move(buf.startOffset, buf.rdmaOffset, SIZE);
        c.completion(WcStatus.SUCCESS, WcOpcode.RECV, 16);
        assertEquals(List.of("recv", "send"), qp.take(), "ping 1 started");
        assertEquals(1, c.pings());
        assertEquals(OptionalInt.empty(), RpingPattern.mismatch(store, buf.startOffset, SIZE, 1), "ping 1's data");
        assertEquals(buf.startAddress, RpingInfo.address(store, buf.sendOffset));
    }

    @Test
    void afterItsCountItDisconnectsAndTheCloseEndsTheRunWell() {
        RpingClient c = connected(RpingLoopback.clientOptions(3, SIZE));
        for (int i = 0; i < 3; i++) {
            echo(c);
        }
        List<String> calls = qp.take();
        assertEquals("disconnect", calls.get(calls.size() - 1), calls.toString());
        assertNull(done, "not done before the close");
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertEquals(List.of("release"), qp.take());
        assertNotNull(done);
        assertTrue(done.ok(), done.toString());
        assertEquals(3, done.pings());
        assertEquals(3, done.verified());
        assertEquals(3 * SIZE, done.bytesRead());
        assertEquals(3 * SIZE, done.bytesWritten());
        assertEquals(RpingState.CLOSED, c.state());
    }

    @Test
    void aReceiveOfAnyOtherLengthIsBogusData() {
        RpingClient c = connected(RpingLoopback.clientOptions(3, SIZE));
        qp.take();
        c.completion(WcStatus.SUCCESS, WcOpcode.RECV, 15);
        assertEquals(List.of("disconnect"), qp.take(), "rping disconnects after a failed step");
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertFalse(done.ok());
        assertEquals("Received bogus data, size 15", done.failure());
        assertEquals(0, done.pings());
    }

    @Test
    void withValidationADifferenceInTheEchoFailsTheRunAndSaysWhere() {
        RpingClient c = connected(RpingLoopback.clientOptions(3, SIZE));
        c.completion(WcStatus.SUCCESS, WcOpcode.RECV, 16);
        store.move(buf.startOffset, buf.rdmaOffset, SIZE);
        store.writeByte(buf.rdmaOffset + 20, (byte) '#');
        c.completion(WcStatus.SUCCESS, WcOpcode.RECV, 16);
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertFalse(done.ok());
        assertTrue(done.failure().startsWith("data mismatch! (ping 0, byte 20: sent 0x"), done.failure());
        assertTrue(done.failure().endsWith("got 0x23)"), done.failure());
        assertEquals(0, done.verified());
    }

    @Test
    void withoutValidationTheEchoIsNotCompared() {
        RpingClient c = connected(RpingOptions.client(RpingLoopback.SERVER, RpingLoopback.CLIENT, 1));
        c.completion(WcStatus.SUCCESS, WcOpcode.RECV, 16);
        c.completion(WcStatus.SUCCESS, WcOpcode.RECV, 16);
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertTrue(done.ok(), done.toString());
        assertEquals(1, done.pings());
        assertEquals(0, done.verified());
    }

    @Test
    void aFailedCompletionFailsTheRunButAFlushedOneDoesNot() {
        RpingClient c = connected(RpingLoopback.clientOptions(3, SIZE));
        qp.take();
        c.completion(WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0);
        assertEquals(List.of(), qp.take());
        assertEquals(RpingState.RDMA_READ_ADV, c.state());
        c.completion(WcStatus.REM_ACCESS_ERR, WcOpcode.SEND, 16);
        assertEquals(List.of("disconnect"), qp.take());
        assertEquals(RpingState.ERROR, c.state());
        c.completion(WcStatus.SUCCESS, WcOpcode.RECV, 16);
        assertEquals(List.of(), qp.take(), "nothing more after the error");
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertEquals("cq completion failed status REM_ACCESS_ERR (SEND)", done.failure());
    }

    @Test
    void aGoAheadOutOfTurnAndAnRdmaCompletionAreErrors() {
        RpingClient c = connected(RpingLoopback.clientOptions(3, SIZE));
        c.completion(WcStatus.SUCCESS, WcOpcode.RDMA_READ, 64);
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertEquals("unexpected RDMA_READ completion on a client", done.failure());
    }

    @Test
    void aRefusedConnectionEndsTheRunWithRpingsWords() {
        RpingClient c = new RpingClient(RpingLoopback.clientOptions(3, SIZE), buf, qp);
        RpingResult[] r = new RpingResult[1];
        c.onDone(x -> r[0] = x).start();
        qp.take();
        c.cmEvent(CmEventType.CONNECT_REPLY, CmStatus.CONNECTION_REFUSED, CmReason.PEER_REJECTED);
        assertEquals(List.of("release"), qp.take(), "nothing to disconnect: the CM let the node go");
        assertEquals("cma event RDMA_CM_EVENT_REJECTED, error -111 (PEER_REJECTED)", r[0].failure());
        assertFalse(r[0].ok());
    }

    @Test
    void theServerDisconnectingBeforeTheCountFailsTheRun() {
        RpingClient c = connected(RpingLoopback.clientOptions(3, SIZE));
        echo(c);
        c.cmEvent(CmEventType.DISCONNECT, CmStatus.OK, CmReason.NONE);
        assertEquals(RpingState.DISCONNECTED, c.state());
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertEquals("the server disconnected after 1 of 3 pings", done.failure());
        assertEquals(1, done.pings());
    }

    @Test
    void withNoCountTheServersDisconnectIsTheCleanEnd() {
        RpingClient c = connected(RpingLoopback.clientOptions(0, SIZE));
        echo(c);
        echo(c);
        c.cmEvent(CmEventType.DISCONNECT, CmStatus.OK, CmReason.NONE);
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertTrue(done.ok(), done.toString());
        assertEquals(2, done.pings());
    }

    @Test
    void aTerminatedConnectionAndTheQpEventAreReported() {
        RpingClient c = connected(RpingLoopback.clientOptions(3, SIZE));
        c.qpEvent(QpEventType.QP_FATAL);
        c.cmEvent(CmEventType.DISCONNECT, CmStatus.OK, CmReason.TERMINATED);
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.TERMINATED);
        assertEquals("QP event QP_FATAL", done.failure());
    }

    @Test
    void aFullSendQueueIsAPostError() {
        RpingClient c = client(RpingLoopback.clientOptions(3, SIZE));
        qp.answer = PostStatus.QUEUE_FULL;
        c.cmEvent(CmEventType.CONNECT_REPLY, CmStatus.OK, CmReason.NONE);
        assertEquals(List.of("send", "disconnect"), qp.take());
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertEquals("post send error -12", done.failure());
    }

    @Test
    void aReceiveThatCannotBePostedEndsTheRunBeforeItConnects() {
        qp.answer = PostStatus.INVALID;
        RpingClient c = new RpingClient(RpingLoopback.clientOptions(3, SIZE), buf, qp).onDone(r -> done = r);
        c.start();
        assertEquals(List.of("recv", "release"), qp.take());
        assertEquals("ibv_post_recv failed: -22", done.failure());
    }

    @Test
    void stoppingMidRunDisconnectsAbortivelyAndFrees() {
        RpingClient c = connected(RpingLoopback.clientOptions(3, SIZE));
        echo(c);
        qp.take();
        c.stop();
        assertEquals(List.of("disconnect abortive", "release"), qp.take());
        assertEquals("stopped after 1 of 3 pings", done.failure());
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.LOCAL_ABORT);
        c.stop();
        assertEquals(List.of(), qp.take(), "once");
    }

    @Test
    void aQpEventAfterItsOwnDisconnectDoesNotSpoilADoneRun() {
        RpingClient c = connected(RpingLoopback.clientOptions(1, SIZE));
        echo(c);
        assertEquals(List.of("send", "recv", "send", "recv", "disconnect"), qp.take());
        c.qpEvent(QpEventType.QP_FATAL);
        c.cmEvent(CmEventType.CLOSE, CmStatus.CONNECTION_RESET, CmReason.PEER_RESET);
        assertTrue(done.ok(), done.toString());
    }
}
