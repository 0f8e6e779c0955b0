package dev.irdmaemu.bridge.vhost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.core.io.IOTools;
import org.newsclub.net.unix.AFPipe;
import org.newsclub.net.unix.AFUNIXSelectorProvider;
import org.newsclub.net.unix.AFUNIXSocket;
import org.newsclub.net.unix.AFUNIXSocketAddress;
import org.newsclub.net.unix.FileDescriptorAccess;
import org.newsclub.net.unix.FileDescriptorCast;

/**
 * Plays QEMU's part (the vhost-user front-end) and the guest's virtio-net driver: guest RAM in a shared temp
 * file (standing in for QEMU's memfd), mapped here and passed as two regions with two descriptors, rings laid out
 * in it, messages sent with their descriptors over junixsocket. Kick, call and error notifiers are pipes (Java
 * cannot make an eventfd; a pipe carries the same 8-byte events, and QEMU itself falls back to pipes where
 * eventfd is missing, vhost-user.rst "Support for platforms other than Linux").
 */
final class FakeQemu implements AutoCloseable {
    static final int TIMEOUT_MILLIS = 5_000;

    // Guest RAM: region 0 low (like QEMU's below-4G RAM), region 1 above 4 GiB, at unrelated user addresses and
    // at a non-zero offset in the same file, so all three address spaces differ.
    static final long R0_GPA = 0x0;
    static final long R0_SIZE = 0x10_0000;
    static final long R0_UA = 0x7f00_0000_0000L;
    static final long R0_FILE = 0;
    static final long R1_GPA = 0x1_0000_0000L;
    static final long R1_SIZE = 0x30_0000;
    static final long R1_UA = 0x7e40_0020_0000L;
    static final long R1_FILE = 0x10_0000;
    static final long FILE_SIZE = R1_FILE + R1_SIZE;

    static final int QUEUE_SIZE = 256;
    // Rings of both queues in region 1; buffers anywhere.
    static final long[] DESC_GPA = {R1_GPA + 0x1000, R1_GPA + 0x5000};
    static final long[] AVAIL_GPA = {R1_GPA + 0x9000, R1_GPA + 0xa000};
    static final long[] USED_GPA = {R1_GPA + 0xb000, R1_GPA + 0xd000};

    final Path memFile;
    private final RandomAccessFile ram;
    final MappedByteBuffer mem;
    final AFUNIXSocket socket;
    private final InputStream in;
    private final OutputStream out;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    final AFPipe[] kick = new AFPipe[2];
    final AFPipe[] call = new AFPipe[2];
    final AFPipe[] err = new AFPipe[2];
    final int[] availIdx = new int[2];
    final int[] usedSeen = new int[2];

