package dev.irdmaemu.bridge.vfiouser;

import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.argsz;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.dmaMap;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.regionWrite;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.vfiouser.VfioUserClient.Reply;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * DMA to windows the client mapped without a descriptor, through VFIO_USER_DMA_READ / VFIO_USER_DMA_WRITE from the
 * server (vfio-user.rst): a Java client plays QEMU, holding the window's bytes and answering the server's requests
 * while it waits for the reply to the register write that made the device do DMA. Each message carries at most the
 * client's max_data_xfer_size; error replies, lying replies, silence and a request in place of a reply each fail the
 * access (the last two also close the connection, with the server accepting the next client).
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class VfioUserMessageDmaTest {
    static final long WINDOW = 0x9000_0000L;
    static final int WINDOW_SIZE = 0x10000;
    static final int CLIENT_MAX_XFER = 4096;

    @TempDir
    Path dir;

    private TestFunction device;
    private VfioUserServer server;
    private long savedTimeout;

    /** The client's side of the window, and what it does with the server's requests. */
    private final byte[] guest = new byte[WINDOW_SIZE];
    private final List<String> requests = new ArrayList<>();
    private Misbehaviour misbehaviour = Misbehaviour.NONE;

    enum Misbehaviour { NONE, ERROR_REPLY, WRONG_COUNT, SHORT_READ_REPLY, SILENCE, REQUEST_INSTEAD }

    @BeforeEach
    void start() throws IOException {
        savedTimeout = VfioUserConnection.dmaReplyTimeoutMillis;
        VfioUserConnection.dmaReplyTimeoutMillis = 500;
        device = new TestFunction();
        server = VfioUserServer.start(dir.resolve("dma.sock"), device, Runnable::run);
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        VfioUserConnection.dmaReplyTimeoutMillis = savedTimeout;
    }

    /** VERSION with a small max_data_xfer_size, realize, then an fd-less window (flags: 1 read, 3 read-write). */
    VfioUserClient connect(int flags) throws IOException {
        VfioUserClient c = new VfioUserClient(server.socketPath());
        Reply v = c.call(VfioUserCommand.VERSION, VfioUserClient.version(0, 0, "{\"capabilities\": {\"max_msg_fds\": 16,"
                + " \"max_data_xfer_size\": " + CLIENT_MAX_XFER + "}}"));
        assertFalse(v.isError(), v.toString());
        assertFalse(c.call(VfioUserCommand.DEVICE_GET_INFO, argsz(16, 16)).isError());
        Reply m = c.call(VfioUserCommand.DMA_MAP, dmaMap(flags, 0, WINDOW, WINDOW_SIZE));
        assertFalse(m.isError(), m.toString());
        return c;
    }

    /**
     * A non-posted REGION_WRITE, serving the server's DMA requests until its reply comes: the reply, or null when
     * the server closed the connection.
     */
    Reply writeServingDma(VfioUserClient c, long offset, long value) throws IOException {
        int id = c.send(VfioUserCommand.REGION_WRITE, 0, regionWrite(0, offset, 8, value));
        while (true) {
            Reply r;
            try {
                r = c.receive();
            } catch (IOException e) {
                return null;
            }
            if ((r.flags & VfioUserHeader.TYPE_MASK) == VfioUserHeader.TYPE_REPLY) {
                assertEquals(id, r.id);
                return r;
            }
            answer(c, r);
        }
    }

    private void answer(VfioUserClient c, Reply r) throws IOException {
        long address = r.payload.getLong(0);
        long count = r.payload.getLong(8);
        requests.add(VfioUserCommand.name(r.command) + " " + Long.toHexString(address) + "+" + count);
        assertTrue(count <= CLIENT_MAX_XFER, "at most the client's max_data_xfer_size per message");
        int at = (int) (address - WINDOW);
        switch (misbehaviour) {
            case SILENCE:
                return;
            case REQUEST_INSTEAD:
                c.send(VfioUserCommand.REGION_READ, 0, VfioUserClient.regionRead(0, TestFunction.DMA_STATUS, 8));
                return;
            case ERROR_REPLY:
                send(c, header(r.id, r.command, 16, VfioUserHeader.TYPE_REPLY | VfioUserHeader.FLAG_ERROR, 14));
                return;
            default:
                break;
        }
        boolean read = r.command == VfioUserCommand.DMA_READ;
        int data = read ? (int) count : 0;
        if (misbehaviour == Misbehaviour.SHORT_READ_REPLY && read) {
            data = (int) count / 2;
        }
        ByteBuffer m = header(r.id, r.command, 16 + 16 + data, VfioUserHeader.TYPE_REPLY, 0);
        m.putLong(16, address).putLong(24, misbehaviour == Misbehaviour.WRONG_COUNT ? count + 1 : count);
        if (read) {
            m.position(32);
            m.put(guest, at, data);
        } else {
            r.payload.position(16);
            r.payload.get(guest, at, (int) count);
        }
        send(c, m);
    }

    private static ByteBuffer header(int id, int command, int size, int flags, int error) {
        ByteBuffer m = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        m.putShort(0, (short) id).putShort(2, (short) command).putInt(4, size).putInt(8, flags).putInt(12, error);
        return m;
    }

    private static void send(VfioUserClient c, ByteBuffer m) throws IOException {
        c.sendBytes(m.array());
    }

    @Test
    void aWriteAndAReadOfAnFdLessWindowGoAsMessagesOfAtMostTheClientsTransferSize() throws Exception {
        try (VfioUserClient c = connect(3)) {
            assertFalse(writeServingDma(c, TestFunction.DMA_ADDR, WINDOW + 0x100).isError());
            assertFalse(writeServingDma(c, TestFunction.DMA_LENGTH, 10_000).isError());
            assertFalse(writeServingDma(c, TestFunction.DMA_FILL, 3).isError());
            assertEquals(1, c.read(0, TestFunction.DMA_STATUS, 8), "the DMA went through: " + device.lastDma);
            assertEquals(List.of("DMA_WRITE 90000100+4096", "DMA_WRITE 90001100+4096", "DMA_WRITE 90002100+1808"),
                    requests);
            for (int i = 0; i < 10_000; i++) {
                assertEquals((byte) (i * 7 + 3), guest[0x100 + i], "byte " + i);
            }
            requests.clear();
            for (int i = 0; i < 10_000; i++) {
                guest[0x100 + i] = (byte) (i * 13);
            }
            assertFalse(writeServingDma(c, TestFunction.DMA_FETCH, 1).isError());
            assertEquals(1, c.read(0, TestFunction.DMA_STATUS, 8));
            assertEquals(3, requests.size(), requests.toString());
            assertTrue(requests.get(0).startsWith("DMA_READ 90000100+4096"), requests.toString());
            byte[] want = new byte[10_000];
            System.arraycopy(guest, 0x100, want, 0, want.length);
            byte[] got = new byte[10_000];
            System.arraycopy(device.fetched, 0, got, 0, got.length);
            assertArrayEquals(want, got);
        }
    }

    @Test
    void aReadOnlyFdLessWindowIsReadByMessagesAndNeverWrittenAndOutsideAnyWindowNothingIsAsked() throws Exception {
        try (VfioUserClient c = connect(1)) {
            guest[0] = 0x5a;
            assertFalse(writeServingDma(c, TestFunction.DMA_ADDR, WINDOW).isError());
            assertFalse(writeServingDma(c, TestFunction.DMA_GO, -1).isError());
            assertEquals(2, c.read(0, TestFunction.DMA_STATUS, 8), "a device write to a read-only window");
            assertEquals(MessageDma.Result.OUTSIDE_WINDOWS, device.lastDma);
            assertEquals(List.of(), requests, "no message for it");
            assertFalse(writeServingDma(c, TestFunction.DMA_FETCH, 1).isError());
            assertEquals(0x5a, c.read(0, TestFunction.DMA_FETCHED, 8) & 0xff);
            assertEquals(1, requests.size());
            assertFalse(writeServingDma(c, TestFunction.DMA_ADDR, WINDOW + WINDOW_SIZE - 4).isError());
            assertFalse(writeServingDma(c, TestFunction.DMA_FETCH, 1).isError());
            assertEquals(2, c.read(0, TestFunction.DMA_STATUS, 8), "8 bytes across the window's end");
            assertEquals(1, requests.size());
        }
    }

    @Test
    void anErrorReplyOrALyingReplyFailsTheAccessAndTheConnectionGoesOn() throws Exception {
        try (VfioUserClient c = connect(3)) {
            assertFalse(writeServingDma(c, TestFunction.DMA_ADDR, WINDOW + 8).isError());
            misbehaviour = Misbehaviour.ERROR_REPLY;
            assertFalse(writeServingDma(c, TestFunction.DMA_GO, 42).isError());
            assertEquals(MessageDma.Result.CLIENT_ERROR, device.lastDma);
            assertEquals(2, c.read(0, TestFunction.DMA_STATUS, 8));
            misbehaviour = Misbehaviour.WRONG_COUNT;
            assertFalse(writeServingDma(c, TestFunction.DMA_GO, 42).isError());
            assertEquals(MessageDma.Result.BAD_REPLY, device.lastDma);
            misbehaviour = Misbehaviour.SHORT_READ_REPLY;
            assertFalse(writeServingDma(c, TestFunction.DMA_FETCH, 1).isError());
            assertEquals(MessageDma.Result.BAD_REPLY, device.lastDma);
            misbehaviour = Misbehaviour.NONE;
            assertFalse(writeServingDma(c, TestFunction.DMA_GO, 42).isError());
            assertEquals(MessageDma.Result.OK, device.lastDma);
            assertEquals(42, ByteBuffer.wrap(guest).order(ByteOrder.LITTLE_ENDIAN).getLong(8));
        }
    }

    @Test
    void aClientThatNeverAnswersIsTimedOutAndClosedAndTheNextClientIsServed() throws Exception {
        try (VfioUserClient c = connect(3)) {
            assertFalse(writeServingDma(c, TestFunction.DMA_ADDR, WINDOW).isError());
            misbehaviour = Misbehaviour.SILENCE;
            long t0 = System.nanoTime();
            assertNull(writeServingDma(c, TestFunction.DMA_GO, 1), "no reply: the connection closed");
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "closed after the timeout, not hung");
            assertEquals(MessageDma.Result.TIMEOUT, device.lastDma);
        }
        misbehaviour = Misbehaviour.NONE;
        requests.clear();
        try (VfioUserClient next = connect(3)) {
            assertFalse(writeServingDma(next, TestFunction.DMA_GO, 7).isError());
            assertEquals(1, next.read(0, TestFunction.DMA_STATUS, 8));
        }
    }

    @Test
    void aRequestWhereTheReplyBelongsClosesTheConnection() throws Exception {
        try (VfioUserClient c = connect(3)) {
            assertFalse(writeServingDma(c, TestFunction.DMA_ADDR, WINDOW).isError());
            misbehaviour = Misbehaviour.REQUEST_INSTEAD;
            assertNull(writeServingDma(c, TestFunction.DMA_GO, 1));
            assertTrue(c.closedByServer());
        }
        misbehaviour = Misbehaviour.NONE;
        try (VfioUserClient next = connect(3)) {
            assertEquals(0, next.read(0, TestFunction.DMA_STATUS, 8) & ~3L);
        }
    }
}
