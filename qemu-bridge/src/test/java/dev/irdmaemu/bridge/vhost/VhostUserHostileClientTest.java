package dev.irdmaemu.bridge.vhost;

import static dev.irdmaemu.bridge.vhost.FakeQemu.R0_GPA;
import static dev.irdmaemu.bridge.vhost.FakeQemu.R0_SIZE;
import static dev.irdmaemu.bridge.vhost.FakeQemu.R0_UA;
import static dev.irdmaemu.bridge.vhost.FakeQemu.R1_GPA;
import static dev.irdmaemu.bridge.vhost.FakeQemu.u64;
import static dev.irdmaemu.bridge.vhost.SplitVirtqueue.DESC_F_INDIRECT;
import static dev.irdmaemu.bridge.vhost.SplitVirtqueue.DESC_F_NEXT;
import static dev.irdmaemu.bridge.vhost.SplitVirtqueue.DESC_F_WRITE;
import static dev.irdmaemu.bridge.vhost.VirtioNet.NET_HEADER_SIZE;
import static dev.irdmaemu.bridge.vhost.VirtioNet.RX_QUEUE;
import static dev.irdmaemu.bridge.vhost.VirtioNet.TX_QUEUE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.vhost.BackendFixture.Collector;
import dev.irdmaemu.bridge.vhost.BackendFixture.LogCapture;
import java.io.FileDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A hostile front-end (and guest) on socket A while a well-behaved one keeps running on socket B of the same
 * process. Each case must end A's connection with an ERROR log naming the broken rule, release everything A held
 * (mappings, descriptors), leave B passing frames, and leave socket A accepting a new front-end.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class VhostUserHostileClientTest {
    @TempDir
    Path dir;

    private BackendFixture a;
    private BackendFixture b;
    private FakeQemu goodGuest;
    private FakeQemu hostile;
    private LogCapture log;

    @BeforeEach
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void start() throws Exception {
        log = new LogCapture();
        a = new BackendFixture(dir, "a");
        b = new BackendFixture(dir, "b");
        goodGuest = b.startGuest(true, BackendFixture.STANDARD_FEATURES);
        hostile = a.connect();
    }

    @AfterEach
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void stop() throws Exception {
        hostile.close();
        goodGuest.close();
        a.close();
        b.close();
        log.close();
    }

    /** The common verdict of every case. */
    private void assertRefused(VhostUserFailure failure) throws Exception {
        assertTrue(hostile.awaitClosedByBackend(), "the back-end closed connection A");
        assertTrue(a.backend.awaitConnectionsEnded(1, FakeQemu.TIMEOUT_MILLIS), "connection A was torn down");
        assertTrue(log.loggedError(failure), "an ERROR naming " + failure + " in " + log.errors());
        assertEquals(1, log.errors().size(), "exactly one error: " + log.errors());
        // nothing of A's is held any more: no mapping of its guest RAM, none of its notifier descriptors
        assertEquals(1, BackendFixture.mappingsOf(hostile.memFile), "only the front-end's own mapping is left");
        for (int q = 0; q < 2; q++) {
            for (FileDescriptor fd : new FileDescriptor[] {FakeQemu.fd(hostile.kick[q].sink()),
                FakeQemu.fd(hostile.call[q].sink()), FakeQemu.fd(hostile.err[q].sink())}) {
                assertEquals(2, BackendFixture.descriptorsSharing(fd), "a notifier descriptor was left open");
            }
        }
        assertFalse(a.port.linkUp());
        // the other socket's connection never noticed
        b.exchangeOneFrameEachWay(goodGuest);
        // and socket A serves the next front-end
        try (FakeQemu next = a.connect()) {
            assertEquals(VirtioNet.OFFERED_FEATURES, next.getU64(VhostUserRequest.GET_FEATURES));
        }
    }

    /** A's front-end through the whole start-up, rings running: the guest then breaks a ring. */
    private void startHostileGuest() throws Exception {
        hostile.connectSequence(true, hostile.call);
        hostile.startSequence(BackendFixture.STANDARD_FEATURES, true);
        assertTrue(a.port.linkUp());
        assertEquals(3, BackendFixture.mappingsOf(hostile.memFile), "both regions mapped while running");
    }

    private void kickTxAndPoll() throws Exception {
        hostile.kick(TX_QUEUE);
        a.awaitKick();
        assertEquals(0, a.port.pollFromGuest(new Collector(), 64));
    }

    // ---- the control plane ----

    @Test
    void truncatedHeader() throws Exception {
        hostile.writeBytes(new byte[] {1, 0, 0, 0, 1, 0});
        hostile.socket.shutdownOutput();
        assertRefused(VhostUserFailure.TRUNCATED_HEADER);
    }

    @Test
    void truncatedPayload() throws Exception {
        hostile.sendRaw(VhostUserRequest.SET_FEATURES, VhostUserRequest.VERSION, 8, ByteBuffer.allocate(3));
        hostile.socket.shutdownOutput();
        assertRefused(VhostUserFailure.TRUNCATED_PAYLOAD);
    }

    @ParameterizedTest(name = "flags 0x{0}")
    @ValueSource(ints = {0x0, 0x2, 0x5, 0x11})
    void badHeaderFlags(int flags) throws Exception {
        hostile.send(VhostUserRequest.GET_FEATURES, flags, null);
        assertRefused(VhostUserFailure.BAD_FLAGS);
    }

    @Test
    void payloadLargerThanAnyMessage() throws Exception {
        hostile.sendRaw(VhostUserRequest.SET_MEM_TABLE, VhostUserRequest.VERSION, 1 << 20, null);
        assertRefused(VhostUserFailure.PAYLOAD_TOO_LARGE);
    }

    /** Every fixed-size message with a size other than its own (the payload really is that long). */
    @ParameterizedTest(name = "{0} with size {1}")
    @CsvSource({
        "GET_FEATURES, 8", "SET_FEATURES, 4", "SET_FEATURES, 16", "SET_OWNER, 8", "RESET_OWNER, 4",
        "SET_VRING_NUM, 4", "SET_VRING_ADDR, 32", "SET_VRING_ADDR, 48", "SET_VRING_BASE, 12",
        "GET_VRING_BASE, 4", "SET_VRING_KICK, 4", "SET_VRING_CALL, 16", "SET_VRING_ERR, 0",
        "GET_PROTOCOL_FEATURES, 8", "SET_PROTOCOL_FEATURES, 0", "SET_VRING_ENABLE, 12", "SET_MEM_TABLE, 4"})
    void wrongPayloadSize(String request, int size) throws Exception {
        int code = (int) VhostUserRequest.class.getField(request).getInt(null);
        hostile.sendRaw(code, VhostUserRequest.VERSION, size, ByteBuffer.allocate(size));
        assertRefused(VhostUserFailure.WRONG_SIZE);
    }

    @Test
    void memTableSizeNotMatchingItsRegionCount() throws Exception {
        ByteBuffer table = ByteBuffer.allocate(8 + 32 + 8).order(ByteOrder.LITTLE_ENDIAN);
        table.put(FakeQemu.memTable(1)).position(0);
        hostile.send(VhostUserRequest.SET_MEM_TABLE, table, hostile.ramFd());
        assertRefused(VhostUserFailure.WRONG_SIZE);
    }

    @ParameterizedTest(name = "request {0}")
    @ValueSource(ints = {0, VhostUserRequest.SET_LOG_BASE, VhostUserRequest.GET_QUEUE_NUM, 41, 99, -1})
    void unknownOrUnsupportedRequest(int request) throws Exception {
        hostile.send(request, null);
        assertRefused(VhostUserFailure.UNKNOWN_REQUEST);
    }

    @Test
    void memTableWithAMissingFd() throws Exception {
        hostile.send(VhostUserRequest.SET_MEM_TABLE, FakeQemu.memTable(2), hostile.ramFd());
        assertRefused(VhostUserFailure.MISSING_FD);
    }

    @Test
    void memTableWithAnExtraFd() throws Exception {
        hostile.send(VhostUserRequest.SET_MEM_TABLE, FakeQemu.memTable(1), hostile.ramFd(), hostile.ramFd());
        assertRefused(VhostUserFailure.EXTRA_FD);
    }

    @Test
    void fdOnAMessageThatTakesNone() throws Exception {
        hostile.send(VhostUserRequest.SET_OWNER, null, hostile.ramFd());
        assertRefused(VhostUserFailure.EXTRA_FD);
    }

    @Test
    void kickWithoutItsFd() throws Exception {
        hostile.send(VhostUserRequest.SET_VRING_KICK, u64(TX_QUEUE));
        assertRefused(VhostUserFailure.MISSING_FD);
    }

    @Test
    void regionCountOverTheMaximum() throws Exception {
        FileDescriptor[] nine = new FileDescriptor[9];
        java.util.Arrays.fill(nine, hostile.ramFd());
        hostile.send(VhostUserRequest.SET_MEM_TABLE, FakeQemu.memTable(9), nine);
        assertRefused(VhostUserFailure.TOO_MANY_REGIONS);
    }

    @Test
    void regionLargerThanItsFile() throws Exception {
        ByteBuffer table = FakeQemu.memTable(1);
        table.putLong(8 + 8, FakeQemu.FILE_SIZE + 0x1000);
        hostile.send(VhostUserRequest.SET_MEM_TABLE, table, hostile.ramFd());
        assertRefused(VhostUserFailure.MAP_FAILED);
    }

    @Test
    void overlappingRegions() throws Exception {
        ByteBuffer table = FakeQemu.memTable(2);
        table.putLong(8 + 32, R0_GPA + 0x1000); // region 1's guest address inside region 0
        hostile.send(VhostUserRequest.SET_MEM_TABLE, table, hostile.ramFd(), hostile.ramFd());
        assertRefused(VhostUserFailure.BAD_REGION);
    }

    private void memoryAndRingSize() throws Exception {
        hostile.send(VhostUserRequest.SET_FEATURES, u64(BackendFixture.STANDARD_FEATURES));
        hostile.send(VhostUserRequest.SET_MEM_TABLE, FakeQemu.memTable(2), hostile.ramFd(), hostile.ramFd());
        hostile.send(VhostUserRequest.SET_VRING_NUM, FakeQemu.state(TX_QUEUE, FakeQemu.QUEUE_SIZE));
    }

    /**
     * Ring addresses outside the memory table: a descriptor table that runs past the end of region 0, and a ring
     * given by its guest-physical address where a user address belongs (vhost-user.rst: ring addresses are user
     * addresses).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"straddling the end of a region", "a guest-physical address"})
    void vringAddressOutsideTheMemoryTable(String how) throws Exception {
        memoryAndRingSize();
        long desc = how.startsWith("straddling") ? R0_UA + R0_SIZE - 0x800 : FakeQemu.DESC_GPA[TX_QUEUE];
        hostile.send(VhostUserRequest.SET_VRING_ADDR, FakeQemu.ringAddr(TX_QUEUE, desc,
                FakeQemu.ua(FakeQemu.USED_GPA[TX_QUEUE]), FakeQemu.ua(FakeQemu.AVAIL_GPA[TX_QUEUE])));
        assertRefused(VhostUserFailure.RING_OUTSIDE_MEMORY);
    }

    @Test
    void vringAddressBeforeTheMemoryTable() throws Exception {
        hostile.send(VhostUserRequest.SET_VRING_NUM, FakeQemu.state(TX_QUEUE, FakeQemu.QUEUE_SIZE));
        hostile.send(VhostUserRequest.SET_VRING_ADDR, FakeQemu.ringAddr(TX_QUEUE, R0_UA, R0_UA + 0x8000,
                R0_UA + 0x4000));
        assertRefused(VhostUserFailure.RING_NOT_CONFIGURED);
    }

    @Test
    void vringAddressMisaligned() throws Exception {
        memoryAndRingSize();
        hostile.send(VhostUserRequest.SET_VRING_ADDR, FakeQemu.ringAddr(TX_QUEUE, R0_UA + 8, R0_UA + 0x8000,
                R0_UA + 0x4000));
        assertRefused(VhostUserFailure.RING_MISALIGNED);
    }

    @ParameterizedTest(name = "num {0}")
    @ValueSource(ints = {100, 0, 3, 32769, 65536, -2147483648})
    void ringNumNotAPowerOfTwoUpTo32768(int num) throws Exception {
        hostile.send(VhostUserRequest.SET_VRING_NUM, FakeQemu.state(TX_QUEUE, num));
        assertRefused(VhostUserFailure.BAD_RING_SIZE);
    }

    @Test
    void ringIndexOfAQueueThatDoesNotExist() throws Exception {
        hostile.send(VhostUserRequest.SET_VRING_NUM, FakeQemu.state(2, 256));
        assertRefused(VhostUserFailure.BAD_RING_INDEX);
    }

    @Test
    void featuresNeverOffered() throws Exception {
        hostile.send(VhostUserRequest.SET_FEATURES, u64(1L << VirtioNet.F_VERSION_1 | 1L << 26)); // VHOST_F_LOG_ALL
        assertRefused(VhostUserFailure.UNSUPPORTED_FEATURES);
    }

    @Test
    void aRefusedRequestWithNeedReplyIsNackedBeforeTheClose() throws Exception {
        hostile.send(VhostUserRequest.SET_VRING_NUM, VhostUserRequest.VERSION | VhostUserRequest.FLAG_NEED_REPLY,
                FakeQemu.state(TX_QUEUE, 100));
        ByteBuffer nack = hostile.reply(VhostUserRequest.SET_VRING_NUM);
        assertTrue(nack.getLong(0) != 0, "REPLY_ACK non-zero: failure");
        assertRefused(VhostUserFailure.BAD_RING_SIZE);
    }

    // ---- the guest's rings ----

    @Test
    void descriptorChainLoop() throws Exception {
        startHostileGuest();
        hostile.desc(TX_QUEUE, 0, R0_GPA + 0x2000, NET_HEADER_SIZE, DESC_F_NEXT, 1);
        hostile.desc(TX_QUEUE, 1, R0_GPA + 0x3000, 100, DESC_F_NEXT, 0);
        hostile.offer(TX_QUEUE, 0);
        kickTxAndPoll();
        assertRefused(VhostUserFailure.CHAIN_LOOP);
    }

    @Test
    void descriptorChainLoopInsideAnIndirectTable() throws Exception {
        startHostileGuest();
        long table = R1_GPA + 0x40000;
        hostile.descAt(table, R0_GPA + 0x2000, NET_HEADER_SIZE, DESC_F_NEXT, 1);
        hostile.descAt(table + 16, R0_GPA + 0x3000, 100, DESC_F_NEXT, 0);
        hostile.desc(TX_QUEUE, 0, table, 32, DESC_F_INDIRECT, 0);
        hostile.offer(TX_QUEUE, 0);
        kickTxAndPoll();
        assertRefused(VhostUserFailure.CHAIN_LOOP);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"in the gap between regions", "straddling a region's end", "past guest RAM"})
    void descriptorPointingOutsideMemory(String where) throws Exception {
        startHostileGuest();
        long addr = where.startsWith("in the gap") ? 0x2000_0000L
                : where.startsWith("straddling") ? R0_GPA + R0_SIZE - 10 : 0x7fff_ffff_ffff_f000L;
        hostile.desc(TX_QUEUE, 0, addr, 100, 0, 0);
        hostile.offer(TX_QUEUE, 0);
        kickTxAndPoll();
        assertRefused(VhostUserFailure.DESC_OUTSIDE_MEMORY);
    }

    @Test
    void indirectTableOutsideMemory() throws Exception {
        startHostileGuest();
        hostile.desc(TX_QUEUE, 0, 0x2000_0000L, 48, DESC_F_INDIRECT, 0);
        hostile.offer(TX_QUEUE, 0);
        kickTxAndPoll();
        assertRefused(VhostUserFailure.DESC_OUTSIDE_MEMORY);
    }

    @Test
    void availIdxJumpingMoreThanTheRingSize() throws Exception {
        startHostileGuest();
        hostile.setAvailIdx(TX_QUEUE, FakeQemu.QUEUE_SIZE + 1);
        kickTxAndPoll();
        assertRefused(VhostUserFailure.AVAIL_IDX_JUMP);
    }

    @Test
    void nextIndexOutOfRange() throws Exception {
        startHostileGuest();
        hostile.desc(TX_QUEUE, 0, R0_GPA + 0x2000, NET_HEADER_SIZE, DESC_F_NEXT, FakeQemu.QUEUE_SIZE);
        hostile.offer(TX_QUEUE, 0);
        kickTxAndPoll();
        assertRefused(VhostUserFailure.BAD_NEXT);
    }

    @Test
    void headIndexOutOfRange() throws Exception {
        startHostileGuest();
        hostile.offer(TX_QUEUE, 0xffff);
        kickTxAndPoll();
        assertRefused(VhostUserFailure.BAD_HEAD);
    }

    @Test
    void receiveChainWithAReadOnlyDescriptor() throws Exception {
        startHostileGuest();
        hostile.desc(RX_QUEUE, 0, R0_GPA + 0x10000, 2048, 0, 0);
        hostile.offer(RX_QUEUE, 0);
        BytesStore<?, ?> s = BackendFixture.store(new byte[64]);
        assertFalse(a.port.transmitToGuest(s, 0, 64));
        s.releaseLast();
        assertRefused(VhostUserFailure.WRONG_DIRECTION);
    }

    @Test
    void transmitChainShorterThanTheNetHeader() throws Exception {
        startHostileGuest();
        hostile.desc(TX_QUEUE, 0, R0_GPA + 0x2000, NET_HEADER_SIZE - 1, 0, 0);
        hostile.offer(TX_QUEUE, 0);
        kickTxAndPoll();
        assertRefused(VhostUserFailure.SHORT_FRAME);
    }

    @Test
    void writableDescriptorInATransmitChain() throws Exception {
        startHostileGuest();
        hostile.desc(TX_QUEUE, 0, R0_GPA + 0x2000, 100, DESC_F_WRITE, 0);
        hostile.offer(TX_QUEUE, 0);
        kickTxAndPoll();
        assertRefused(VhostUserFailure.WRONG_DIRECTION);
    }

    @Test
    void theErrorNotifierIsSignalledWhenTheGuestBreaksARing() throws Exception {
        startHostileGuest();
        hostile.err[TX_QUEUE].source().configureBlocking(false);
        hostile.setAvailIdx(TX_QUEUE, FakeQemu.QUEUE_SIZE + 1);
        kickTxAndPoll();
        assertTrue(hostile.err[TX_QUEUE].source().read(ByteBuffer.allocate(64)) >= 8, "SET_VRING_ERR fd signalled");
        assertRefused(VhostUserFailure.AVAIL_IDX_JUMP);
    }
}
