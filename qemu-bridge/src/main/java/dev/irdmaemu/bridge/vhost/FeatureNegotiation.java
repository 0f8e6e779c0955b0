package dev.irdmaemu.bridge.vhost;

import java.io.IOException;
import java.io.OutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The virtio and vhost-user feature bits of one connection (QEMU docs/interop/vhost-user.rst, the GET/SET_FEATURES
 * messages and "Protocol features"; virtio 1.x §2.2): GET_FEATURES / SET_FEATURES and GET_PROTOCOL_FEATURES /
 * SET_PROTOCOL_FEATURES, refusing any bit that was not offered, and the acknowledged bits the rings and the data
 * path ask about.
 */
final class FeatureNegotiation {
    private static final Logger LOG = LoggerFactory.getLogger(FeatureNegotiation.class);

    private final String name;
    private final SplitVirtqueue[] queues;
    private final long offered = VirtioNet.offeredFeatures();
    private long acked;
    private long ackedProtocol;

    FeatureNegotiation(String name, SplitVirtqueue[] queues) {
        this.name = name;
        this.queues = queues;
    }

    /** GET_FEATURES: the device features we offer. */
    void getFeatures(FrontEndMessage msg, BackEndReply reply, OutputStream out)
            throws IOException, VhostUserException {
        msg.expect(0, 0);
        reply.u64(out, msg.request(), offered);
    }

    /** SET_FEATURES: a subset of what was offered, VERSION_1 included; passed on to both rings. */
    void setFeatures(FrontEndMessage msg) throws VhostUserException {
        msg.expect(8, 0);
        long f = msg.u64(0);
        if ((f & ~offered) != 0 || (f & 1L << VirtioNet.F_VERSION_1) == 0) {
            throw new VhostUserException(VhostUserFailure.UNSUPPORTED_FEATURES, "SET_FEATURES 0x"
                    + Long.toHexString(f) + " offered 0x" + Long.toHexString(offered));
        }
        acked = f;
        LOG.info("{}: features 0x{} (offered 0x{})", name, Long.toHexString(f), Long.toHexString(offered));
        for (SplitVirtqueue q : queues) {
            q.features(eventIdx(), indirect());
        }
    }

    /** GET_PROTOCOL_FEATURES: the vhost-user protocol features we offer. */
    void getProtocolFeatures(FrontEndMessage msg, BackEndReply reply, OutputStream out)
            throws IOException, VhostUserException {
        msg.expect(0, 0);
        reply.u64(out, msg.request(), VirtioNet.OFFERED_PROTOCOL_FEATURES);
    }

    /** SET_PROTOCOL_FEATURES: a subset of what was offered. */
    void setProtocolFeatures(FrontEndMessage msg) throws VhostUserException {
        msg.expect(8, 0);
        long f = msg.u64(0);
        if ((f & ~VirtioNet.OFFERED_PROTOCOL_FEATURES) != 0) {
            throw new VhostUserException(VhostUserFailure.UNSUPPORTED_FEATURES, "SET_PROTOCOL_FEATURES 0x"
                    + Long.toHexString(f));
        }
        ackedProtocol = f;
    }

    /** The acknowledged virtio feature bits (the transmit offloads read them). */
    long acked() {
        return acked;
    }

    private boolean has(int bit) {
        return (acked & 1L << bit) != 0;
    }

    boolean eventIdx() {
        return has(VirtioNet.F_EVENT_IDX);
    }

    boolean indirect() {
        return has(VirtioNet.F_INDIRECT_DESC);
    }

    boolean guestCsum() {
        return has(VirtioNet.F_GUEST_CSUM);
    }

    boolean mergeable() {
        return has(VirtioNet.F_MRG_RXBUF);
    }

    boolean guestTso4() {
        return has(VirtioNet.F_GUEST_TSO4);
    }

    boolean guestTso6() {
        return has(VirtioNet.F_GUEST_TSO6);
    }

    /** vhost-user.rst "Ring states": without PROTOCOL_FEATURES a started ring is enabled at once. */
    boolean enabled(SplitVirtqueue q) {
        return !has(VirtioNet.F_PROTOCOL_FEATURES) || q.enableFlag;
    }
}
