package dev.irdmaemu.bridge.vhost;

import static dev.irdmaemu.bridge.vhost.VhostUserRequest.FLAG_NEED_REPLY;
import static dev.irdmaemu.bridge.vhost.VhostUserRequest.FLAG_REPLY;
import static dev.irdmaemu.bridge.vhost.VhostUserRequest.HEADER_SIZE;
import static dev.irdmaemu.bridge.vhost.VhostUserRequest.VERSION;
import static dev.irdmaemu.bridge.vhost.VhostUserRequest.VERSION_MASK;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import net.openhft.chronicle.bytes.BytesStore;
import org.newsclub.net.unix.AFUNIXSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One front-end connection: reads vhost-user messages (vhost-user.rst "Message Specification") on its own thread,
 * checks every size, file-descriptor count and value before use, and drives the virtio-net device state (memory
 * table, two split virtqueues). The data path ({@link #receive}, {@link #transmit}) runs on the model's thread.
 * One lock guards all of it, so memory is never unmapped under a ring access.
 *
 * <p>Any broken rule, from the front-end or from the guest's rings, is logged at ERROR with its reason and closes
 * this connection only; every descriptor received is closed and every mapping released.
 */
final class VhostUserConnection implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(VhostUserConnection.class);
    /** Larger than any message we accept (a full memory table is 8 + 8·32 bytes); bigger is refused unread. */
    static final int MAX_PAYLOAD = 4096;
    private static final int ANCILLARY_BUFFER = 1024;

    private final AFUNIXSocket socket;
    private final VhostNetPort port;
    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    private final SplitVirtqueue[] queues = new SplitVirtqueue[VirtioNet.QUEUES];
    private final byte[] header = new byte[HEADER_SIZE];
    private final ByteBuffer headerView = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
    private final byte[] payload = new byte[MAX_PAYLOAD];
    private final ByteBuffer payloadView = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
    private final byte[] reply = new byte[HEADER_SIZE + 16];
    private final ByteBuffer replyView = ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN);
    private final List<FileDescriptor> fds = new ArrayList<>();

    // Reused on the data path: the transmit staging buffer (virtio-net header, then the frame), the receive header,
    // the offloads' flyweights and the receiver the model's frames go through.
    private final BytesStore<?, Void> txFrame = BytesStore.nativeStoreWithFixedCapacity(
            VirtioNet.NET_HEADER_SIZE + VhostNetPort.MAX_FRAME);
    private final BytesStore<?, Void> rxHeader = BytesStore.nativeStoreWithFixedCapacity(VirtioNet.NET_HEADER_SIZE);
    private final VirtioNetHeader rxHeaderView = new VirtioNetHeader();
    private final TxOffload txOffload = new TxOffload();
    private final RxChecksum rxChecksum = new RxChecksum();
    private final RxCoalescer coalescer = new RxCoalescer();
    private final FrameReceiver toModel = this::toModel;
    private final boolean[] refusalLogged = new boolean[TxOffload.Refusal.values().length];
    private FrameReceiver modelReceiver;
    private int[] rxHeads = new int[0];

    private final long offered = VirtioNet.offeredFeatures();
    private long ackedFeatures;
    private long ackedProtocolFeatures;
    private GuestMemory memory;
    private volatile boolean closed;
    private volatile VhostUserFailure failure;

    VhostUserConnection(AFUNIXSocket socket, VhostNetPort port, String name) {
        this.socket = socket;
        this.port = port;
        this.name = name;
        queues[VirtioNet.RX_QUEUE] = new SplitVirtqueue(VirtioNet.RX_QUEUE, name + " rx");
        queues[VirtioNet.TX_QUEUE] = new SplitVirtqueue(VirtioNet.TX_QUEUE, name + " tx");
        rxHeaderView.wrap(rxHeader, 0).clear();
    }

    /** Why the connection ended, or null (still open, or the front-end hung up cleanly). */
    VhostUserFailure failure() {
        return failure;
    }

    @Override
    public void run() {
        try {
            socket.setAncillaryReceiveBufferSize(ANCILLARY_BUFFER);
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            while (!closed) {
                int got = readFully(in, header, HEADER_SIZE);
                collectFds();
                if (closed) {
                    break; // woken by wake(): the end was already decided (and logged, if an error)
                }
                if (got == 0) {
                    LOG.info("{}: front-end disconnected", name);
                    break;
                }
                if (got < HEADER_SIZE) {
                    throw new VhostUserException(VhostUserFailure.TRUNCATED_HEADER, got + " of " + HEADER_SIZE
                            + " header bytes");
                }
                int request = headerView.getInt(0);
                int flags = headerView.getInt(4);
                long size = headerView.getInt(8) & 0xffffffffL;
                handleMessage(in, out, request, flags, size);
            }
        } catch (VhostUserException e) {
            fail(e);
        } catch (IOException e) {
            if (!closed) {
                fail(new VhostUserException(VhostUserFailure.IO_ERROR, e.toString()));
            }
        } finally {
            closeFds();
            shutdown();
        }
    }

    private void handleMessage(InputStream in, OutputStream out, int request, int flags, long size)
            throws IOException, VhostUserException {
        String what = VhostUserRequest.name(request);
        if ((flags & VERSION_MASK) != VERSION || (flags & ~(VERSION_MASK | FLAG_NEED_REPLY)) != 0) {
            throw new VhostUserException(VhostUserFailure.BAD_FLAGS, what + " flags 0x" + Integer.toHexString(flags));
        }
        if (size > MAX_PAYLOAD) {
            throw new VhostUserException(VhostUserFailure.PAYLOAD_TOO_LARGE, what + " size " + size);
        }
        int got = readFully(in, payload, (int) size);
        collectFds();
        if (closed) {
            return;
        }
        if (got < size) {
            throw new VhostUserException(VhostUserFailure.TRUNCATED_PAYLOAD, what + ": " + got + " of " + size);
        }
        LOG.debug("{}: {} flags 0x{} size {} fds {}", name, what, Integer.toHexString(flags), size, fds.size());
        boolean needReply = (flags & FLAG_NEED_REPLY) != 0;
        long replyValue;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            replyValue = dispatch(out, request, (int) size);
        } catch (VhostUserException e) {
            if (needReply && acksWithU64(request)) {
                sendU64(out, request, 1);
            }
            throw e;
        } finally {
            lock.unlock();
            closeFds();
        }
        if (needReply && replyValue == NO_REPLY) {
            sendU64(out, request, 0);
        }
    }

    /** A request answered by REPLY_ACK (rather than by its own reply). */
    private static boolean acksWithU64(int request) {
        return request != VhostUserRequest.GET_FEATURES && request != VhostUserRequest.GET_PROTOCOL_FEATURES
                && request != VhostUserRequest.GET_VRING_BASE;
    }

    private static final long NO_REPLY = -1;
    private static final long REPLIED = -2;

    private long dispatch(OutputStream out, int request, int size) throws IOException, VhostUserException {
        switch (request) {
            case VhostUserRequest.GET_FEATURES:
                expect(request, size, 0, 0);
                sendU64(out, request, offered);
                return REPLIED;
            case VhostUserRequest.SET_FEATURES: {
                expect(request, size, 8, 0);
                long f = payloadView.getLong(0);
                if ((f & ~offered) != 0 || (f & 1L << VirtioNet.F_VERSION_1) == 0) {
                    throw new VhostUserException(VhostUserFailure.UNSUPPORTED_FEATURES, "SET_FEATURES 0x"
                            + Long.toHexString(f) + " offered 0x" + Long.toHexString(offered));
                }
                ackedFeatures = f;
                LOG.info("{}: features 0x{} (offered 0x{})", name, Long.toHexString(f), Long.toHexString(offered));
                for (SplitVirtqueue q : queues) {
                    q.features(eventIdx(), indirect());
                }
                return NO_REPLY;
            }
            case VhostUserRequest.GET_PROTOCOL_FEATURES:
                expect(request, size, 0, 0);
                sendU64(out, request, VirtioNet.OFFERED_PROTOCOL_FEATURES);
                return REPLIED;
            case VhostUserRequest.SET_PROTOCOL_FEATURES: {
                expect(request, size, 8, 0);
                long f = payloadView.getLong(0);
                if ((f & ~VirtioNet.OFFERED_PROTOCOL_FEATURES) != 0) {
                    throw new VhostUserException(VhostUserFailure.UNSUPPORTED_FEATURES, "SET_PROTOCOL_FEATURES 0x"
                            + Long.toHexString(f));
                }
                ackedProtocolFeatures = f;
                return NO_REPLY;
            }
            case VhostUserRequest.SET_OWNER:
                expect(request, size, 0, 0);
                return NO_REPLY;
            case VhostUserRequest.RESET_OWNER:
                // vhost-user.rst: deprecated; "disable all rings" is the recommended reading
                expect(request, size, 0, 0);
                for (SplitVirtqueue q : queues) {
                    stopRing(q);
                }
                return NO_REPLY;
            case VhostUserRequest.SET_MEM_TABLE:
                setMemTable(size);
                return NO_REPLY;
            case VhostUserRequest.SET_VRING_NUM: {
                expect(request, size, 8, 0);
                SplitVirtqueue q = queue(payloadView.getInt(0));
                q.setSize(payloadView.getInt(4));
                if (q.index == VirtioNet.RX_QUEUE && rxHeads.length < q.size) {
                    rxHeads = new int[q.size]; // sized here, not on the data path
                }
                if (q.addressesSet) {
                    q.bind(memory, eventIdx(), indirect(), false);
                }
                return NO_REPLY;
            }
            case VhostUserRequest.SET_VRING_ADDR: {
                expect(request, size, VhostUserRequest.VRING_ADDR_SIZE, 0);
                SplitVirtqueue q = queue(payloadView.getInt(0));
                int ringFlags = payloadView.getInt(4);
                if (ringFlags != 0) {
                    throw new VhostUserException(VhostUserFailure.BAD_RING_FLAGS, q.name + " flags 0x"
                            + Integer.toHexString(ringFlags));
                }
                q.descUser = payloadView.getLong(8);
                q.usedUser = payloadView.getLong(16);
                q.availUser = payloadView.getLong(24);
                q.bind(memory, eventIdx(), indirect(), true);
                return NO_REPLY;
            }
            case VhostUserRequest.SET_VRING_BASE: {
                expect(request, size, 8, 0);
                SplitVirtqueue q = queue(payloadView.getInt(0));
                int base = payloadView.getInt(4);
                if (base < 0 || base > 0xffff) {
                    throw new VhostUserException(VhostUserFailure.BAD_VALUE, q.name + " base "
                            + Integer.toUnsignedString(base));
                }
                q.lastAvailIdx = base;
                return NO_REPLY;
            }
            case VhostUserRequest.GET_VRING_BASE: {
                expect(request, size, 8, 0);
                SplitVirtqueue q = queue(payloadView.getInt(0));
                stopRing(q);
                replyView.putInt(0, request).putInt(4, VERSION | FLAG_REPLY).putInt(8, 8)
                        .putInt(HEADER_SIZE, q.index).putInt(HEADER_SIZE + 4, q.lastAvailIdx);
                out.write(reply, 0, HEADER_SIZE + 8);
                return REPLIED;
            }
            case VhostUserRequest.SET_VRING_KICK:
            case VhostUserRequest.SET_VRING_CALL:
            case VhostUserRequest.SET_VRING_ERR:
                setNotifier(request, size);
                return NO_REPLY;
            case VhostUserRequest.SET_VRING_ENABLE: {
                expect(request, size, 8, 0);
                SplitVirtqueue q = queue(payloadView.getInt(0));
                int enable = payloadView.getInt(4);
                if (enable != 0 && enable != 1) {
                    throw new VhostUserException(VhostUserFailure.BAD_VALUE, q.name + " enable " + enable);
                }
                q.enableFlag = enable == 1;
                LOG.debug("{}: {} {}", name, q.name, enable == 1 ? "enabled" : "disabled");
                return NO_REPLY;
            }
            default:
                throw new VhostUserException(VhostUserFailure.UNKNOWN_REQUEST, VhostUserRequest.name(request)
                        + " size " + size);
        }
    }

    private void expect(int request, int size, int wantSize, int wantFds) throws VhostUserException {
        if (size != wantSize) {
            throw new VhostUserException(VhostUserFailure.WRONG_SIZE, VhostUserRequest.name(request) + " size "
                    + size + ", expected " + wantSize);
        }
        checkFds(request, wantFds);
    }

    private void checkFds(int request, int want) throws VhostUserException {
        if (fds.size() < want) {
            throw new VhostUserException(VhostUserFailure.MISSING_FD, VhostUserRequest.name(request) + " came with "
                    + fds.size() + " file descriptors, expected " + want);
        }
        if (fds.size() > want) {
            throw new VhostUserException(VhostUserFailure.EXTRA_FD, VhostUserRequest.name(request) + " came with "
                    + fds.size() + " file descriptors, expected " + want);
        }
    }

    private SplitVirtqueue queue(int index) throws VhostUserException {
        if (index != VirtioNet.RX_QUEUE && index != VirtioNet.TX_QUEUE) {
            throw new VhostUserException(VhostUserFailure.BAD_RING_INDEX, "ring " + Integer.toUnsignedString(index));
        }
        return queues[index];
    }

    private boolean eventIdx() {
        return (ackedFeatures & 1L << VirtioNet.F_EVENT_IDX) != 0;
    }

    private boolean indirect() {
        return (ackedFeatures & 1L << VirtioNet.F_INDIRECT_DESC) != 0;
    }

    private boolean guestCsum() {
        return (ackedFeatures & 1L << VirtioNet.F_GUEST_CSUM) != 0;
    }

    private boolean mergeable() {
        return (ackedFeatures & 1L << VirtioNet.F_MRG_RXBUF) != 0;
    }

    /** vhost-user.rst "Ring states": without PROTOCOL_FEATURES a started ring is enabled at once. */
    private boolean enabled(SplitVirtqueue q) {
        return (ackedFeatures & 1L << VirtioNet.F_PROTOCOL_FEATURES) == 0 || q.enableFlag;
    }

    private void setMemTable(int size) throws VhostUserException {
        int request = VhostUserRequest.SET_MEM_TABLE;
        if (size < VhostUserRequest.MEM_TABLE_HEADER) {
            throw new VhostUserException(VhostUserFailure.WRONG_SIZE, "SET_MEM_TABLE size " + size);
        }
        int n = payloadView.getInt(0);
        if (n < 1 || n > VhostUserRequest.MAX_REGIONS) {
            throw new VhostUserException(VhostUserFailure.TOO_MANY_REGIONS, "SET_MEM_TABLE with "
                    + Integer.toUnsignedString(n) + " regions");
        }
        int want = VhostUserRequest.MEM_TABLE_HEADER + n * VhostUserRequest.MEM_REGION_SIZE;
        if (size != want) {
            throw new VhostUserException(VhostUserFailure.WRONG_SIZE, "SET_MEM_TABLE of " + n + " regions size "
                    + size + ", expected " + want);
        }
        checkFds(request, n);
        long[] gpa = new long[n];
        long[] len = new long[n];
        long[] ua = new long[n];
        long[] off = new long[n];
        for (int i = 0; i < n; i++) {
            int at = VhostUserRequest.MEM_TABLE_HEADER + i * VhostUserRequest.MEM_REGION_SIZE;
            gpa[i] = payloadView.getLong(at);
            len[i] = payloadView.getLong(at + 8);
            ua[i] = payloadView.getLong(at + 16);
            off[i] = payloadView.getLong(at + 24);
        }
        GuestMemory fresh = GuestMemory.map(gpa, len, ua, off, fds.toArray(new FileDescriptor[0]));
        // The rings keep their user addresses: re-resolve them in the new table before the old one goes away.
        try {
            for (SplitVirtqueue q : queues) {
                if (q.addressesSet) {
                    q.bind(fresh, eventIdx(), indirect(), false);
                }
            }
        } catch (VhostUserException e) {
            fresh.close();
            throw e;
        }
        GuestMemory old = memory;
        memory = fresh;
        if (old != null) {
            old.close();
        }
        LOG.info("{}: memory table of {} regions", name, n);
    }

    private void setNotifier(int request, int size) throws VhostUserException {
        if (size != 8) {
            throw new VhostUserException(VhostUserFailure.WRONG_SIZE, VhostUserRequest.name(request) + " size "
                    + size + ", expected 8");
        }
        long value = payloadView.getLong(0);
        if ((value & ~(VhostUserRequest.VRING_INDEX_MASK | VhostUserRequest.VRING_NOFD_FLAG)) != 0) {
            throw new VhostUserException(VhostUserFailure.BAD_VALUE, VhostUserRequest.name(request) + " 0x"
                    + Long.toHexString(value));
        }
        SplitVirtqueue q = queue((int) (value & VhostUserRequest.VRING_INDEX_MASK));
        boolean noFd = (value & VhostUserRequest.VRING_NOFD_FLAG) != 0;
        checkFds(request, noFd ? 0 : 1);
        NotifyFd fd = null;
        if (!noFd) {
            String kind = request == VhostUserRequest.SET_VRING_KICK ? " kick"
                    : request == VhostUserRequest.SET_VRING_CALL ? " call" : " err";
            fd = new NotifyFd(q.name + kind, fds.remove(0));
        }
        if (request == VhostUserRequest.SET_VRING_KICK) {
            KickWatcher old = q.kickWatcher;
            int stamp = q.index == VirtioNet.TX_QUEUE ? HandOffTrace.TX_KICK : HandOffTrace.RX_KICK;
            q.kickWatcher = fd == null ? null : new KickWatcher(fd, () -> {
                port.handOffs().record(stamp);
                port.kicked();
            }).start();
            if (old != null) {
                old.stop();
            }
            // vhost-user.rst "Ring states": the ring starts with its kick descriptor (or polling, bit 8)
            q.started = true;
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

    /** GET_VRING_BASE / RESET_OWNER: the back-end must not touch the ring again until it is set up anew. */
    private void stopRing(SplitVirtqueue q) {
        KickWatcher k = q.kickWatcher;
        q.kickWatcher = null;
        if (k != null) {
            k.stop();
        }
        q.unbind();
    }

    boolean ringsReady() {
        return !closed && queues[0].ready() && queues[1].ready();
    }

    // ---- data path (model thread) ----

    /**
     * One frame into the receive ring, or held to be coalesced with the next ones (GUEST_TSO4/6, {@link RxCoalescer})
     * until {@link #flush}; false when dropped.
     */
    boolean receive(BytesStore<?, ?> src, long srcOffset, int length) {
        lock.lock();
        try {
            SplitVirtqueue rx = queues[VirtioNet.RX_QUEUE];
            if (closed || !rx.ready() || !enabled(rx) || memory == null) {
                dropHeld();
                return false;
            }
            boolean tso4 = (ackedFeatures & 1L << VirtioNet.F_GUEST_TSO4) != 0;
            boolean tso6 = (ackedFeatures & 1L << VirtioNet.F_GUEST_TSO6) != 0;
            if ((tso4 || tso6) && coalescer.candidate(src, srcOffset, length, tso4, tso6)) {
                if (coalescer.segments() > 0 && !coalescer.joins(src, srcOffset, length)) {
                    placeHeld(rx);
                }
                coalescer.add(src, srcOffset, length);
                return true;
            }
            if (coalescer.segments() > 0) {
                placeHeld(rx);
            }
            rxHeaderView.clear().flags(guestCsum() && rxChecksum.tcpChecksumValid(src, srcOffset, length)
                    ? VirtioNetHeader.F_DATA_VALID : 0);
            return placeFrame(rx, src, srcOffset, length);
        } catch (VhostUserException e) {
            failFromDataPath(e);
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The model's round is over: hands the frames held for coalescing to the guest, then signals each ring's call
     * descriptor once for all the entries the round pushed, when the driver asked for it: the receive ring first,
     * since the guest waits for the frames; the transmit ring's buffers given back matter to it less. Signalling
     * only here, not per frame or per transmit batch, keeps the model thread from being preempted in the middle of
     * its round by the threads a signal wakes (QEMU's, then the guest's vCPU; on a machine with few cores that
     * cost the model's replies hundreds of microseconds each, issue 17).
     */
    void flush() {
        port.handOffs().record(HandOffTrace.ROUND_END);
        lock.lock();
        try {
            SplitVirtqueue rx = queues[VirtioNet.RX_QUEUE];
            if (coalescer.segments() > 0) {
                if (closed || !rx.ready() || !enabled(rx) || memory == null) {
                    dropHeld();
                } else {
                    placeHeld(rx);
                }
            }
            if (closed) {
                return;
            }
            if (rx.ready() && rx.signalOwed()) {
                port.handOffs().record(HandOffTrace.RX_CALL);
            }
            SplitVirtqueue tx = queues[VirtioNet.TX_QUEUE];
            if (tx.ready() && tx.signalOwed()) {
                port.handOffs().record(HandOffTrace.TX_CALL);
            }
        } catch (VhostUserException e) {
            failFromDataPath(e);
        } finally {
            lock.unlock();
        }
    }

    /** The run held as one frame: a single segment as it came (its checksum was verified), else a super-frame. */
    private void placeHeld(SplitVirtqueue rx) throws VhostUserException {
        int n = coalescer.segments();
        if (n == 1) {
            rxHeaderView.clear().flags(guestCsum() ? VirtioNetHeader.F_DATA_VALID : 0);
        } else {
            coalescer.finish(rxHeaderView);
        }
        int length = coalescer.length();
        coalescer.clear();
        if (!placeFrame(rx, coalescer.store(), 0, length)) {
            port.heldDropped(n);
        }
    }

    private void dropHeld() {
        int n = coalescer.segments();
        if (n > 0) {
            coalescer.clear();
            port.heldDropped(n);
        }
    }

    /** The frame behind the header in {@link #rxHeaderView} (num_buffers set here), over as many chains as needed. */
    private boolean placeFrame(SplitVirtqueue rx, BytesStore<?, ?> src, long srcOffset, int length)
            throws VhostUserException {
        long total = VirtioNet.NET_HEADER_SIZE + (long) length;
        boolean mergeable = mergeable();
        // Pass 1: take chains until the frame fits (one chain unless MRG_RXBUF, virtio 1.x §5.1.6.3.1).
        int chains = 0;
        long capacity = 0;
        while (capacity < total && (chains == 0 || mergeable) && chains < rx.size) {
            int head = rx.pop();
            if (head < 0) {
                break;
            }
            rx.walk(head, true);
            rxHeads[chains++] = head;
            capacity += rx.chainBytes;
        }
        if (capacity < total) {
            rx.unpop(chains);
            return false;
        }
        rxHeaderView.numBuffers(mergeable ? chains : 1);
        // Pass 2: scatter header then frame over the chains (re-walked: the guest may not be trusted between passes).
        int usedBefore = rx.usedIdx;
        long written = 0;
        for (int c = 0; c < chains; c++) {
            rx.walk(rxHeads[c], true);
            long inChain = 0;
            for (int s = 0; s < rx.segments && written < total; s++) {
                BytesStore<?, ?> dst = rx.segmentStore(s);
                long dstOff = rx.segmentOffset(s);
                long room = rx.segmentLength(s);
                while (room > 0 && written < total) {
                    long n;
                    if (written < VirtioNet.NET_HEADER_SIZE) {
                        n = Math.min(room, VirtioNet.NET_HEADER_SIZE - written);
                        dst.write(dstOff, rxHeader, written, n);
                    } else {
                        n = Math.min(room, total - written);
                        dst.write(dstOff, src, srcOffset + written - VirtioNet.NET_HEADER_SIZE, n);
                    }
                    dstOff += n;
                    room -= n;
                    written += n;
                    inChain += n;
                }
            }
            rx.push(rxHeads[c], inChain);
        }
        port.handOffs().record(HandOffTrace.TO_GUEST);
        rx.owe(usedBefore);
        return written == total;
    }

    /** Up to {@code budget} frames out of the transmit ring. */
    int transmit(FrameReceiver receiver, int budget) {
        lock.lock();
        try {
            SplitVirtqueue tx = queues[VirtioNet.TX_QUEUE];
            if (closed || !tx.ready() || memory == null) {
                return 0;
            }
            port.handOffs().record(HandOffTrace.POLL);
            boolean deliver = enabled(tx);
            int usedBefore = tx.usedIdx;
            int taken = 0;
            try {
                while (taken < budget) {
                    int head = tx.pop();
                    if (head < 0) {
                        break;
                    }
                    tx.walk(head, false);
                    long total = tx.chainBytes;
                    if (total < VirtioNet.NET_HEADER_SIZE) {
                        throw new VhostUserException(VhostUserFailure.SHORT_FRAME, tx.name + " chain at " + head
                                + " holds " + total + " bytes");
                    }
                    long frameLen = total - VirtioNet.NET_HEADER_SIZE;
                    boolean fits = frameLen <= VhostNetPort.MAX_FRAME;
                    if (fits && deliver) {
                        gather(tx);
                    }
                    // TX buffers are only read: used length 0 (virtio 1.x §2.7.8, bytes written by the device)
                    tx.push(head, 0);
                    taken++;
                    if (!fits || !deliver) {
                        port.fromGuestDropped.incrementAndGet();
                        continue;
                    }
                    modelReceiver = receiver;
                    TxOffload.Refusal refusal = txOffload.deliver(txFrame, 0, VirtioNet.NET_HEADER_SIZE,
                            (int) frameLen, ackedFeatures, port.mtu(), toModel);
                    modelReceiver = null;
                    if (refusal != null) {
                        refused(refusal);
                    }
                    if (closed) {
                        break;
                    }
                }
            } finally {
                if (!closed && tx.ready()) {
                    tx.owe(usedBefore);
                }
            }
            return taken;
        } catch (VhostUserException e) {
            failFromDataPath(e);
            return 0;
        } finally {
            lock.unlock();
        }
    }

    /** Copies the walked chain, its 12-byte virtio-net header first, into the staging buffer. */
    private void gather(SplitVirtqueue tx) {
        long at = 0;
        for (int s = 0; s < tx.segments; s++) {
            long len = tx.segmentLength(s);
            if (len > 0) {
                txFrame.write(at, tx.segmentStore(s), tx.segmentOffset(s), len);
                at += len;
            }
        }
    }

    /** A wire frame from the guest (as sent, completed or one segment) on its way to the model. */
    private void toModel(BytesStore<?, ?> store, long offset, int length) {
        port.handOffs().record(HandOffTrace.FROM_GUEST);
        port.fromGuestFrames.incrementAndGet();
        port.tapFromGuest(store, offset, length);
        modelReceiver.frame(store, offset, length);
    }

    /** A frame dropped for what its virtio-net header says: counted, and logged once per reason. */
    private void refused(TxOffload.Refusal refusal) {
        port.fromGuestDropped.incrementAndGet();
        port.refusedFromGuest.incrementAndGet(refusal.ordinal());
        if (!refusalLogged[refusal.ordinal()]) {
            refusalLogged[refusal.ordinal()] = true;
            LOG.warn("{}: dropped a frame from the guest: {} (logged once; counted in the port)", name, refusal);
        }
    }

    // ---- failure and teardown ----

    private void fail(VhostUserException e) {
        if (failure == null) {
            failure = e.failure();
        }
        LOG.error("{}: {}; closing the connection", name, e.getMessage());
    }

    private void failFromDataPath(VhostUserException e) {
        fail(e);
        for (SplitVirtqueue q : queues) {
            if (q.err != null) {
                q.err.signal();
            }
        }
        closed = true;
        wake();
    }

    /** Ends the connection from outside (the back-end is closing): not an error. */
    void stop() {
        closed = true;
        wake();
    }

    /**
     * Wakes the connection thread out of a blocked read or write by shutting the socket down; that thread then
     * tears down and closes the socket itself. Other threads never close the socket: junixsocket closes the
     * descriptors it received on it while holding its own lock, and a concurrent close of one of those
     * descriptors by the connection thread takes the two locks in the other order (a deadlock seen in testing).
     */
    private void wake() {
        try {
            socket.shutdownInput();
        } catch (IOException e) {
            LOG.debug("{}: shutdown input: {}", name, e.toString());
        }
        try {
            socket.shutdownOutput();
        } catch (IOException e) {
            LOG.debug("{}: shutdown output: {}", name, e.toString());
        }
    }

    private void closeSocket() {
        try {
            socket.close();
        } catch (IOException e) {
            LOG.debug("{}: close: {}", name, e.toString());
        }
    }

    /** Stops the rings, closes every descriptor, unmaps the memory. Runs once, on the connection thread. */
    private void shutdown() {
        List<KickWatcher> watchers = new ArrayList<>();
        lock.lock();
        try {
            closed = true;
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
            if (memory != null) {
                memory.close();
                memory = null;
            }
        } finally {
            lock.unlock();
        }
        for (KickWatcher k : watchers) {
            k.stop();
        }
        txFrame.releaseLast();
        rxHeader.releaseLast();
        txOffload.release();
        coalescer.release();
        closeSocket();
    }

    private void collectFds() throws IOException {
        FileDescriptor[] got = socket.getReceivedFileDescriptors();
        if (got != null) {
            for (FileDescriptor fd : got) {
                fds.add(fd);
            }
        }
    }

    private void closeFds() {
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

    private void sendU64(OutputStream out, int request, long value) throws IOException {
        replyView.putInt(0, request).putInt(4, VERSION | FLAG_REPLY).putInt(8, 8).putLong(HEADER_SIZE, value);
        out.write(reply, 0, HEADER_SIZE + 8);
    }

    private static int readFully(InputStream in, byte[] buf, int len) throws IOException {
        int got = 0;
        while (got < len) {
            int n = in.read(buf, got, len - got);
            if (n < 0) {
                break;
            }
            got += n;
        }
        return got;
    }
}
