package dev.irdmaemu.bridge.vhost;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.virtio.SplitRing;
import java.lang.invoke.VarHandle;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The device side of one split virtqueue (virtio 1.x §2.7): the descriptor table, the driver's available ring and
 * the device's used ring, all little-endian in guest memory, read and written through {@link SplitRing}. Every index
 * and address the guest controls is checked before use; a violation is a {@link VhostUserException}. Not
 * thread-safe: its connection's lock guards it.
 */
final class SplitVirtqueue {
    static final int DESC_F_NEXT = SplitRing.DESC_F_NEXT;
    static final int DESC_F_WRITE = SplitRing.DESC_F_WRITE;
    static final int DESC_F_INDIRECT = SplitRing.DESC_F_INDIRECT;
    static final int DESC_SIZE = SplitRing.DESC_SIZE;

    final int index;
    final String name;

    int size;
    boolean addressesSet;
    long descUser;
    long availUser;
    long usedUser;
    int lastAvailIdx;
    int usedIdx;
    boolean enableFlag;
    NotifyFd call;
    NotifyFd err;
    KickWatcher kickWatcher;
    boolean started;

    private HostMemory memory;
    private BytesStore<?, ?> descStore;
    private long descOff;
    private BytesStore<?, ?> availStore;
    private long availOff;
    private BytesStore<?, ?> usedStore;
    private long usedOff;
    private boolean eventIdx;
    private boolean indirect;
    /** Entries were pushed since the driver was last considered for a notification, the first at {@link #owedFrom}. */
    private boolean owed;
    private int owedFrom;

    // The walked chain: one entry per buffer segment, reused for every chain (sized to the ring on SET_VRING_NUM).
    private int[] segRegion = new int[0];
    private long[] segOffset = new long[0];
    private int[] segLen = new int[0];
    int segments;
    long chainBytes;
    // The chain heads taken for one frame (a receive frame over several chains with MRG_RXBUF), sized with the ring.
    private int[] takenHeads = new int[0];

    SplitVirtqueue(int index, String name) {
        this.index = index;
        this.name = name;
    }

    void setSize(int num) throws VhostUserException {
        if (num < 1 || num > VirtioNet.MAX_QUEUE_SIZE || Integer.bitCount(num) != 1) {
            throw new VhostUserException(VhostUserFailure.BAD_RING_SIZE, name + " num " + Integer.toUnsignedString(num));
        }
        size = num;
        if (segRegion.length < num) {
            segRegion = new int[num];
            segOffset = new long[num];
            segLen = new int[num];
        }
        if (index == VirtioNet.RX_QUEUE && takenHeads.length < num) {
            takenHeads = new int[num]; // sized here, not on the data path
        }
    }

    static long descBytes(int num) {
        return SplitRing.descriptorTableBytes(num);
    }

    static long availBytes(int num) {
        return SplitRing.availableRingBytes(num);
    }

    static long usedBytes(int num) {
        return SplitRing.usedRingBytes(num);
    }

