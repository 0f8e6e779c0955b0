package dev.irdmaemu.cm.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WcStatus;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * One server connection's steps from a script (rping.c rping_test_server, server_recv): the advertisement parsed
 * from the wire's byte order, the Read and Write posted with what it said, the zero go-aheads, and the refusals.
 */
class RpingServerConnectionTest {
    private static final int SIZE = 64;
    private static final long CLIENT_START = 0x0000_7f12_3456_0000L;
    private static final int START_KEY = 0x00ab_cd01;
    private static final long CLIENT_SINK = 0x0000_7f12_3457_0000L;
    private static final int SINK_KEY = 0x00ab_ce02;
    private final RpingLoopback layout = new RpingLoopback(RpingLoopback.clientOptions(3, SIZE),
            RpingLoopback.serverOptions(SIZE));
    private final RpingBuffers buf = layout.serverBuffers;
    private final BytesStore<?, ?> store = layout.store;
    private final ScriptedVerbs qp = new ScriptedVerbs();
    private RpingResult done;

    private RpingServerConnection connection(RpingOptions options) {
        qp.take();
        // the send buffer held something before: the go-ahead must still be zeros
        RpingInfo.write(store, buf.sendOffset, -1L, -1, -1);
        RpingServerConnection c = new RpingServerConnection(options, buf, qp).onDone(r -> {
            assertNull(done, "one result");
            done = r;
        });
        assertTrue(c.start());
        c.cmEvent(CmEventType.ESTABLISHED, CmStatus.OK, CmReason.NONE);
        assertEquals(List.of("recv"), qp.take());
        assertEquals(RpingState.CONNECTED, c.state());
        return c;
    }

    private void advertise(RpingServerConnection c, long address, int rkey, int length) {
        RpingInfo.write(store, buf.recvOffset, address, rkey, length);
        c.completion(WcStatus.SUCCESS, WcOpcode.RECV, 16);
    }

    /** What the client would have in its start buffer for {@code ping}, as if the Read brought it. */
    private void readBrings(int ping, int length) {
        RpingPattern.fill(store, buf.rdmaOffset, length, ping);
    }

    @Test
    void onePingReadsTheStartBufferThenWritesItsStringIntoTheSink() {
        RpingServerConnection c = connection(RpingLoopback.serverOptions(SIZE));
        advertise(c, CLIENT_START, START_KEY, 50);
        assertEquals(List.of("recv", "read 0x7f1234560000 rkey 0xabcd01 len 50"), qp.take());
        assertEquals(RpingState.RDMA_READ_ADV, c.state());
        readBrings(0, 50);
        c.completion(WcStatus.SUCCESS, WcOpcode.RDMA_READ, 50);
        assertEquals(List.of("send"), qp.take(), "the go-ahead");
        assertEquals(0, RpingInfo.address(store, buf.sendOffset));
        assertEquals(0, RpingInfo.rkey(store, buf.sendOffset));
        assertEquals(0, RpingInfo.length(store, buf.sendOffset), "rping's server never fills its send buffer");
        assertEquals(RpingState.RDMA_READ_COMPLETE, c.state());
        c.completion(WcStatus.SUCCESS, WcOpcode.SEND, 16);
        advertise(c, CLIENT_SINK, SINK_KEY, 50);
        assertEquals(List.of("recv", "write 0x7f1234570000 rkey 0xabce02 len 50"), qp.take(),
                "strlen(rdma_buf) + 1: the 49 characters and the NUL");
        c.completion(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, 50);
        assertEquals(List.of("send"), qp.take());
        assertEquals(RpingState.RDMA_WRITE_COMPLETE, c.state());
        assertEquals(1, c.pings());
        advertise(c, CLIENT_START, START_KEY, 50);
        assertEquals(List.of("recv", "read 0x7f1234560000 rkey 0xabcd01 len 50"), qp.take(), "the next ping");
    }

    @Test
    void theClientsDisconnectIsTheCleanEnd() {
        RpingServerConnection c = connection(RpingLoopback.serverOptions(SIZE));
        for (int ping = 0; ping < 2; ping++) {
            advertise(c, CLIENT_START, START_KEY, SIZE);
            readBrings(ping, SIZE);
            c.completion(WcStatus.SUCCESS, WcOpcode.RDMA_READ, SIZE);
            advertise(c, CLIENT_SINK, SINK_KEY, SIZE);
            c.completion(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, SIZE);
        }
        qp.take();
        c.cmEvent(CmEventType.DISCONNECT, CmStatus.OK, CmReason.NONE);
        assertEquals(RpingState.DISCONNECTED, c.state());
        assertEquals(List.of(), qp.take(), "the CM closes the QP itself after the peer's FIN");
        c.completion(WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0);
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertEquals(List.of("release"), qp.take());
        assertTrue(done.ok(), done.toString());
        assertEquals(2, done.pings());
        assertEquals(2, done.verified());
        assertEquals(2 * SIZE, done.bytesRead());
        assertEquals(2 * SIZE, done.bytesWritten());
    }

