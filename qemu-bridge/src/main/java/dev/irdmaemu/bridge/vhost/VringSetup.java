package dev.irdmaemu.bridge.vhost;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The front-end's ring messages (QEMU docs/interop/vhost-user.rst "Ring states" and the SET_VRING_* /
 * GET_VRING_BASE requests): the size, the three user addresses, the base index, the kick, call and error
 * notifiers and the enable flag of the two virtio-net rings, each value checked before a ring takes it. A ring
 * starts with its kick and stops on GET_VRING_BASE (or RESET_OWNER), after which it is not touched again until it
 * is set up anew.
 */
final class VringSetup {
    private static final Logger LOG = LoggerFactory.getLogger(VringSetup.class);

    private final String name;
    private final SplitVirtqueue[] queues;
    private final VhostNetPort port;
    private final MemoryTable memory;
    private final FeatureNegotiation features;

    VringSetup(String name, SplitVirtqueue[] queues, VhostNetPort port, MemoryTable memory,
            FeatureNegotiation features) {
        this.name = name;
        this.queues = queues;
        this.port = port;
        this.memory = memory;
        this.features = features;
    }

    /** SET_VRING_NUM: the ring's size; a ring already addressed is re-resolved for it. */
    void setNum(FrontEndMessage msg) throws VhostUserException {
        msg.expect(8, 0);
        SplitVirtqueue q = queue(msg.u32(0));
        q.setSize(msg.u32(4));
        if (q.addressesSet) {
            q.bind(memory.current(), features.eventIdx(), features.indirect(), false);
        }
    }

    /** SET_VRING_ADDR: the descriptor table, used and available rings' user addresses (no logging flags). */
    void setAddr(FrontEndMessage msg) throws VhostUserException {
        msg.expect(VhostUserRequest.VRING_ADDR_SIZE, 0);
        SplitVirtqueue q = queue(msg.u32(0));
        int ringFlags = msg.u32(4);
        if (ringFlags != 0) {
            throw new VhostUserException(VhostUserFailure.BAD_RING_FLAGS, q.name + " flags 0x"
                    + Integer.toHexString(ringFlags));
        }
        q.descUser = msg.u64(8);
        q.usedUser = msg.u64(16);
        q.availUser = msg.u64(24);
        q.bind(memory.current(), features.eventIdx(), features.indirect(), true);
    }

    /** SET_VRING_BASE: the next available index the back-end reads, a 16-bit counter. */
    void setBase(FrontEndMessage msg) throws VhostUserException {
        msg.expect(8, 0);
        SplitVirtqueue q = queue(msg.u32(0));
        int base = msg.u32(4);
        if (base < 0 || base > 0xffff) {
            throw new VhostUserException(VhostUserFailure.BAD_VALUE, q.name + " base "
                    + Integer.toUnsignedString(base));
        }
        q.lastAvailIdx = base;
    }

    /** GET_VRING_BASE: stops the ring and replies with the next available index it would have read. */
    void getBase(FrontEndMessage msg, BackEndReply reply, OutputStream out) throws IOException, VhostUserException {
        msg.expect(8, 0);
        SplitVirtqueue q = queue(msg.u32(0));
        stop(q);
        reply.vringState(out, msg.request(), q.index, q.lastAvailIdx);
    }

    /** SET_VRING_ENABLE: 1 enables the ring, 0 disables it. */
    void setEnable(FrontEndMessage msg) throws VhostUserException {
        msg.expect(8, 0);
        SplitVirtqueue q = queue(msg.u32(0));
        int enable = msg.u32(4);
        if (enable != 0 && enable != 1) {
            throw new VhostUserException(VhostUserFailure.BAD_VALUE, q.name + " enable " + enable);
        }
        q.enableFlag = enable == 1;
        LOG.debug("{}: {} {}", name, q.name, enable == 1 ? "enabled" : "disabled");
    }