    /**
     * Resolves the ring's user addresses through {@code table} and caches the stores that hold each part. Called on
     * SET_VRING_ADDR and again whenever the size or the memory table changes.
     */
    void bind(GuestMemory table, boolean eventIdxNegotiated, boolean indirectNegotiated, boolean readUsedIdx)
            throws VhostUserException {
        if (size == 0 || table == null) {
            throw new VhostUserException(VhostUserFailure.RING_NOT_CONFIGURED, name + (size == 0
                    ? " has no SET_VRING_NUM" : " has no memory table"));
        }
        if ((descUser & 15) != 0 || (availUser & 1) != 0 || (usedUser & 3) != 0) {
            throw new VhostUserException(VhostUserFailure.RING_MISALIGNED, name + " desc 0x" + Long.toHexString(descUser)
                    + " avail 0x" + Long.toHexString(availUser) + " used 0x" + Long.toHexString(usedUser));
        }
        boolean descIn = inMemory(table, descUser, descBytes(size));
        boolean availIn = inMemory(table, availUser, availBytes(size));
        boolean usedIn = inMemory(table, usedUser, usedBytes(size));
        if (!descIn || !availIn || !usedIn) {
            throw new VhostUserException(VhostUserFailure.RING_OUTSIDE_MEMORY, name + " of " + size + ": desc 0x"
                    + Long.toHexString(descUser) + (descIn ? "" : " (outside)") + " avail 0x"
                    + Long.toHexString(availUser) + (availIn ? "" : " (outside)") + " used 0x"
                    + Long.toHexString(usedUser) + (usedIn ? "" : " (outside)"));
        }
        HostMemory host = table.host();
        long descGpa = table.userToGpa(descUser);
        long availGpa = table.userToGpa(availUser);
        long usedGpa = table.userToGpa(usedUser);
        int dr = host.find(descGpa, descBytes(size));
        int ar = host.find(availGpa, availBytes(size));
        int ur = host.find(usedGpa, usedBytes(size));
        memory = host;
        descStore = host.store(dr);
        descOff = host.offset(dr, descGpa);
        availStore = host.store(ar);
        availOff = host.offset(ar, availGpa);
        usedStore = host.store(ur);
        usedOff = host.offset(ur, usedGpa);
        eventIdx = eventIdxNegotiated;
        indirect = indirectNegotiated;
        addressesSet = true;
        if (readUsedIdx) {
            usedIdx = SplitRing.usedIdx(usedStore, usedOff);
        }
    }

    /**
     * Whether one memory table region holds all of the user span {@code [ua, ua+length)} and one mapped chunk of it
     * holds all of the guest-physical span it stands for.
     */
    private static boolean inMemory(GuestMemory table, long ua, long length) {
        return table.holdsUser(ua, length) && table.host().contains(table.userToGpa(ua), length);
    }

    /** The negotiated ring features (SET_FEATURES may come after the ring was bound). */
    void features(boolean eventIdxNegotiated, boolean indirectNegotiated) {
        eventIdx = eventIdxNegotiated;
        indirect = indirectNegotiated;
    }

    /** Forgets the ring's memory (GET_VRING_BASE, RESET_OWNER, a new memory table before re-binding). */
    void unbind() {
        addressesSet = false;
        started = false;
        owed = false;
        memory = null;
        descStore = null;
        availStore = null;
        usedStore = null;
    }

    boolean ready() {
        return addressesSet && started && memory != null;
    }

    /**
     * Whether the driver has made a chain available for {@link #takeHead}. With EVENT_IDX, asks the driver
     * (avail_event) to kick at the next buffer before reporting the ring empty.
     */
    boolean hasAvailable() throws VhostUserException {
        int pending = pending();
        if (pending == 0 && eventIdx) {
            SplitRing.availEvent(usedStore, usedOff, size, lastAvailIdx);
            VarHandle.fullFence();
            pending = pending();
        }
        return pending != 0;
    }

    /** Takes the next available chain head; only after {@link #hasAvailable} said there is one. */
    int takeHead() throws VhostUserException {
        // the ring entry is read only after the idx that published it
        VarHandle.acquireFence();
        int head = SplitRing.availableEntry(availStore, availOff, lastAvailIdx & (size - 1));
        if (head >= size) {
            throw new VhostUserException(VhostUserFailure.BAD_HEAD, name + " avail[" + lastAvailIdx + "] = " + head
                    + " with " + size + " descriptors");
        }
        lastAvailIdx = (lastAvailIdx + 1) & 0xffff;
        return head;
    }

    private int pending() throws VhostUserException {
        int availIdx = SplitRing.availableIdx(availStore, availOff);
        int pending = (availIdx - lastAvailIdx) & 0xffff;
        if (pending > size) {
            throw new VhostUserException(VhostUserFailure.AVAIL_IDX_JUMP, name + " avail idx " + availIdx
                    + " is " + pending + " past last seen " + lastAvailIdx + " with " + size + " descriptors");
        }
        return pending;
    }

