package dev.irdmaemu.bridge.vfiouser;

import dev.irdmaemu.bridge.sock.UnixMessageInput;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.newsclub.net.unix.AFUNIXSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DMA to the windows a client mapped without a file descriptor: the server asks the client with VFIO_USER_DMA_READ
 * (11) and VFIO_USER_DMA_WRITE (12) (vfio-user.rst "VFIO_USER_DMA_READ"/"VFIO_USER_DMA_WRITE": payload address u64,
 * count u64, then the data; a read's reply carries the data, a write's reply the address and count), at most the
 * client's {@code max_data_xfer_size} per message (VERSION; 1 MiB when it names none) and at most our own
 * {@link VfioUserConnection#MAX_DATA_XFER}, so a longer access is several messages, in address order.
 *
 * <p>The answer comes on the connection's socket. Two cases:
 * <ul>
 *   <li>the access runs inside a device call the connection thread is waiting for (an MMIO write whose handler
 *       does DMA, the usual case): the connection thread is parked and reads nothing, so the requester reads the
 *       reply itself, with the timeout as the socket's read timeout;</li>
 *   <li>otherwise (a device timer) the connection thread is in its read loop and hands the reply over
 *       ({@link #takeReply}).</li>
 * </ul>
 * A reply with the ERROR flag fails the access with the client's errno ({@link Result#CLIENT_ERROR}); a reply of
 * the wrong size, address or count fails it ({@link Result#BAD_REPLY}); a client that does not answer within the
 * timeout, or sends a request while one of ours waits inside a device call, fails it too and the connection is
 * closed with the reason logged: a late answer could no longer be told from the next message. Nothing here throws
 * on client input. One access at a time (synchronized): QEMU serves these on its main loop, one by one.
 */
public final class MessageDma {
    private static final Logger LOG = LoggerFactory.getLogger(MessageDma.class);
    /** address u64 + count u64 (struct vfio_user_dma_region_access). */
    static final int ACCESS_HEADER = 16;

    /** What one access came to. */
    public enum Result {
        OK,
        /** The range is not inside one message-only window (or, for a write, not a writable one). */
        OUTSIDE_WINDOWS,
        /** The client answered with an error reply. */
        CLIENT_ERROR,
        /** The client's reply did not match the request (size, address, count, command). */
        BAD_REPLY,
        /** No answer within the timeout: the connection is being closed. */
        TIMEOUT,
        /** The connection is closed (or closing). */
        CLOSED
    }

    private final String name;
    private final AFUNIXSocket socket;
    private final OutputStream out;
    private final Object writeLock;
    private final DeviceCalls calls;
    private final long timeoutMillis;
    private final Consumer<String> abort;
    private final List<DmaWindow> windows = new ArrayList<>();
    private final byte[] message = new byte[VfioUserHeader.SIZE + ACCESS_HEADER + VfioUserConnection.MAX_DATA_XFER];
    private final ByteBuffer buf = ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN);
    private final byte[] reply = new byte[VfioUserHeader.SIZE + ACCESS_HEADER + VfioUserConnection.MAX_DATA_XFER];
    private final ByteBuffer replyBuf = ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN);

    private long maxTransfer = VfioUserConnection.MAX_DATA_XFER;
    private int nextId = 0x8000;
    /** A request waits for the read loop to hand its reply over: the one of id {@link #pendingId}. */
    private boolean pending;
    private int pendingId;
    private int pendingCommand;
    private boolean replyReady;
    /** The length of the reply in {@link #reply}, once one was read (by us or handed over by the read loop). */
    private int replyLength;
    private final Object pendingLock = new Object();
    private volatile boolean closed;
    private int clientErrno;
    private long accesses;
    private long failures;

    MessageDma(String name, AFUNIXSocket socket, OutputStream out, Object writeLock, DeviceCalls calls,
               long timeoutMillis, Consumer<String> abort) {
        this.name = name;
        this.socket = socket;
        this.out = out;
        this.writeLock = writeLock;
        this.calls = calls;
        this.timeoutMillis = timeoutMillis;
        this.abort = abort;
    }

    /** The client's max_data_xfer_size (VERSION): each message carries at most this much, and at most ours. */
    void clientMaxTransfer(long bytes) {
        maxTransfer = Math.max(1, Math.min(bytes, VfioUserConnection.MAX_DATA_XFER));
    }

    long maxTransfer() {
        return maxTransfer;
    }

    synchronized void addWindow(DmaWindow w) {
        windows.add(w);
    }

    synchronized void removeWindow(DmaWindow w) {
        windows.remove(w);
    }

    /** The connection is gone: every later access answers {@link Result#CLOSED}, a waiting one is woken. */
    void close() {
        closed = true;
        synchronized (pendingLock) {
            pendingLock.notifyAll();
        }
    }

    /** The errno of the last {@link Result#CLIENT_ERROR}. */
    public int clientErrno() {
        return clientErrno;
    }

    public long accesses() {
        return accesses;
    }

    public long failures() {
        return failures;
    }

    /** True when {@code [address, address + length)} lies in one message-only window (writable, for a write). */
    public synchronized boolean covers(long address, long length, boolean write) {
        for (DmaWindow w : windows) {
            if (length >= 0 && address >= w.address() && address - w.address() <= w.size() - length
                    && (!write || w.writable())) {
                return true;
            }
        }
        return false;
    }

    /** Reads {@code length} bytes of guest memory at {@code address} into {@code dst[offset..]}. */
    public synchronized Result read(long address, byte[] dst, int offset, int length) {
        return access(VfioUserCommand.DMA_READ, address, dst, offset, length);
    }

    /** Writes {@code src[offset..offset + length)} to guest memory at {@code address}. */
    public synchronized Result write(long address, byte[] src, int offset, int length) {
        return access(VfioUserCommand.DMA_WRITE, address, src, offset, length);
    }

    private Result access(int command, long address, byte[] data, int offset, int length) {
        if (closed) {
            return Result.CLOSED;
        }
        if (offset < 0 || length < 0 || offset > data.length - length
                || !covers(address, length, command == VfioUserCommand.DMA_WRITE)) {
            return Result.OUTSIDE_WINDOWS;
        }
        accesses++;
        int done = 0;
        while (done < length) {
            int chunk = (int) Math.min(maxTransfer, length - done);
            Result r = exchange(command, address + done, data, offset + done, chunk);
            if (r != Result.OK) {
                failures++;
                return r;
            }
            done += chunk;
        }
        return Result.OK;
    }

    /** One request and its reply. */
    private Result exchange(int command, long address, byte[] data, int offset, int count) {
        int id = nextId;
        nextId = nextId == 0xFFFF ? 0x8000 : nextId + 1;
        boolean write = command == VfioUserCommand.DMA_WRITE;
        int size = VfioUserHeader.SIZE + ACCESS_HEADER + (write ? count : 0);
        buf.putShort(0, (short) id).putShort(2, (short) command).putInt(4, size).putInt(8,
                VfioUserHeader.TYPE_REQUEST).putInt(12, 0);
        buf.putLong(VfioUserHeader.SIZE, address).putLong(VfioUserHeader.SIZE + 8, count);
        if (write) {
            System.arraycopy(data, offset, message, VfioUserHeader.SIZE + ACCESS_HEADER, count);
        }
        // inside a device call the connection thread is parked: we read the reply ourselves
        boolean direct = calls.waiting();
        if (!direct) {
            synchronized (pendingLock) {
                pending = true;
                pendingId = id;
                pendingCommand = command;
                replyReady = false;
            }
        }
        try {
            synchronized (writeLock) {
                out.write(message, 0, size);
            }
        } catch (IOException e) {
            clearPending();
            closed = true;
            return Result.CLOSED;
        }
        Result got = direct ? readReplyDirect(id, command) : awaitReply();
        if (got != Result.OK) {
            return got;
        }
        return checkReply(id, command, address, data, offset, count, replyLength);
    }

    private void clearPending() {
        synchronized (pendingLock) {
            pending = false;
        }
    }

    /**
     * Waits for the read loop to hand the reply over: OK (the reply is in {@link #reply}, {@link #replyLength}
     * bytes), TIMEOUT, or CLOSED.
     */
    private Result awaitReply() {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        synchronized (pendingLock) {
            while (!replyReady && !closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    pending = false;
                    timedOut();
                    return Result.TIMEOUT;
                }
                try {
                    pendingLock.wait(Math.max(1, left / 1_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    pending = false;
                    return Result.CLOSED;
                }
            }
            pending = false;
            return replyReady ? Result.OK : Result.CLOSED;
        }
    }

    /**
     * Reads the reply from the socket ourselves: OK (the reply is in {@link #reply}, {@link #replyLength} bytes),
     * TIMEOUT, CLOSED, or BAD_REPLY (not the reply to our request: the connection is closed).
     */
    private Result readReplyDirect(int id, int command) {
        try {
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, timeoutMillis)));
            try {
                InputStream in = socket.getInputStream();
                if (!UnixMessageInput.readExactly(in, reply, 0, VfioUserHeader.SIZE)) {
                    closed = true;
                    abort.accept("hung up while a DMA " + (command == VfioUserCommand.DMA_READ ? "read" : "write")
                            + " waited for its reply");
                    return Result.CLOSED;
                }
                int type = replyBuf.getInt(8) & VfioUserHeader.TYPE_MASK;
                long size = replyBuf.getInt(4) & 0xFFFF_FFFFL;
                if (type != VfioUserHeader.TYPE_REPLY || (replyBuf.getShort(0) & 0xFFFF) != id
                        || size < VfioUserHeader.SIZE || size > reply.length) {
                    closed = true;
                    abort.accept("sent " + VfioUserCommand.name(replyBuf.getShort(2) & 0xFFFF) + " (type " + type
                            + ", id " + (replyBuf.getShort(0) & 0xFFFF) + ", size " + size + ") while the device"
                            + " waited for the reply to its " + VfioUserCommand.name(command) + " id " + id);
                    return Result.BAD_REPLY;
                }
                if (!UnixMessageInput.readExactly(in, reply, VfioUserHeader.SIZE, (int) size - VfioUserHeader.SIZE)) {
                    closed = true;
                    abort.accept("hung up inside the reply to " + VfioUserCommand.name(command));
                    return Result.CLOSED;
                }
                replyLength = (int) size;
                return Result.OK;
            } finally {
                socket.setSoTimeout(0);
            }
        } catch (SocketTimeoutException e) {
            timedOut();
            return Result.TIMEOUT;
        } catch (IOException e) {
            closed = true;
            abort.accept("I/O error waiting for a DMA reply: " + e);
            return Result.CLOSED;
        }
    }

    private void timedOut() {
        closed = true;
        abort.accept("no reply to a server DMA request within " + timeoutMillis + " ms");
    }

    /** What {@link #takeReply} did with a reply the read loop found. */
    enum Taken { TAKEN, NOT_EXPECTED, HUNG_UP }

    /**
     * Called by the read loop for a message of type reply whose header is in {@code header[0..16)}: reads its
     * payload from {@code in} into our buffer when it answers the pending request. A reply nothing waits for is
     * left unread ({@link Taken#NOT_EXPECTED}: the stream is out of step, the caller closes it).
     */
    Taken takeReply(byte[] header, InputStream in) throws IOException {
        ByteBuffer h = ByteBuffer.wrap(header, 0, VfioUserHeader.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        int id = h.getShort(0) & 0xFFFF;
        long size = h.getInt(4) & 0xFFFF_FFFFL;
        synchronized (pendingLock) {
            if (!pending || id != pendingId || replyReady || size < VfioUserHeader.SIZE || size > reply.length) {
                return Taken.NOT_EXPECTED;
            }
            System.arraycopy(header, 0, reply, 0, VfioUserHeader.SIZE);
            if (!UnixMessageInput.readExactly(in, reply, VfioUserHeader.SIZE, (int) size - VfioUserHeader.SIZE)) {
                return Taken.HUNG_UP;
            }
            replyLength = (int) size;
            replyReady = true;
            pendingLock.notifyAll();
            return Taken.TAKEN;
        }
    }

    private Result checkReply(int id, int command, long address, byte[] data, int offset, int count, int size) {
        int flags = replyBuf.getInt(8);
        if ((replyBuf.getShort(2) & 0xFFFF) != command) {
            return bad(command, "a reply for command " + (replyBuf.getShort(2) & 0xFFFF));
        }
        if ((flags & VfioUserHeader.FLAG_ERROR) != 0) {
            clientErrno = replyBuf.getInt(12);
            LOG.warn("vfio-user {}: {} 0x{}+{} refused by the client: errno {}", name, VfioUserCommand.name(command),
                    Long.toHexString(address), count, clientErrno);
            return Result.CLIENT_ERROR;
        }
        boolean read = command == VfioUserCommand.DMA_READ;
        int expected = VfioUserHeader.SIZE + ACCESS_HEADER + (read ? count : 0);
        if (size != expected) {
            return bad(command, "a reply of " + size + " bytes, not " + expected);
        }
        if (replyBuf.getLong(VfioUserHeader.SIZE) != address || replyBuf.getLong(VfioUserHeader.SIZE + 8) != count) {
            return bad(command, "a reply for 0x" + Long.toHexString(replyBuf.getLong(VfioUserHeader.SIZE)) + "+"
                    + replyBuf.getLong(VfioUserHeader.SIZE + 8) + ", not 0x" + Long.toHexString(address) + "+" + count);
        }
        if (read) {
            System.arraycopy(reply, VfioUserHeader.SIZE + ACCESS_HEADER, data, offset, count);
        }
        return Result.OK;
    }

    private Result bad(int command, String why) {
        LOG.warn("vfio-user {}: {} got {}", name, VfioUserCommand.name(command), why);
        return Result.BAD_REPLY;
    }
}
