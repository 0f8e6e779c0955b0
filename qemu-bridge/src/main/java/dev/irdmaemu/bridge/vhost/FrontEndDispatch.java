package dev.irdmaemu.bridge.vhost;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Routes each front-end request (QEMU docs/interop/vhost-user.rst "Front-end message types") to what handles it:
 * {@link FeatureNegotiation}, {@link MemoryTable} or {@link VringSetup}. A request we do not support (logging,
 * GET_QUEUE_NUM, anything newer) is refused. Runs on the connection thread, under the connection's lock.
 */
final class FrontEndDispatch {
    /** What the back-end still owes the front-end once a request was handled. */
    enum Outcome {
        /** The request's own reply was sent (GET_*): no REPLY_ACK follows. */
        REPLIED,
        /** Nothing was sent: a REPLY_ACK of success follows when the front-end asked for one. */
        ACK_IF_ASKED
    }

    private final FeatureNegotiation features;
    private final MemoryTable memory;
    private final VringSetup rings;
    private final BackEndReply reply;

    FrontEndDispatch(FeatureNegotiation features, MemoryTable memory, VringSetup rings, BackEndReply reply) {
        this.features = features;
        this.memory = memory;
        this.rings = rings;
        this.reply = reply;
    }

    Outcome dispatch(FrontEndMessage msg, OutputStream out) throws IOException, VhostUserException {
        int request = msg.request();
        switch (request) {
            case VhostUserRequest.GET_FEATURES:
                features.getFeatures(msg, reply, out);
                return Outcome.REPLIED;
            case VhostUserRequest.SET_FEATURES:
                features.setFeatures(msg);
                return Outcome.ACK_IF_ASKED;
            case VhostUserRequest.GET_PROTOCOL_FEATURES:
                features.getProtocolFeatures(msg, reply, out);
                return Outcome.REPLIED;
            case VhostUserRequest.SET_PROTOCOL_FEATURES:
                features.setProtocolFeatures(msg);
                return Outcome.ACK_IF_ASKED;
            case VhostUserRequest.SET_OWNER:
                msg.expect(0, 0);
                return Outcome.ACK_IF_ASKED;
            case VhostUserRequest.RESET_OWNER:
                rings.resetOwner(msg);
                return Outcome.ACK_IF_ASKED;
            case VhostUserRequest.SET_MEM_TABLE:
                memory.set(msg);
                return Outcome.ACK_IF_ASKED;
            default:
                return dispatchRing(msg, out);
        }
    }

    private Outcome dispatchRing(FrontEndMessage msg, OutputStream out) throws IOException, VhostUserException {
        int request = msg.request();
        switch (request) {
            case VhostUserRequest.SET_VRING_NUM:
                rings.setNum(msg);
                return Outcome.ACK_IF_ASKED;
            case VhostUserRequest.SET_VRING_ADDR:
                rings.setAddr(msg);
                return Outcome.ACK_IF_ASKED;
            case VhostUserRequest.SET_VRING_BASE:
                rings.setBase(msg);
                return Outcome.ACK_IF_ASKED;
            case VhostUserRequest.GET_VRING_BASE:
                rings.getBase(msg, reply, out);
                return Outcome.REPLIED;
            case VhostUserRequest.SET_VRING_KICK:
            case VhostUserRequest.SET_VRING_CALL:
            case VhostUserRequest.SET_VRING_ERR:
                rings.setNotifier(msg);
                return Outcome.ACK_IF_ASKED;
            case VhostUserRequest.SET_VRING_ENABLE:
                rings.setEnable(msg);
                return Outcome.ACK_IF_ASKED;
            default:
                throw new VhostUserException(VhostUserFailure.UNKNOWN_REQUEST, VhostUserRequest.name(request)
                        + " size " + msg.size());
        }
    }
}