    /** Notes the {@code at}-th chain head taken for the frame being placed. */
    void rememberHead(int at, int head) {
        takenHeads[at] = head;
    }

    int rememberedHead(int at) {
        return takenHeads[at];
    }

    /** Gives back the chain head taken last (a frame that could not be placed after all). */
    void unpop(int count) {
        lastAvailIdx = (lastAvailIdx - count) & 0xffff;
    }

    /**
     * Walks the chain at {@code head} into the segment arrays, checking every descriptor: next links and indirect
     * tables in range, at most one descriptor per table entry (so a loop ends as an error), each buffer inside guest
     * memory, and each writable exactly when {@code deviceWrites}.
     */
    void walk(int head, boolean deviceWrites) throws VhostUserException {
        segments = 0;
        chainBytes = 0;
        long d = SplitRing.descriptor(descOff, head);
        int flags = SplitRing.flags(descStore, d);
        if ((flags & DESC_F_INDIRECT) != 0) {
            walkIndirect(head, d, flags, deviceWrites);
            return;
        }
        int i = head;
        while (true) {
            if (segments >= size) {
                throw new VhostUserException(VhostUserFailure.CHAIN_LOOP, name + " chain at " + head + " passes "
                        + size + " descriptors");
            }
            d = SplitRing.descriptor(descOff, i);
            flags = SplitRing.flags(descStore, d);
            if ((flags & DESC_F_INDIRECT) != 0) {
                throw new VhostUserException(VhostUserFailure.BAD_INDIRECT, name + " descriptor " + i
                        + " is indirect inside a chain");
            }
            addSegment(SplitRing.address(descStore, d), SplitRing.length(descStore, d), flags, deviceWrites, i);
            if ((flags & DESC_F_NEXT) == 0) {
                return;
            }
            i = SplitRing.next(descStore, d);
            if (i >= size) {
                throw new VhostUserException(VhostUserFailure.BAD_NEXT, name + " next " + i + " with " + size
                        + " descriptors");
            }
        }
    }

    private void walkIndirect(int head, long d, int flags, boolean deviceWrites) throws VhostUserException {
        long tableGpa = SplitRing.address(descStore, d);
        long tableLen = SplitRing.length(descStore, d) & 0xffffffffL;
        // §2.7.5.3.1: only when negotiated, never together with NEXT, a whole number of descriptors
        if (!indirect || (flags & DESC_F_NEXT) != 0 || tableLen == 0 || tableLen % DESC_SIZE != 0
                || tableLen / DESC_SIZE > size) {
            throw new VhostUserException(VhostUserFailure.BAD_INDIRECT, name + " head " + head + " table 0x"
                    + Long.toHexString(tableGpa) + " len " + tableLen + " flags 0x" + Integer.toHexString(flags)
                    + (indirect ? "" : " (INDIRECT_DESC not negotiated)"));
        }
        int region = memory.find(tableGpa, tableLen);
        if (region < 0) {
            throw new VhostUserException(VhostUserFailure.DESC_OUTSIDE_MEMORY, name + " indirect table 0x"
                    + Long.toHexString(tableGpa) + "+" + tableLen);
        }
        BytesStore<?, ?> table = memory.store(region);
        long tableOff = memory.offset(region, tableGpa);
        int entries = (int) (tableLen / DESC_SIZE);
        int i = 0;
        while (true) {
            if (segments >= entries) {
                throw new VhostUserException(VhostUserFailure.CHAIN_LOOP, name + " indirect chain at " + head
                        + " passes its " + entries + " entries");
            }
            long e = SplitRing.descriptor(tableOff, i);
            int f = SplitRing.flags(table, e);
            if ((f & DESC_F_INDIRECT) != 0) {
                throw new VhostUserException(VhostUserFailure.BAD_INDIRECT, name + " nested indirect table");
            }
            addSegment(SplitRing.address(table, e), SplitRing.length(table, e), f, deviceWrites, i);
            if ((f & DESC_F_NEXT) == 0) {
                return;
            }
            i = SplitRing.next(table, e);
            if (i >= entries) {
                throw new VhostUserException(VhostUserFailure.BAD_NEXT, name + " indirect next " + i + " of "
                        + entries + " entries");
            }
        }
    }

