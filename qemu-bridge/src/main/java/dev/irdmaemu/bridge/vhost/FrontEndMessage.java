package dev.irdmaemu.bridge.vhost;

import static dev.irdmaemu.bridge.vhost.VhostUserRequest.FLAG_NEED_REPLY;
import static dev.irdmaemu.bridge.vhost.VhostUserRequest.HEADER_SIZE;
import static dev.irdmaemu.bridge.vhost.VhostUserRequest.VERSION;
import static dev.irdmaemu.bridge.vhost.VhostUserRequest.VERSION_MASK;

import dev.irdmaemu.bridge.sock.UnixMessageInput;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.newsclub.net.unix.AFUNIXSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The front-end message being handled (QEMU docs/interop/vhost-user.rst "Message Specification"): its header
 * (request, flags, size), its payload and the file descriptors that came with it as ancillary data. One instance
 * per connection, refilled for every message; each handler checks the size and descriptor count it expects
 * before it reads a field.
 */
final class FrontEndMessage {
    private static final Logger LOG = LoggerFactory.getLogger(FrontEndMessage.class);
    /** Larger than any message we accept (a full memory table is 8 + 8·32 bytes); bigger is refused unread. */
    static final int MAX_PAYLOAD = 4096;

    private final byte[] header = new byte[HEADER_SIZE];
    private final ByteBuffer headerView = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
    private final byte[] payload = new byte[MAX_PAYLOAD];
    private final ByteBuffer payloadView = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
    private final List<FileDescriptor> fds = new ArrayList<>();

    /** Reads the 12-byte header; the bytes read (fewer at the end of the stream). */
    int readHeader(InputStream in) throws IOException {
        return UnixMessageInput.readFully(in, header, 0, HEADER_SIZE);
    }

    int request() {
        return headerView.getInt(0);
    }

    int flags() {
        return headerView.getInt(4);
    }

    /** The payload size, a u32. */
    long size() {
        return headerView.getInt(8) & 0xffffffffL;
    }

    /** The front-end asked for a REPLY_ACK (vhost-user.rst "VHOST_USER_PROTOCOL_F_REPLY_ACK"). */
    boolean needsReply() {
        return (flags() & FLAG_NEED_REPLY) != 0;
    }

    /** Refuses a header whose version is not 1 or which sets a bit other than NEED_REPLY, and an oversized payload. */
    void checkHeader() throws VhostUserException {
        int flags = flags();
        String what = VhostUserRequest.name(request());
        if ((flags & VERSION_MASK) != VERSION || (flags & ~(VERSION_MASK | FLAG_NEED_REPLY)) != 0) {
            throw new VhostUserException(VhostUserFailure.BAD_FLAGS, what + " flags 0x" + Integer.toHexString(flags));
        }
        if (size() > MAX_PAYLOAD) {
            throw new VhostUserException(VhostUserFailure.PAYLOAD_TOO_LARGE, what + " size " + size());
        }
    }

    /** Reads the payload the header announced (checked by {@link #checkHeader}); the bytes read. */
    int readPayload(InputStream in) throws IOException {
        return UnixMessageInput.readFully(in, payload, 0, (int) size());
    }

    int u32(int at) {
        return payloadView.getInt(at);
    }

    long u64(int at) {
        return payloadView.getLong(at);
    }

    /** The payload is exactly {@code wantSize} bytes and came with exactly {@code wantFds} descriptors. */
    void expect(int wantSize, int wantFds) throws VhostUserException {
        int size = (int) size();
        if (size != wantSize) {
            throw new VhostUserException(VhostUserFailure.WRONG_SIZE, VhostUserRequest.name(request()) + " size "
                    + size + ", expected " + wantSize);
        }
        expectFds(wantFds);
    }

    /** Exactly {@code want} descriptors came with the message. */
    void expectFds(int want) throws VhostUserException {
        if (fds.size() < want) {
            throw new VhostUserException(VhostUserFailure.MISSING_FD, VhostUserRequest.name(request())
                    + " came with " + fds.size() + " file descriptors, expected " + want);
        }
        if (fds.size() > want) {
            throw new VhostUserException(VhostUserFailure.EXTRA_FD, VhostUserRequest.name(request())
                    + " came with " + fds.size() + " file descriptors, expected " + want);
        }
    }

    int fdCount() {
        return fds.size();
    }

    /** The descriptors as they came; they stay the message's (closed by {@link #closeFds}). */
    FileDescriptor[] fds() {
        return fds.toArray(new FileDescriptor[0]);
    }

    /** Takes the first descriptor over: the caller closes it from now on. */
    FileDescriptor takeFd() {
        return fds.remove(0);
    }

    /** Adds the descriptors that arrived with the bytes read last. */
    void collectFds(AFUNIXSocket socket) throws IOException {
        UnixMessageInput.collectDescriptors(socket, fds);
    }

    /** Closes every descriptor no handler took. */
    void closeFds() {
        for (FileDescriptor fd : fds) {
            closeFd(fd);
        }
        fds.clear();
    }

    static void closeFd(FileDescriptor fd) {
        try {
            new FileInputStream(fd).close();
        } catch (IOException e) {
            LOG.debug("close fd: {}", e.toString());
        }
    }
}
