package dev.irdmaemu.bridge.vfiouser;

import dev.irdmaemu.bridge.shm.SharedFileMapping;
import dev.irdmaemu.bridge.sock.UnixMessageInput;
import dev.irdmaemu.bridge.vfiouser.DeviceCalls.DeviceFailure;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.newsclub.net.unix.AFUNIXSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client on its own thread: reads each message whole (header, payload, the descriptors that came with it),
 * checks it with its codec, and answers before reading the next, so requests are served strictly in order
 * (vfio-user.rst "Command Concurrency"; posted writes rely on it).
 *
 * <p>A request that breaks a rule gets the protocol's error reply (header only, flags REPLY|ERROR, an errno) and
 * the connection goes on; a broken stream (bad header, a size beyond {@link #MAX_MESSAGE}, more descriptors than
 * the advertised {@value #MAX_FDS}, a hang-up mid-message) closes it with a logged reason. Either way, when the
 * client leaves, its DMA windows are dropped and its eventfds closed; the device keeps its state.
 */
final class VfioUserConnection implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(VfioUserConnection.class);
    /** Every message at DEBUG: kind vfio_user, command, sizes, region and offset. */
    private static final Logger TRACE = LoggerFactory.getLogger("dev.irdmaemu.trace.vfio_user");

    /** Advertised in VERSION: QEMU chunks its SET_IRQS by it; more in one message closes the connection. */
    static final int MAX_FDS = 16;
    /** Advertised in VERSION: the largest data transfer (QEMU's default; ≥ 4096 for the whole-config read). */
    static final int MAX_DATA_XFER = 1 << 20;
    /** The largest message accepted: a region access header plus the largest transfer. */
    static final int MAX_MESSAGE = VfioUserHeader.SIZE + RegionAccessPayload.FIXED + MAX_DATA_XFER;
    /** Our capabilities: small, because QEMU reads the reply into its 214-byte request's buffer (proxy.c). */
    static final byte[] CAPABILITIES = ("{\"capabilities\":{\"max_msg_fds\":" + MAX_FDS + ",\"max_data_xfer_size\":"
            + MAX_DATA_XFER + ",\"pgsizes\":" + DmaMapPayload.PAGE + "}}").getBytes(StandardCharsets.US_ASCII);
    static final int NUM_REGIONS = 9;
    private static final int ANCILLARY_BUFFER = 1024;

    private final AFUNIXSocket socket;
    private final String name;
    private final VfioUserFunction device;
    private final DeviceCalls calls;
    private final IrqTable irqs;
    private final DmaSpace dma;
    private final VfioUserCounters counters;
    private final long[] regionSizes;
    private final Runnable reset;
    private final int number;
    private final VfioUserSessionListener listener;

    private final byte[] message;
    private final ByteBuffer buf;
    private final VfioUserHeader header = new VfioUserHeader();
    private final VersionPayload version = new VersionPayload();
    private final DmaMapPayload dmaMap = new DmaMapPayload();
    private final DmaUnmapPayload dmaUnmap = new DmaUnmapPayload();
    private final DeviceInfoPayload deviceInfo = new DeviceInfoPayload();
    private final RegionInfoPayload regionInfo = new RegionInfoPayload();
    private final IrqInfoPayload irqInfo = new IrqInfoPayload();
    private final SetIrqsPayload setIrqs = new SetIrqsPayload();
    private final RegionAccessPayload access = new RegionAccessPayload();
    private final List<FileDescriptor> fds = new ArrayList<>();
    private final List<DmaWindow> windows = new ArrayList<>();
    /** Replies and our DMA_READ/DMA_WRITE requests share the socket's output. */
    private final Object writeLock = new Object();
    /** Server-to-client DMA for the message-only windows; made when the client connects. */
    private MessageDma messageDma;
    /** Set by {@link MessageDma} when a DMA exchange broke the connection (from the device's thread). */
    private volatile String abortReason;

    /** How long a server DMA waits for the client's reply (QEMU's own x-msg-timeout default is 5 s). */
    static volatile long dmaReplyTimeoutMillis = 5_000;
    private static final java.util.regex.Pattern MAX_XFER =
            java.util.regex.Pattern.compile("\"max_data_xfer_size\"\\s*:\\s*(\\d{1,12})");

    private boolean negotiated;
    /** DEVICE_GET_INFO answered: from now on a DMA_MAP is never refused (QEMU aborts on that, listener.c). */
    private boolean realized;
    private int replyLength;
    private String refusal;
    /** Set by a handler whose refusal must also end the connection (after the error reply). */
    private String fatal;
    /** The client's mapping of its RAM was looked at (once: the first writable window with a descriptor). */
    private boolean sharingChecked;
    private volatile boolean negotiatedByClient;
    private volatile String closeReason;
    private volatile boolean closed;

    VfioUserConnection(AFUNIXSocket socket, String name, VfioUserFunction device, DeviceCalls calls, IrqTable irqs,
            DmaSpace dma, VfioUserCounters counters, long[] regionSizes, byte[] message, int number,
            VfioUserSessionListener listener) {
        this.socket = socket;
        this.number = number;
        this.listener = listener;
        this.name = name;
        this.device = device;
        this.calls = calls;
        this.irqs = irqs;
        this.dma = dma;
        this.counters = counters;
        this.regionSizes = regionSizes;
        this.message = message;
        this.buf = ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN);
        this.reset = device::reset;
        header.wrap(buf);
    }

    @Override
    public void run() {
        String reason = null;
        try {
            socket.setAncillaryReceiveBufferSize(ANCILLARY_BUFFER);
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            messageDma = new MessageDma(name, socket, out, writeLock, calls, dmaReplyTimeoutMillis, this::abort);
            dma.attach(messageDma);
            while (!closed) {
                int got = UnixMessageInput.readFully(in, message, 0, VfioUserHeader.SIZE);
                UnixMessageInput.collectDescriptors(socket, fds);
                if (got == 0) {
                    break;
                }
                if (got < VfioUserHeader.SIZE) {
                    reason = "hung up inside a header (" + got + " of 16 bytes)";
                    break;
                }
                reason = (header.flags() & VfioUserHeader.TYPE_MASK) == VfioUserHeader.TYPE_REPLY
                        ? handOverReply(in) : request(in, out);
                if (reason != null) {
                    break;
                }
            }
        } catch (IOException e) {
            if (!closed) {
                reason = "I/O error: " + e;
            }
        } finally {
            ended(reason);
        }
    }

    /**
     * The client answering one of our DMA_READ/DMA_WRITE requests (from a device timer): handed over to
     * {@link MessageDma}. Null when it was taken, else why the connection closes.
     */
    private String handOverReply(InputStream in) throws IOException {
        if (header.size() < VfioUserHeader.SIZE || header.size() > MAX_MESSAGE || !fds.isEmpty()) {
            return "bad reply header: " + VfioUserCommand.name(header.command()) + " id " + header.id()
                    + " size " + header.size() + " with " + fds.size() + " descriptors";
        }
        MessageDma.Taken taken = messageDma.takeReply(message, in);
        if (taken == MessageDma.Taken.NOT_EXPECTED) {
            return "bad header: a reply (" + VfioUserCommand.name(header.command()) + " id "
                    + header.id() + ") while no DMA request of ours waits for one";
        }
        if (taken == MessageDma.Taken.HUNG_UP) {
            return "hung up inside a reply to a server DMA request";
        }
        return null;
    }

    /**
     * A request whose header was read: checks the header, reads the payload and its descriptors, and serves it.
     * Null when the connection goes on, else why it closes.
     */
    private String request(InputStream in, OutputStream out) throws IOException {
        VfioUserHeader.Status hs = header.validate(MAX_MESSAGE);
        if (hs != VfioUserHeader.Status.OK) {
            return "bad header (" + hs + "): " + VfioUserCommand.name(header.command()) + " id "
                    + header.id() + " size " + header.size() + " flags 0x"
                    + Integer.toHexString(header.flags());
        }
        int payload = (int) header.size() - VfioUserHeader.SIZE;
        int got = UnixMessageInput.readFully(in, message, VfioUserHeader.SIZE, payload);
        UnixMessageInput.collectDescriptors(socket, fds);
        if (got < payload) {
            return "hung up inside " + VfioUserCommand.name(header.command()) + " (" + got + " of "
                    + payload + " payload bytes)";
        }
        if (fds.size() > MAX_FDS) {
            return VfioUserCommand.name(header.command()) + " came with " + fds.size()
                    + " descriptors, more than the " + MAX_FDS + " advertised";
        }
        String reason = serve(out, payload);
        closeFds();
        return reason;
    }

    /** The read loop is over: logs why (a DMA exchange's abort when the loop had no reason) and tears down. */
    private void ended(String loopReason) {
        String reason = loopReason == null ? abortReason : loopReason;
        closeReason = reason;
        if (reason != null) {
            counters.clientDropped();
            LOG.error("vfio-user {}: closing the client: {}", name, reason);
        } else {
            LOG.info("vfio-user {}: client disconnected", name);
        }
        shutdown();
        LOG.info("vfio-user {}: {}", name, counters.summary());
    }

    private String serve(OutputStream out, int payload) throws IOException {
        int id = header.id();
        int command = header.command();
        boolean noReply = header.noReply();
        counters.message(command);
        trace(command, id, payload);
        replyLength = 0;
        refusal = null;
        fatal = null;
        VfioUserStatus status;
        try {
            status = dispatch(command, payload);
        } catch (DeviceFailure e) {
            if (e.ownerLost) {
                return e.getMessage();
            }
            LOG.error("vfio-user {}: {} failed in the device: {}", name, VfioUserCommand.name(command),
                    e.getMessage(), e.getCause());
            status = VfioUserStatus.DEVICE_ERROR;
        }
        if (status != VfioUserStatus.OK) {
            counters.errorReply();
            LOG.warn("vfio-user {}: {} id {} refused: {}{}{}", name, VfioUserCommand.name(command), id, status,
                    refusal != null ? ": " : "", refusal != null ? refusal : "");
            if (!noReply && abortReason == null) {
                header.writeError(id, command, status.errno());
                synchronized (writeLock) {
                    out.write(message, 0, VfioUserHeader.SIZE);
                }
            }
            return fatal;
        }
        if (noReply) {
            return null; // a posted write: QEMU expects nothing, and would log a reply as unexpected
        }
        if (abortReason != null) {
            return abortReason; // a server DMA inside this request broke the stream: no reply on it
        }
        int size = VfioUserHeader.SIZE + replyLength;
        header.writeReply(id, command, size);
        synchronized (writeLock) {
            out.write(message, 0, size);
        }
        return null;
    }

    private VfioUserStatus dispatch(int command, int payload) throws DeviceFailure {
        if (command == VfioUserCommand.VERSION) {
            return version(payload);
        }
        if (!negotiated) {
            return VfioUserStatus.NOT_NEGOTIATED;
        }
        if (!fds.isEmpty() && command != VfioUserCommand.DMA_MAP && command != VfioUserCommand.DEVICE_SET_IRQS) {
            return VfioUserStatus.BAD_FD_COUNT;
        }
        switch (command) {
            case VfioUserCommand.DMA_MAP:
                return dmaMap(payload);
            case VfioUserCommand.DMA_UNMAP:
                return dmaUnmap(payload);
            case VfioUserCommand.DEVICE_GET_INFO:
                return deviceInfo(payload);
            case VfioUserCommand.DEVICE_GET_REGION_INFO:
                return regionInfo(payload);
            case VfioUserCommand.DEVICE_GET_IRQ_INFO:
                return irqInfo(payload);
            case VfioUserCommand.DEVICE_SET_IRQS:
                return setIrqs(payload);
            case VfioUserCommand.REGION_READ:
                return regionRead(payload);
            case VfioUserCommand.REGION_WRITE:
                return regionWrite(payload);
            case VfioUserCommand.DEVICE_RESET:
                if (payload != 0) {
                    return VfioUserStatus.BAD_SIZE;
                }
                LOG.info("vfio-user {}: DEVICE_RESET", name);
                calls.run(reset);
                try {
                    listener.deviceReset(number);
                } catch (RuntimeException e) {
                    LOG.warn("vfio-user {}: the session listener failed on DEVICE_RESET: {}", name, e.toString());
                }
                return VfioUserStatus.OK;
            default:
                return VfioUserStatus.UNKNOWN_COMMAND;
        }
    }

    private VfioUserStatus version(int payload) {
        VfioUserStatus s = version.wrap(buf, payload).validate();
        if (s != VfioUserStatus.OK) {
            return s;
        }
        if (negotiated) {
            refusal = "VERSION already negotiated";
            return VfioUserStatus.BAD_VERSION;
        }
        int json = version.jsonLength().orElse(0);
        LOG.info("vfio-user {}: client version {}.{} {}", name, version.major(), version.minor(),
                json > 0 ? new String(message, VfioUserHeader.SIZE + VersionPayload.FIXED, json,
                        StandardCharsets.US_ASCII) : "(no capabilities)");
        if (json > 0) {
            java.util.regex.Matcher m = MAX_XFER.matcher(new String(message, VfioUserHeader.SIZE
                    + VersionPayload.FIXED, json, StandardCharsets.US_ASCII));
            if (m.find()) {
                messageDma.clientMaxTransfer(Long.parseLong(m.group(1)));
            }
        }
        negotiated = true;
        negotiatedByClient = true;
        replyLength = version.write(CAPABILITIES);
        return VfioUserStatus.OK;
    }

    private VfioUserStatus dmaMap(int payload) throws DeviceFailure {
        VfioUserStatus s = dmaMap.wrap(buf, payload).validate(fds.size());
        long address = dmaMap.address();
        long size = dmaMap.size();
        if (s == VfioUserStatus.OK) {
            s = overlapCheck(address, size);
        }
        if (s == VfioUserStatus.OK && dmaMap.writable() && (!realized || fds.size() == 1)) {
            // after realize a writable window without a descriptor is device memory (another device's BAR that
            // QEMU backs with anonymous RAM, e.g. VGA's): reachable by messages only, as before
            s = guestRamShared(address, size);
        }
        if (s == VfioUserStatus.OK) {
            s = addWindow(address, size);
        }
        if (s != VfioUserStatus.OK && realized) {
            // QEMU answers a failed DMA_MAP after realize with hw_error and aborts (listener.c
            // vfio_listener_region_add): say yes, log loudly, and leave the range unreachable.
            LOG.error("vfio-user {}: DMA_MAP 0x{}+0x{} flags {} not usable ({}{}{}); acknowledged anyway, the"
                    + " device cannot reach it", name, Long.toHexString(address), Long.toHexString(size),
                    dmaMap.flags(), s, refusal != null ? ": " : "", refusal != null ? refusal : "");
            counters.errorReply(); // counted as refused, although the reply says OK
            return VfioUserStatus.OK;
        }
        return s;
    }

    /** A new window must not overlap one already mapped. */
    private VfioUserStatus overlapCheck(long address, long size) {
        for (DmaWindow w : windows) {
            if (w.overlaps(address, size)) {
                refusal = "overlaps the window " + w;
                return VfioUserStatus.OVERLAP;
            }
        }
        return VfioUserStatus.OK;
    }

    /** {@link #sharedRam}, and when it refuses, the connection is to close and the session listener is told. */
    private VfioUserStatus guestRamShared(long address, long size) {
        VfioUserStatus s = sharedRam(address, size);
        if (s == VfioUserStatus.NOT_SHARED) {
            String why = refusal;
            // QEMU sends its memory map asynchronously and only prints an error reply to it (proxy.c
            // vfio_user_process), then goes on to boot a guest whose driver can never reach its rings:
            // closing the socket makes its realize fail, so QEMU stops at start with our reason in the log
            fatal = why;
            try {
                listener.memoryNotShared(number, why);
            } catch (RuntimeException e) {
                LOG.warn("vfio-user {}: the session listener failed: {}", name, e.toString());
            }
        }
        return s;
    }

    /**
     * Maps the window's descriptor when it came with one (else DMA to it goes by message) and adds the window on
     * the owner thread; a device that refuses it leaves nothing mapped.
     */
    private VfioUserStatus addWindow(long address, long size) throws DeviceFailure {
        SharedFileMapping mapping = null;
        if (fds.size() == 1) {
            try {
                mapping = SharedFileMapping.map(fds.get(0), dmaMap.offset(), size);
            } catch (IOException e) {
                refusal = e.getMessage();
                return VfioUserStatus.BAD_FD;
            }
        }
        DmaWindow w = new DmaWindow(address, size, dmaMap.writable(), mapping);
        try {
            calls.run(() -> {
                if (w.direct()) {
                    dma.publish(w);
                }
                device.dmaWindowAdded(w);
            });
            if (!w.direct()) {
                messageDma.addWindow(w);
            }
            windows.add(w);
            counters.windowMapped();
            LOG.debug("vfio-user {}: DMA window {}", name, w);
            return VfioUserStatus.OK;
        } catch (DeviceFailure e) {
            if (e.ownerLost) {
                windows.add(w); // the connection closes, and its shutdown unmaps it
                throw e;
            }
            if (mapping != null) {
                try {
                    calls.run(() -> dma.unpublish(w));
                } catch (DeviceFailure again) {
                    LOG.debug("vfio-user {}: unpublish after a failed map: {}", name, again.getMessage());
                }
                mapping.close();
            }
            refusal = e.getMessage();
            return VfioUserStatus.DEVICE_ERROR;
        }
    }

    /**
     * A writable window is guest RAM: the device must see the guest's own pages. Without a descriptor it cannot
     * (QEMU's RAM is then anonymous memory: no memory backend, or one that is not fd-based); with one QEMU maps
     * privately ({@code share=off}) the two sides would drift apart page by page. Either is refused while the
     * device is being realized, and the connection closed, so QEMU fails at start with the reason in our log,
     * instead of a guest whose driver times out on a device that never sees its rings.
     */
    private VfioUserStatus sharedRam(long address, long size) {
        String window = "0x" + Long.toHexString(address) + "+0x" + Long.toHexString(size);
        if (fds.isEmpty()) {
            refusal = "guest RAM " + window + " came without a file descriptor: QEMU's memory is not shared with the"
                    + " device; give QEMU -object memory-backend-memfd,id=mem,size=<RAM>,share=on -machine"
                    + " memory-backend=mem";
            return VfioUserStatus.NOT_SHARED;
        }
        if (sharingChecked) {
            return VfioUserStatus.OK;
        }
        sharingChecked = true;
        long pid;
        try {
            pid = socket.getPeerCredentials().getPid();
        } catch (IOException | RuntimeException e) {
            LOG.debug("vfio-user {}: no peer credentials: {}", name, e.toString());
            return VfioUserStatus.OK;
        }
        if (ClientMemorySharing.of(pid, fds.get(0)) == ClientMemorySharing.PRIVATE) {
            refusal = "guest RAM " + window + " is mapped privately by QEMU (pid " + pid + "): the memory backend has"
                    + " share=off, so the device and the guest would see different pages; give it share=on";
            return VfioUserStatus.NOT_SHARED;
        }
        return VfioUserStatus.OK;
    }

    private VfioUserStatus dmaUnmap(int payload) throws DeviceFailure {
        VfioUserStatus s = dmaUnmap.wrap(buf, payload).validate(fds.size());
        if (s != VfioUserStatus.OK) {
            return s;
        }
        if (dmaUnmap.all()) {
            dropWindows();
        } else {
            long address = dmaUnmap.address();
            long size = dmaUnmap.size();
            DmaWindow found = null;
            for (DmaWindow w : windows) {
                if (w.address() == address && w.size() == size) {
                    found = w;
                    break;
                }
            }
            if (found == null) {
                refusal = "no window 0x" + Long.toHexString(address) + "+0x" + Long.toHexString(size);
                return VfioUserStatus.NOT_MAPPED;
            }
            unmap(found);
        }
        replyLength = dmaUnmap.writeReply();
        return VfioUserStatus.OK;
    }

    /** Removes the window on the owner thread, then unmaps its memory: nothing can read it any more. */
    private void unmap(DmaWindow w) throws DeviceFailure {
        windows.remove(w);
        if (!w.direct() && messageDma != null) {
            messageDma.removeWindow(w);
        }
        counters.windowUnmapped();
        try {
            calls.run(() -> {
                if (w.direct()) {
                    dma.unpublish(w);
                }
                device.dmaWindowRemoved(w);
            });
        } finally {
            if (w.direct()) {
                w.mapping().close();
            }
        }
    }

    private void dropWindows() throws DeviceFailure {
        while (!windows.isEmpty()) {
            unmap(windows.get(windows.size() - 1));
        }
    }

    private VfioUserStatus deviceInfo(int payload) {
        VfioUserStatus s = deviceInfo.wrap(buf, payload).validate();
        if (s != VfioUserStatus.OK) {
            return s;
        }
        replyLength = deviceInfo.writeReply(DeviceInfoPayload.FLAG_RESET | DeviceInfoPayload.FLAG_PCI, NUM_REGIONS,
                IrqTable.INDEXES);
        realized = true;
        return VfioUserStatus.OK;
    }

    private VfioUserStatus regionInfo(int payload) {
        VfioUserStatus s = regionInfo.wrap(buf, payload).validate(NUM_REGIONS);
        if (s != VfioUserStatus.OK) {
            return s;
        }
        int index = regionInfo.index();
        long size = regionSizes[index];
        counters.regionInfo(index);
        replyLength = regionInfo.writeReply(size != 0 ? RegionInfoPayload.FLAG_READ | RegionInfoPayload.FLAG_WRITE : 0,
                size);
        return VfioUserStatus.OK;
    }

    private VfioUserStatus irqInfo(int payload) {
        VfioUserStatus s = irqInfo.wrap(buf, payload).validate(IrqTable.INDEXES);
        if (s != VfioUserStatus.OK) {
            return s;
        }
        replyLength = irqInfo.writeReply(IrqInfoPayload.FLAG_EVENTFD, irqs.vectors()[irqInfo.index()]);
        return VfioUserStatus.OK;
    }

    private VfioUserStatus setIrqs(int payload) {
        VfioUserStatus s = setIrqs.wrap(buf, payload).validate(irqs.vectors(), fds.size());
        if (s != VfioUserStatus.OK) {
            return s;
        }
        int index = setIrqs.index();
        int start = setIrqs.start();
        int count = setIrqs.count();
        if (count == 0) {
            irqs.deassign(index, 0, irqs.vectors()[index]); // NONE + TRIGGER, count 0: disable the index
        } else if (setIrqs.data() == SetIrqsPayload.DATA_EVENTFD) {
            if (fds.isEmpty()) {
                irqs.deassign(index, start, count);
            } else {
                irqs.assign(index, start, fds);
                fds.clear(); // the table owns them now
            }
        } else if (setIrqs.action() == SetIrqsPayload.ACTION_TRIGGER) {
            irqs.trigger(index, start, count);
        } // MASK/UNMASK without data: QEMU masks MSI-X itself; nothing to keep
        return VfioUserStatus.OK;
    }

    private VfioUserStatus regionRead(int payload) throws DeviceFailure {
        VfioUserStatus s = access.wrap(buf, payload).validate(regionSizes, DeviceCalls.CONFIG, false);
        if (s != VfioUserStatus.OK) {
            return s;
        }
        int region = access.region();
        int count = access.count();
        if (count > 8) {
            counters.fullConfigRead();
            calls.readConfig(buf, RegionAccessPayload.dataOffset(), (int) access.offset(), count);
        } else {
            access.putValue(calls.read(region, access.offset(), count));
        }
        replyLength = RegionAccessPayload.FIXED + count;
        return VfioUserStatus.OK;
    }

    private VfioUserStatus regionWrite(int payload) throws DeviceFailure {
        VfioUserStatus s = access.wrap(buf, payload).validate(regionSizes, DeviceCalls.CONFIG, true);
        if (s != VfioUserStatus.OK) {
            return s;
        }
        if (header.noReply()) {
            counters.postedWrite();
        }
        calls.write(access.region(), access.offset(), access.count(), access.value());
        replyLength = RegionAccessPayload.FIXED;
        return VfioUserStatus.OK;
    }

    private void trace(int command, int id, int payload) {
        if (!TRACE.isDebugEnabled()) {
            return;
        }
        if ((command == VfioUserCommand.REGION_READ || command == VfioUserCommand.REGION_WRITE)
                && payload >= RegionAccessPayload.FIXED) {
            access.wrap(buf, payload);
            TRACE.debug("vfio_user {} {} id={} size={} fds={} region={} offset=0x{} count={}{}", name,
                    VfioUserCommand.name(command), id, payload + VfioUserHeader.SIZE, fds.size(), access.region(),
                    Long.toHexString(access.offset()), access.count(), header.noReply() ? " posted" : "");
        } else {
            TRACE.debug("vfio_user {} {} id={} size={} fds={}", name, VfioUserCommand.name(command), id,
                    payload + VfioUserHeader.SIZE, fds.size());
        }
    }

    /** Whether the client got past VERSION (so it may have changed the device). */
    boolean negotiated() {
        return negotiatedByClient;
    }

    /** Why the server closed the client, or null for a clean hang-up (or while it is still served). */
    String closeReason() {
        return closeReason;
    }

    /** A server DMA exchange broke the stream (a timeout, a request where its reply belonged): close. Any thread. */
    private void abort(String reason) {
        if (abortReason == null) {
            abortReason = reason;
        }
        stop();
    }

    /** Makes the connection thread leave its read (server shutdown). Any thread. */
    void stop() {
        closed = true;
        try {
            socket.shutdownInput();
        } catch (IOException e) {
            LOG.debug("vfio-user {}: shutdown input: {}", name, e.toString());
        }
    }

    /** Drops every window, closes every eventfd and descriptor and the socket. Connection thread, once. */
    private void shutdown() {
        closed = true;
        if (messageDma != null) {
            messageDma.close();
            dma.detach(messageDma);
        }
        try {
            dropWindows();
        } catch (DeviceFailure e) {
            // the owner thread is gone: no one reads the windows any more, so unpublish and unmap here
            LOG.error("vfio-user {}: dropping DMA windows without the device's thread: {}", name, e.getMessage());
            for (DmaWindow w : windows) {
                if (w.direct()) {
                    dma.unpublish(w);
                    w.mapping().close();
                }
            }
            windows.clear();
        }
        irqs.closeAll();
        closeFds();
        try {
            socket.close();
        } catch (IOException e) {
            LOG.debug("vfio-user {}: close: {}", name, e.toString());
        }
    }

    /** Closes the descriptors no handler kept. Indexed, so the usual case (none) allocates nothing. */
    private void closeFds() {
        for (int i = 0; i < fds.size(); i++) {
            try {
                new FileInputStream(fds.get(i)).close();
            } catch (IOException e) {
                LOG.debug("vfio-user {}: close fd: {}", name, e.toString());
            }
        }
        fds.clear();
    }
}