    /** RESET_OWNER: vhost-user.rst calls it deprecated; "disable all rings" is the recommended reading. */
    void resetOwner(FrontEndMessage msg) throws VhostUserException {
        msg.expect(0, 0);
        for (SplitVirtqueue q : queues) {
            stop(q);
        }
    }

    /**
     * SET_VRING_KICK, SET_VRING_CALL, SET_VRING_ERR: the ring index in bits 0-7, bit 8 for "no descriptor" (the
     * front-end polls), and otherwise exactly one descriptor.
     */
    void setNotifier(FrontEndMessage msg) throws VhostUserException {
        int request = msg.request();
        if (msg.size() != 8) {
            throw new VhostUserException(VhostUserFailure.WRONG_SIZE, VhostUserRequest.name(request) + " size "
                    + msg.size() + ", expected 8");
        }
        long value = msg.u64(0);
        if ((value & ~(VhostUserRequest.VRING_INDEX_MASK | VhostUserRequest.VRING_NOFD_FLAG)) != 0) {
            throw new VhostUserException(VhostUserFailure.BAD_VALUE, VhostUserRequest.name(request) + " 0x"
                    + Long.toHexString(value));
        }
        SplitVirtqueue q = queue((int) (value & VhostUserRequest.VRING_INDEX_MASK));
        boolean noFd = (value & VhostUserRequest.VRING_NOFD_FLAG) != 0;
        msg.expectFds(noFd ? 0 : 1);
        NotifyFd fd = null;
        if (!noFd) {
            String kind = request == VhostUserRequest.SET_VRING_KICK ? " kick"
                    : request == VhostUserRequest.SET_VRING_CALL ? " call" : " err";
            fd = new NotifyFd(q.name + kind, msg.takeFd());
        }
        if (request == VhostUserRequest.SET_VRING_KICK) {
            kick(q, fd);
        } else if (request == VhostUserRequest.SET_VRING_CALL) {
            NotifyFd old = q.call;
            q.call = fd;
            if (old != null) {
                old.close();
            }
        } else {
            NotifyFd old = q.err;
            q.err = fd;
            if (old != null) {
                old.close();
            }
        }
    }

    /** The ring's kick: a watcher hands each one to the model; vhost-user.rst "Ring states": the ring starts. */
    private void kick(SplitVirtqueue q, NotifyFd fd) {
        KickWatcher old = q.kickWatcher;
        int stamp = q.index == VirtioNet.TX_QUEUE ? HandOffTrace.TX_KICK : HandOffTrace.RX_KICK;
        q.kickWatcher = fd == null ? null : new KickWatcher(fd, () -> {
            port.handOffs().record(stamp);
            port.kicked();
        }).start();
        if (old != null) {
            old.stop();
        }
        // the ring starts with its kick descriptor (or polling, bit 8)
        q.started = true;
    }

    private SplitVirtqueue queue(int index) throws VhostUserException {
        if (index != VirtioNet.RX_QUEUE && index != VirtioNet.TX_QUEUE) {
            throw new VhostUserException(VhostUserFailure.BAD_RING_INDEX, "ring " + Integer.toUnsignedString(index));
        }
        return queues[index];
    }

    /** GET_VRING_BASE / RESET_OWNER: the back-end must not touch the ring again until it is set up anew. */
    private static void stop(SplitVirtqueue q) {
        KickWatcher k = q.kickWatcher;
        q.kickWatcher = null;
        if (k != null) {
            k.stop();
        }
        q.unbind();
    }

    /**
     * The connection ends: unbinds both rings and closes their call and error notifiers; the kick watchers are
     * handed back to be stopped once the connection's lock is released.
     */
    List<KickWatcher> release() {
        List<KickWatcher> watchers = new ArrayList<>();
        for (SplitVirtqueue q : queues) {
            if (q.kickWatcher != null) {
                watchers.add(q.kickWatcher);
                q.kickWatcher = null;
            }
            q.unbind();
            if (q.call != null) {
                q.call.close();
                q.call = null;
            }
            if (q.err != null) {
                q.err.close();
                q.err = null;
            }
        }
        return watchers;
    }
}
