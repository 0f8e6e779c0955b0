package dev.irdmaemu.bridge.vhost;

import static dev.irdmaemu.bridge.vhost.VhostUserRequest.HEADER_SIZE;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import net.openhft.chronicle.bytes.BytesStore;
import org.newsclub.net.unix.AFUNIXSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One front-end connection: reads vhost-user messages (vhost-user.rst "Message Specification") on its own thread
 * into a {@link FrontEndMessage}, checks the header, and has {@link FrontEndDispatch} drive the virtio-net device
 * state (the {@link MemoryTable}, two split virtqueues set up by {@link VringSetup}, the {@link FeatureNegotiation});
 * replies go out through {@link BackEndReply}. The data path ({@link #receive}, {@link #transmit}) runs on the
 * model's thread. One lock guards all of it, so memory is never unmapped under a ring access.
 *
 * <p>Any broken rule, from the front-end or from the guest's rings, is logged at ERROR with its reason and closes
 * this connection only; every descriptor received is closed and every mapping released.
 */
final class VhostUserConnection implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(VhostUserConnection.class);
    private static final int ANCILLARY_BUFFER = 1024;

    private final AFUNIXSocket socket;
    private final VhostNetPort port;
    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    private final SplitVirtqueue[] queues = new SplitVirtqueue[VirtioNet.QUEUES];
    private final FrontEndMessage msg = new FrontEndMessage();
    private final BackEndReply reply = new BackEndReply();
    private final FeatureNegotiation features;
    private final MemoryTable memoryTable;
    private final VringSetup rings;
    private final FrontEndDispatch dispatch;

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

    private volatile boolean closed;
    private volatile VhostUserFailure failure;

    VhostUserConnection(AFUNIXSocket socket, VhostNetPort port, String name) {
        this.socket = socket;
        this.port = port;
        this.name = name;
        queues[VirtioNet.RX_QUEUE] = new SplitVirtqueue(VirtioNet.RX_QUEUE, name + " rx");
        queues[VirtioNet.TX_QUEUE] = new SplitVirtqueue(VirtioNet.TX_QUEUE, name + " tx");
        features = new FeatureNegotiation(name, queues);
        memoryTable = new MemoryTable(name, queues, features);
        rings = new VringSetup(name, queues, port, memoryTable, features);
        dispatch = new FrontEndDispatch(features, memoryTable, rings, reply);
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
                int got = msg.readHeader(in);
                msg.collectFds(socket);
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
                handleMessage(in, out);
            }
        } catch (VhostUserException e) {
            fail(e);
        } catch (IOException e) {
            if (!closed) {
                fail(new VhostUserException(VhostUserFailure.IO_ERROR, e.toString()));
            }
        } finally {
            msg.closeFds();
            shutdown();
        }
    }

    private void handleMessage(InputStream in, OutputStream out) throws IOException, VhostUserException {
        int request = msg.request();
        long size = msg.size();
        msg.checkHeader();
        int got = msg.readPayload(in);
        msg.collectFds(socket);
        if (closed) {
            return;
        }
        if (got < size) {
            throw new VhostUserException(VhostUserFailure.TRUNCATED_PAYLOAD, VhostUserRequest.name(request) + ": "
                    + got + " of " + size);
        }
        LOG.debug("{}: {} flags 0x{} size {} fds {}", name, VhostUserRequest.name(request),
                Integer.toHexString(msg.flags()), size, msg.fdCount());
        boolean needReply = msg.needsReply();
        FrontEndDispatch.Outcome outcome;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            outcome = dispatch.dispatch(msg, out);
        } catch (VhostUserException e) {
            if (needReply && BackEndReply.acksWithU64(request)) {
                reply.u64(out, request, BackEndReply.ACK_FAILURE);
            }
            throw e;
        } finally {
            lock.unlock();
            msg.closeFds();
        }
        if (needReply && outcome == FrontEndDispatch.Outcome.ACK_IF_ASKED) {
            reply.u64(out, request, BackEndReply.ACK_SUCCESS);
        }
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
            if (closed || !rx.ready() || !features.enabled(rx) || memoryTable.current() == null) {
                dropHeld();
                return false;
            }
            boolean tso4 = features.guestTso4();
            boolean tso6 = features.guestTso6();
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
            rxHeaderView.clear().flags(features.guestCsum() && rxChecksum.tcpChecksumValid(src, srcOffset, length)
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
                if (closed || !rx.ready() || !features.enabled(rx) || memoryTable.current() == null) {
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
            rxHeaderView.clear().flags(features.guestCsum() ? VirtioNetHeader.F_DATA_VALID : 0);
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
        boolean mergeable = features.mergeable();
        // Pass 1: take chains until the frame fits (one chain unless MRG_RXBUF, virtio 1.x §5.1.6.3.1).
        int chains = 0;
        long capacity = 0;
        while (capacity < total && (chains == 0 || mergeable) && chains < rx.size) {
            if (!rx.hasAvailable()) {
                break;
            }
            int head = rx.takeHead();
            rx.walk(head, true);
            rx.rememberHead(chains++, head);
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
            rx.walk(rx.rememberedHead(c), true);
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
            rx.push(rx.rememberedHead(c), inChain);
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
            if (closed || !tx.ready() || memoryTable.current() == null) {
                return 0;
            }
            port.handOffs().record(HandOffTrace.POLL);
            boolean deliver = features.enabled(tx);
            int usedBefore = tx.usedIdx;
            int taken = 0;
            try {
                while (taken < budget) {
                    if (!tx.hasAvailable()) {
                        break;
                    }
                    int head = tx.takeHead();
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
                            (int) frameLen, features.acked(), port.mtu(), toModel);
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
        List<KickWatcher> watchers;
        lock.lock();
        try {
            closed = true;
            watchers = rings.release();
            memoryTable.close();
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
}
