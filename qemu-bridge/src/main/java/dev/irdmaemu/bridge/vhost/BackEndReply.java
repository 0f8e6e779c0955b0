package dev.irdmaemu.bridge.vhost;

import static dev.irdmaemu.bridge.vhost.VhostUserRequest.FLAG_REPLY;
import static dev.irdmaemu.bridge.vhost.VhostUserRequest.HEADER_SIZE;
import static dev.irdmaemu.bridge.vhost.VhostUserRequest.VERSION;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The back-end's replies on the front-end socket (QEMU docs/interop/vhost-user.rst "Header" with the REPLY flag):
 * a u64 (GET_FEATURES, GET_PROTOCOL_FEATURES, and the REPLY_ACK status: 0 success, non-zero failure) or a vring
 * state (GET_VRING_BASE: index and num). One reused buffer; written on the connection thread only.
 */
final class BackEndReply {
    /** REPLY_ACK's payload: zero for success. */
    static final long ACK_SUCCESS = 0;
    /** REPLY_ACK's payload: non-zero for failure. */
    static final long ACK_FAILURE = 1;

    private final byte[] reply = new byte[HEADER_SIZE + 16];
    private final ByteBuffer replyView = ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN);

    /** A reply to {@code request} carrying one u64. */
    void u64(OutputStream out, int request, long value) throws IOException {
        replyView.putInt(0, request).putInt(4, VERSION | FLAG_REPLY).putInt(8, 8).putLong(HEADER_SIZE, value);
        out.write(reply, 0, HEADER_SIZE + 8);
    }

    /** A reply to {@code request} carrying a vring state: the ring's index, then its num (here the next avail idx). */
    void vringState(OutputStream out, int request, int index, int num) throws IOException {
        replyView.putInt(0, request).putInt(4, VERSION | FLAG_REPLY).putInt(8, 8)
                .putInt(HEADER_SIZE, index).putInt(HEADER_SIZE + 4, num);
        out.write(reply, 0, HEADER_SIZE + 8);
    }

    /** vhost-user.rst REPLY_ACK: whether {@code request} is answered by an ack rather than by its own reply. */
    static boolean acksWithU64(int request) {
        return request != VhostUserRequest.GET_FEATURES && request != VhostUserRequest.GET_PROTOCOL_FEATURES
                && request != VhostUserRequest.GET_VRING_BASE;
    }
}