    FakeQemu(Path socketPath, Path dir) throws IOException {
        memFile = Files.createTempFile(dir, "guest-ram", ".bin");
        ram = new RandomAccessFile(memFile.toFile(), "rw");
        ram.setLength(FILE_SIZE);
        mem = ram.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, FILE_SIZE);
        mem.order(ByteOrder.LITTLE_ENDIAN);
        socket = AFUNIXSocket.connectTo(AFUNIXSocketAddress.of(new File(socketPath.toString())));
        socket.setSoTimeout(TIMEOUT_MILLIS);
        in = socket.getInputStream();
        out = socket.getOutputStream();
        for (int q = 0; q < 2; q++) {
            kick[q] = pipe();
            call[q] = pipe();
            err[q] = pipe();
            call[q].source().configureBlocking(false);
        }
    }

    private AFPipe pipe() throws IOException {
        AFPipe p = AFUNIXSelectorProvider.provider().openPipe();
        closeables.add(p);
        return p;
    }

    static FileDescriptor fd(Object channel) throws IOException {
        return ((FileDescriptorAccess) channel).getFileDescriptor();
    }

    static int fdNumber(FileDescriptor fd) throws IOException {
        return FileDescriptorCast.using(fd).as(Integer.class);
    }

    FileDescriptor ramFd() throws IOException {
        return ram.getFD();
    }

    // ---- messages ----

    void send(int request, int flags, ByteBuffer payload, FileDescriptor... fds) throws IOException {
        int size = payload == null ? 0 : payload.limit();
        sendRaw(request, flags, size, payload, fds);
    }

    /** A header claiming {@code size} followed by whatever {@code payload} holds (a liar's message). */
    void sendRaw(int request, int flags, int size, ByteBuffer payload, FileDescriptor... fds) throws IOException {
        int len = payload == null ? 0 : payload.limit();
        ByteBuffer b = ByteBuffer.allocate(12 + len).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(request).putInt(flags).putInt(size);
        if (payload != null) {
            b.put(payload.duplicate().position(0));
        }
        if (fds.length > 0) {
            socket.setOutboundFileDescriptors(fds);
        }
        out.write(b.array());
        out.flush();
    }

    void send(int request, ByteBuffer payload, FileDescriptor... fds) throws IOException {
        send(request, VhostUserRequest.VERSION, payload, fds);
    }

    void writeBytes(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    static ByteBuffer u64(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, v);
    }

    static ByteBuffer state(int index, int num) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(0, index).putInt(4, num);
    }

    static ByteBuffer ringAddr(int index, long descUa, long usedUa, long availUa) {
        return ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN).putInt(0, index).putInt(4, 0)
                .putLong(8, descUa).putLong(16, usedUa).putLong(24, availUa).putLong(32, 0);
    }

    /** The memory table of the two standard regions (or of {@code n} copies of small regions, for liars). */
    static ByteBuffer memTable(int n) {
        ByteBuffer b = ByteBuffer.allocate(8 + 32 * n).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, n);
        for (int i = 0; i < n; i++) {
            int at = 8 + 32 * i;
            if (n == 2) {
                long[] r = i == 0 ? new long[] {R0_GPA, R0_SIZE, R0_UA, R0_FILE}
                        : new long[] {R1_GPA, R1_SIZE, R1_UA, R1_FILE};
                b.putLong(at, r[0]).putLong(at + 8, r[1]).putLong(at + 16, r[2]).putLong(at + 24, r[3]);
            } else {
                b.putLong(at, 0x10000L * i).putLong(at + 8, 0x1000).putLong(at + 16, R0_UA + 0x10000L * i)
                        .putLong(at + 24, 0x1000L * i);
            }
        }
        return b;
    }

    /** Reads one reply: {request, flags, size, payload}. */
    ByteBuffer reply(int request) throws IOException {
        byte[] h = readExactly(12);
        ByteBuffer hb = ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(request, hb.getInt(0), "reply to " + VhostUserRequest.name(request));
        assertEquals(VhostUserRequest.VERSION | VhostUserRequest.FLAG_REPLY, hb.getInt(4), "reply flags");
        return ByteBuffer.wrap(readExactly(hb.getInt(8))).order(ByteOrder.LITTLE_ENDIAN);
    }

    long getU64(int request) throws IOException {
        send(request, null);
        ByteBuffer p = reply(request);
        assertEquals(8, p.limit());
        return p.getLong(0);
    }

    /** Sends with NEED_REPLY and checks the REPLY_ACK is 0 (success). */
    void sendAcked(int request, ByteBuffer payload, FileDescriptor... fds) throws IOException {
        send(request, VhostUserRequest.VERSION | VhostUserRequest.FLAG_NEED_REPLY, payload, fds);
        ByteBuffer p = reply(request);
        assertEquals(0, p.getLong(0), VhostUserRequest.name(request) + " acked");
    }

    private byte[] readExactly(int n) throws IOException {
        byte[] b = new byte[n];
        int got = 0;
        while (got < n) {
            int r = in.read(b, got, n - got);
            if (r < 0) {
                throw new IOException("connection closed after " + got + " of " + n + " bytes");
            }
            got += r;
        }
        return b;
    }

    /** True when the back-end closed the connection (end of stream or reset) before the timeout. */
    boolean awaitClosedByBackend() throws IOException {
        try {
            while (true) {
                if (in.read() < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true;
        }
    }

    // ---- the QEMU 11.1 start-up sequence (issue 6, "Seen here with a probe") ----

    /** Connect-time messages: GET_FEATURES, [protocol features], SET_OWNER, GET_FEATURES, SET_VRING_CALL/ERR. */
    long connectSequence(boolean protocolFeatures, AFPipe[] initialCall) throws IOException {
        long offered = getU64(VhostUserRequest.GET_FEATURES);
        if (protocolFeatures) {
            assertTrue((offered & 1L << VirtioNet.F_PROTOCOL_FEATURES) != 0);
            long proto = getU64(VhostUserRequest.GET_PROTOCOL_FEATURES);
            assertTrue((proto & 1L << VhostUserRequest.PROTOCOL_F_REPLY_ACK) != 0, "REPLY_ACK offered");
            send(VhostUserRequest.SET_PROTOCOL_FEATURES, u64(1L << VhostUserRequest.PROTOCOL_F_REPLY_ACK));
        }
        send(VhostUserRequest.SET_OWNER, null);
        assertEquals(offered, getU64(VhostUserRequest.GET_FEATURES));
        for (int q = 0; q < 2; q++) {
            send(VhostUserRequest.SET_VRING_CALL, u64(q), fd(initialCall[q].sink()));
            send(VhostUserRequest.SET_VRING_ERR, u64(q), fd(err[q].sink()));
        }
        return offered;
    }

    /** Driver-start messages: SET_FEATURES, SET_MEM_TABLE (2 fds), then NUM/BASE/ADDR/KICK/CALL per ring. */
    void startSequence(long features, boolean protocolFeatures) throws IOException {
        if (protocolFeatures) {
            sendAcked(VhostUserRequest.SET_FEATURES, u64(features));
            sendAcked(VhostUserRequest.SET_MEM_TABLE, memTable(2), ramFd(), ramFd());
        } else {
            send(VhostUserRequest.SET_FEATURES, u64(features));
            send(VhostUserRequest.SET_MEM_TABLE, memTable(2), ramFd(), ramFd());
        }
        for (int q = 0; q < 2; q++) {
            startRing(q, QUEUE_SIZE);
        }
        if (protocolFeatures) {
            for (int q = 0; q < 2; q++) {
                send(VhostUserRequest.SET_VRING_ENABLE, state(q, 1));
            }
        }
        // a round trip: every message before it has been handled
        getU64(VhostUserRequest.GET_FEATURES);
    }

    void startRing(int q, int num) throws IOException {
        clearRing(q, num);
        send(VhostUserRequest.SET_VRING_NUM, state(q, num));
        send(VhostUserRequest.SET_VRING_BASE, state(q, 0));
        send(VhostUserRequest.SET_VRING_ADDR, ringAddr(q, ua(DESC_GPA[q]), ua(USED_GPA[q]), ua(AVAIL_GPA[q])));
        send(VhostUserRequest.SET_VRING_KICK, u64(q), fd(kick[q].source()));
        send(VhostUserRequest.SET_VRING_CALL, u64(q), fd(call[q].sink()));
    }

    void clearRing(int q, int num) {
        for (long i = 0; i < 16L * num; i++) {
            mem.put(file(DESC_GPA[q] + i), (byte) 0);
        }
        for (long i = 0; i < 6 + 2L * num; i++) {
            mem.put(file(AVAIL_GPA[q] + i), (byte) 0);
        }
        for (long i = 0; i < 6 + 8L * num; i++) {
            mem.put(file(USED_GPA[q] + i), (byte) 0);
        }
        availIdx[q] = 0;
        usedSeen[q] = 0;
    }

    // ---- guest memory and the driver side of the rings ----

    static long ua(long gpa) {
        if (gpa >= R1_GPA && gpa < R1_GPA + R1_SIZE) {
            return R1_UA + (gpa - R1_GPA);
        }
        if (gpa >= R0_GPA && gpa < R0_GPA + R0_SIZE) {
            return R0_UA + (gpa - R0_GPA);
        }
        throw new IllegalArgumentException("gpa 0x" + Long.toHexString(gpa) + " not in guest RAM");
    }

    static int file(long gpa) {
        if (gpa >= R1_GPA && gpa < R1_GPA + R1_SIZE) {
            return (int) (R1_FILE + gpa - R1_GPA);
        }
        if (gpa >= R0_GPA && gpa < R0_GPA + R0_SIZE) {
            return (int) (R0_FILE + gpa - R0_GPA);
        }
        throw new IllegalArgumentException("gpa 0x" + Long.toHexString(gpa) + " not in guest RAM");
    }

    void desc(int q, int i, long addr, int len, int flags, int next) {
        descAt(DESC_GPA[q] + 16L * i, addr, len, flags, next);
    }

    void descAt(long gpa, long addr, int len, int flags, int next) {
        int at = file(gpa);
        mem.putLong(at, addr).putInt(at + 8, len).putShort(at + 12, (short) flags).putShort(at + 14, (short) next);
    }

    void put(long gpa, byte[] bytes) {
        int at = file(gpa);
        for (int i = 0; i < bytes.length; i++) {
            mem.put(at + i, bytes[i]);
        }
    }

    byte[] get(long gpa, int len) {
        byte[] b = new byte[len];
        int at = file(gpa);
        for (int i = 0; i < len; i++) {
            b[i] = mem.get(at + i);
        }
        return b;
    }

    /** Makes chain {@code head} available and publishes the new avail idx. */
    void offer(int q, int head) {
        mem.putShort(file(AVAIL_GPA[q] + 4 + 2L * (availIdx[q] % QUEUE_SIZE)), (short) head);
        availIdx[q] = (availIdx[q] + 1) & 0xffff;
        mem.putShort(file(AVAIL_GPA[q] + 2), (short) availIdx[q]);
    }

    void setAvailIdx(int q, int idx) {
        mem.putShort(file(AVAIL_GPA[q] + 2), (short) idx);
    }

    void setAvailFlags(int q, int flags) {
        mem.putShort(file(AVAIL_GPA[q]), (short) flags);
    }

    void setUsedEvent(int q, int value) {
        mem.putShort(file(AVAIL_GPA[q] + 4 + 2L * QUEUE_SIZE), (short) value);
    }

    int availEvent(int q) {
        return mem.getShort(file(USED_GPA[q] + 4 + 8L * QUEUE_SIZE)) & 0xffff;
    }

    int usedIdx(int q) {
        return mem.getShort(file(USED_GPA[q] + 2)) & 0xffff;
    }

    /** Used ring entry {@code i}: {id, len}. */
    long[] used(int q, int i) {
        int at = file(USED_GPA[q] + 4 + 8L * (i % QUEUE_SIZE));
        return new long[] {mem.getInt(at) & 0xffffffffL, mem.getInt(at + 4) & 0xffffffffL};
    }

    void kick(int q) throws IOException {
        kick[q].sink().write(u64(1));
    }

    /** Events waiting on ring {@code q}'s call pipe now (the back-end signals before its flushToGuest returns). */
    int callsPending(int q) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8 * 64);
        int n = call[q].source().read(b);
        return n <= 0 ? 0 : n / 8;
    }

    /** Spare notifier pipes (e.g. the call descriptors QEMU sends at connect time and replaces later). */
    static final class AFPipeHolder implements AutoCloseable {
        final AFPipe[] pipes = new AFPipe[2];

        AFPipeHolder() throws IOException {
            for (int i = 0; i < 2; i++) {
                pipes[i] = AFUNIXSelectorProvider.provider().openPipe();
            }
        }

        @Override
        public void close() throws IOException {
            for (AFPipe p : pipes) {
                p.close();
            }
        }
    }

    @Override
    public void close() throws Exception {
        try {
            socket.close();
        } finally {
            for (AutoCloseable c : closeables) {
                c.close();
            }
            IOTools.clean(mem);
            ram.close();
            Files.deleteIfExists(memFile);
        }
    }
}