    @Test
    void aReadLongerThanRdmaBufIsRefusedNotPosted() {
        RpingServerConnection c = connection(RpingLoopback.serverOptions(SIZE));
        advertise(c, CLIENT_START, START_KEY, SIZE + 1);
        assertEquals(List.of("recv", "disconnect"), qp.take());
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertEquals("the client advertised 65 bytes to read, rdma_buf holds 64", done.failure());
        assertFalse(done.ok());
    }

    @Test
    void aHugeAdvertisedLengthIsReadAsUnsigned() {
        RpingServerConnection c = connection(RpingLoopback.serverOptions(SIZE));
        advertise(c, CLIENT_START, START_KEY, -2);
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertEquals("the client advertised 4294967294 bytes to read, rdma_buf holds 64", done.failure());
    }

    @Test
    void anAdvertisementOutOfTurnIsAnError() {
        RpingServerConnection c = connection(RpingLoopback.serverOptions(SIZE));
        advertise(c, CLIENT_START, START_KEY, SIZE);
        advertise(c, CLIENT_SINK, SINK_KEY, SIZE);
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertEquals("wait for RDMA_READ_COMPLETE state RDMA_READ_ADV: an advertisement out of turn",
                done.failure());
    }

    @Test
    void aCompletionThatDoesNotFitTheStateIsAnError() {
        RpingServerConnection c = connection(RpingLoopback.serverOptions(SIZE));
        c.completion(WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, SIZE);
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertEquals("an RDMA Write completion in state CONNECTED", done.failure());
    }

    @Test
    void bogusDataAndFailedCompletionsAreErrors() {
        RpingServerConnection c = connection(RpingLoopback.serverOptions(SIZE));
        c.completion(WcStatus.SUCCESS, WcOpcode.RECV, 17);
        assertEquals(List.of("disconnect"), qp.take());
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertEquals("Received bogus data, size 17", done.failure());
        done = null;
        RpingServerConnection d = connection(RpingLoopback.serverOptions(SIZE));
        advertise(d, CLIENT_START, START_KEY, SIZE);
        d.completion(WcStatus.LOC_PROT_ERR, WcOpcode.RDMA_READ, SIZE);
        d.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertEquals("cq completion failed status LOC_PROT_ERR (RDMA_READ)", done.failure());
    }

    @Test
    void withValidationDataThatIsNotRpingsFailsThePing() {
        RpingServerConnection c = connection(RpingLoopback.serverOptions(SIZE));
        advertise(c, CLIENT_START, START_KEY, SIZE);
        readBrings(1, SIZE);
        c.completion(WcStatus.SUCCESS, WcOpcode.RDMA_READ, SIZE);
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
        assertEquals("ping 0: the data read differs from rping's at byte 10 (0x31)", done.failure());
    }

    @Test
    void aResetOrTerminatedConnectionIsNotAnOrderlyEnd() {
        RpingServerConnection c = connection(RpingLoopback.serverOptions(SIZE));
        c.cmEvent(CmEventType.DISCONNECT, CmStatus.CONNECTION_RESET, CmReason.PEER_RESET);
        c.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.PEER_RESET);
        assertEquals("the client's connection ended: CONNECTION_RESET, PEER_RESET", done.failure());
        done = null;
        RpingServerConnection d = connection(RpingLoopback.serverOptions(SIZE));
        d.cmEvent(CmEventType.DISCONNECT, CmStatus.OK, CmReason.TERMINATED);
        d.cmEvent(CmEventType.CLOSE, CmStatus.OK, CmReason.TERMINATED);
        assertEquals("the client's connection ended: OK, TERMINATED", done.failure());
    }

    @Test
    void anAcceptThatNeverCameUpFails() {
        RpingServerConnection c = new RpingServerConnection(RpingLoopback.serverOptions(SIZE), buf, qp)
                .onDone(r -> done = r);
        assertTrue(c.start());
        c.cmEvent(CmEventType.ESTABLISHED, CmStatus.CONNECTION_RESET, CmReason.ESTABLISH_TIMEOUT);
        assertEquals(List.of("recv", "release"), qp.take());
        assertEquals("wait for CONNECTED state: ESTABLISHED error -104 (ESTABLISH_TIMEOUT)", done.failure());
    }

    @Test
    void aStringWithoutItsNulIsWrittenWholeNotPastRdmaBuf() {
        BytesStore<?, ?> s = BytesStore.wrap(new byte[8]);
        for (int i = 0; i < 8; i++) {
            s.writeByte(i, (byte) 'a');
        }
        assertEquals(8, RpingServerConnection.stringLength(s, 0, 8));
        s.writeByte(3, (byte) 0);
        assertEquals(4, RpingServerConnection.stringLength(s, 0, 8));
    }
}