    private void addSegment(long gpa, int len, int flags, boolean deviceWrites, int at) throws VhostUserException {
        if (((flags & DESC_F_WRITE) != 0) != deviceWrites) {
            throw new VhostUserException(VhostUserFailure.WRONG_DIRECTION, name + " descriptor " + at + " is "
                    + (deviceWrites ? "read-only" : "device-writable"));
        }
        long length = len & 0xffffffffL;
        int region = memory.find(gpa, length);
        if (region < 0) {
            throw new VhostUserException(VhostUserFailure.DESC_OUTSIDE_MEMORY, name + " descriptor " + at + " 0x"
                    + Long.toHexString(gpa) + "+" + length);
        }
        segRegion[segments] = region;
        segOffset[segments] = memory.offset(region, gpa);
        segLen[segments] = len;
        segments++;
        chainBytes += length;
    }

    BytesStore<?, ?> segmentStore(int s) {
        return memory.store(segRegion[s]);
    }

    long segmentOffset(int s) {
        return segOffset[s];
    }

    long segmentLength(int s) {
        return segLen[s] & 0xffffffffL;
    }

    /** Returns a chain to the driver: used ring entry {head, bytes written}, then (release-ordered) the used idx. */
    void push(int head, long written) {
        SplitRing.usedElement(usedStore, usedOff, usedIdx & (size - 1), head, (int) written);
        VarHandle.releaseFence();
        usedIdx = (usedIdx + 1) & 0xffff;
        SplitRing.usedIdx(usedStore, usedOff, usedIdx);
    }

    /**
     * Whether the driver wants an interrupt for the entries pushed since {@code usedBefore}: with EVENT_IDX when
     * used_event lies in that span (§2.7.7.2 vring_need_event), otherwise unless it set NO_INTERRUPT.
     */
    boolean needsInterrupt(int usedBefore) {
        if (usedBefore == usedIdx) {
            return false;
        }
        VarHandle.fullFence();
        if (eventIdx) {
            return needEvent(SplitRing.usedEvent(availStore, availOff, size), usedIdx, usedBefore);
        }
        return (SplitRing.availableFlags(availStore, availOff) & SplitRing.AVAIL_F_NO_INTERRUPT) == 0;
    }

    /**
     * §2.7.7.2 / §2.7.10 (the spec's vring_need_event): whether the other side asked to be notified when the index
     * it watches moved from {@code oldIdx} to {@code newIdx}, i.e. whether {@code event} (used_event or
     * avail_event) lies in [oldIdx, newIdx), all three free-running 16-bit counters compared modulo 2^16.
     */
    static boolean needEvent(int event, int newIdx, int oldIdx) {
        return ((newIdx - event - 1) & 0xffff) < ((newIdx - oldIdx) & 0xffff);
    }

    /** Signals the call descriptor when {@link #needsInterrupt}; true when it was signalled. */
    boolean interrupt(int usedBefore) {
        NotifyFd c = call;
        return c != null && needsInterrupt(usedBefore) && c.signal();
    }

    /**
     * Notes that the entries from {@code usedBefore} on were pushed and the driver is owed the notification
     * decision for them, which {@link #signalOwed} takes later for all the entries pushed meanwhile at once
     * (§2.7.7.2: the device decides on the whole span since it last did, so nothing the driver asked for is lost).
     */
    void owe(int usedBefore) {
        if (!owed && usedBefore != usedIdx) {
            owed = true;
            owedFrom = usedBefore;
        }
    }

    /** Takes the decision {@link #owe} put off: true when the call descriptor was signalled. */
    boolean signalOwed() {
        if (!owed) {
            return false;
        }
        owed = false;
        return interrupt(owedFrom);
    }
}
