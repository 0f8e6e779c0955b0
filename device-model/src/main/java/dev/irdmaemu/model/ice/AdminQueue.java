package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.QH_M;
import static dev.irdmaemu.fw.reg.IceRegister.QLEN_CRIT_M;
import static dev.irdmaemu.fw.reg.IceRegister.QLEN_ENABLE_M;
import static dev.irdmaemu.fw.reg.IceRegister.QLEN_LEN_M;
import static dev.irdmaemu.fw.reg.IceRegister.QLEN_OVFL_M;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqDescriptorCheck;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.Arrays;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One E810 control queue pair as the firmware serves it: the ATQ (commands the driver posts, answered in place) and
 * the ARQ (events the firmware writes into buffers the driver posted), with their five registers each. The PF admin
 * queue (PF_FW_*) and the PF/VF mailbox (PF_MBX_*) are two instances.
 *
 * <p>Register semantics are the ones ice_controlq.c relies on: ice_cfg_cq_regs writes head 0, tail 0, LEN (entries
 * | ENABLE), BAL, BAH and reads BAL back, so the ring base is taken from BAL/BAH when a tail is written, not when
 * LEN enables the ring; ice_check_sq_alive needs LEN's length and enable bits to read back as written; ice_sq_done
 * polls ATQH until it equals the tail it wrote (1 s budget), so a tail write runs every descriptor from ATQH to the
 * new tail synchronously. The ARQ holds one buffer back: the firmware writes at ARQH while ARQH != ARQT
 * (ice_clean_rq_elem writes ARQT = the index it just cleaned; ice_cfg_rq_regs posts len - 1 buffers).
 *
 * <p>Guest faults never throw. A bad descriptor or buffer gets an {@link AqError} in the descriptor's retval; a
 * fault of the ring itself (length 0 or with reserved bits when enabled, a tail outside the ring, a descriptor
 * outside mapped memory) sets the queue's CRIT bit in LEN and stops the queue until LEN is written again; an event
 * with no posted ARQ buffer sets OVFL. Per command nothing is allocated: the descriptor and buffer are copied into
 * two private native stores.
 */
public final class AdminQueue {
    /** What {@link #postEvent} did. */
    public enum EventPost {
        POSTED,
        /** ARQ not enabled: the event is dropped, as the firmware drops events for a queue the driver shut down. */
        DISABLED,
        /** No ARQ buffer posted (ARQH == ARQT): dropped, OVFL set in ARQLEN. */
        OVERFLOW,
        /** The ARQ descriptor or its buffer is not in mapped memory, or the ring is faulted: CRIT set in ARQLEN. */
        RING_FAULT
    }

    private static final Logger LOG = LoggerFactory.getLogger(AdminQueue.class);
    /** Bits of LEN a write may set: length, VFE, enable (CRIT/OVFL are the firmware's). */
    private static final int LEN_WRITABLE = QLEN_LEN_M | 1 << 28 | QLEN_ENABLE_M;

    private final String name;
    private final HostMemory memory;
    private final Trace trace;
    private final Runnable raiseCause;

    private int atqBal;
    private int atqBah;
    private int atqLen;
    private int atqHead;
    private int atqTail;
    private int arqBal;
    private int arqBah;
    private int arqLen;
    private int arqHead;
    private int arqTail;

    private int[] opcodes = new int[0];
    private AqCommandHandler[] handlers = new AqCommandHandler[0];

    private final BytesStore<?, Void> descStore = BytesStore.nativeStoreWithFixedCapacity(AqDescriptor.SIZE);
    private final AqDescriptor desc = new AqDescriptor();
    private final Bytes<Void> buf = Bytes.allocateDirect(AqDescriptor.MAX_BUF_LEN);
    private final BytesStore<?, Void> eventStore = BytesStore.nativeStoreWithFixedCapacity(AqDescriptor.SIZE);
    private final AqDescriptor event = new AqDescriptor();

    private long commands;
    private long errors;
    private long handlerFaults;
    private long eventsPosted;
    private long eventsDropped;

    /**
     * @param name       "fw" or "mbx", for the trace
     * @param raiseCause raises this queue's interrupt cause (PFINT_FW_CTL / PFINT_MBX_CTL routing is the caller's)
     */
    public AdminQueue(String name, HostMemory memory, Trace trace, Runnable raiseCause) {
        this.name = name;
        this.memory = memory;
        this.trace = trace;
        this.raiseCause = raiseCause;
        desc.wrap(descStore, 0);
        event.wrap(eventStore, 0);
    }

    /** Installs the handler of {@code opcode}, replacing any earlier one. Not for the hot path. */
    public synchronized void register(int opcode, AqCommandHandler handler) {
        if (opcode < 0 || opcode > 0xFFFF || handler == null) {
            throw new IllegalArgumentException("AQ handler for opcode " + opcode);
        }
        int i = Arrays.binarySearch(opcodes, opcode);
        if (i >= 0) {
            handlers[i] = handler;
            return;
        }
        int at = -i - 1;
        int[] o = new int[opcodes.length + 1];
        AqCommandHandler[] h = new AqCommandHandler[handlers.length + 1];
        System.arraycopy(opcodes, 0, o, 0, at);
        System.arraycopy(handlers, 0, h, 0, at);
        o[at] = opcode;
        h[at] = handler;
        System.arraycopy(opcodes, at, o, at + 1, opcodes.length - at);
        System.arraycopy(handlers, at, h, at + 1, handlers.length - at);
        opcodes = o;
        handlers = h;
    }

    public boolean handles(int opcode) {
        return Arrays.binarySearch(opcodes, opcode) >= 0;
    }

    /** Power-on / PF-reset state: both rings disabled, every register 0. Handlers stay registered. */
    public void reset() {
        atqBal = atqBah = atqLen = atqHead = atqTail = 0;
        arqBal = arqBah = arqLen = arqHead = arqTail = 0;
    }

    // ---- ATQ registers ----

    public int atqBal() {
        return atqBal;
    }

    public void atqBal(int v) {
        atqBal = v;
    }

    public int atqBah() {
        return atqBah;
    }

    public void atqBah(int v) {
        atqBah = v;
    }

    public int atqLen() {
        return atqLen;
    }

    /** A LEN write: keeps length / VFE / enable, clears CRIT and OVFL; an impossible length faults the ring. */
    public void atqLen(int v) {
        atqLen = checkedLen(v, "atq");
        if (ringLength(atqLen) == 0 || atqHead >= ringLength(atqLen)) {
            atqHead = 0;
        }
    }

    public int atqHead() {
        return atqHead;
    }

    /** The driver writes 0 here at init and shutdown; a head outside an enabled ring is ignored. */
    public void atqHead(int v) {
        int h = v & QH_M;
        if (enabled(atqLen) && h >= ringLength(atqLen)) {
            traceFault("atq", "head_outside_ring", h);
            return;
        }
        atqHead = h;
    }

    public int atqTail() {
        return atqTail;
    }

    /** The doorbell: runs every command from ATQH to the new tail before returning (ice_sq_done polls ATQH). */
    public void atqTail(int v) {
        atqTail = v & QH_M;
        if (!enabled(atqLen)) {
            return;
        }
        int len = ringLength(atqLen);
        if ((v & ~QH_M) != 0 || atqTail >= len) {
            atqLen |= QLEN_CRIT_M;
            traceFault("atq", "tail_outside_ring", v);
            return;
        }
        for (int guard = 0; atqHead != atqTail && guard < len; guard++) {
            if (!execute(atqHead)) {
                return;
            }
            atqHead = atqHead + 1 == len ? 0 : atqHead + 1;
        }
    }

    // ---- ARQ registers ----

    public int arqBal() {
        return arqBal;
    }

    public void arqBal(int v) {
        arqBal = v;
    }

    public int arqBah() {
        return arqBah;
    }

    public void arqBah(int v) {
        arqBah = v;
    }

    public int arqLen() {
        return arqLen;
    }

    public void arqLen(int v) {
        arqLen = checkedLen(v, "arq");
        if (ringLength(arqLen) == 0 || arqHead >= ringLength(arqLen)) {
            arqHead = 0;
        }
    }

    public int arqHead() {
        return arqHead;
    }

    public void arqHead(int v) {
        int h = v & QH_M;
        if (enabled(arqLen) && h >= ringLength(arqLen)) {
            traceFault("arq", "head_outside_ring", h);
            return;
        }
        arqHead = h;
    }

    public int arqTail() {
        return arqTail;
    }

    /** The driver posts buffers by moving ARQT; a tail outside the ring faults the ARQ. */
    public void arqTail(int v) {
        arqTail = v & QH_M;
        if (enabled(arqLen) && ((v & ~QH_M) != 0 || arqTail >= ringLength(arqLen))) {
            arqLen |= QLEN_CRIT_M;
            traceFault("arq", "tail_outside_ring", v);
        }
    }

    private int checkedLen(int v, String ring) {
        int stored = v & LEN_WRITABLE;
        if ((v & QLEN_ENABLE_M) != 0) {
            int n = v & QLEN_LEN_M;
            boolean reserved = (v & ~(LEN_WRITABLE | QLEN_CRIT_M | QLEN_OVFL_M)) != 0;
            if (n == 0 || reserved) {
                // the ring does not come up: ENABLE does not read back (ice_check_sq_alive fails), CRIT tells why
                traceFault(ring, n == 0 ? "length_zero" : "length_reserved_bits", v);
                return (stored & ~QLEN_ENABLE_M) | QLEN_CRIT_M;
            }
        }
        return stored;
    }

    private static boolean enabled(int len) {
        return (len & QLEN_ENABLE_M) != 0 && (len & QLEN_CRIT_M) == 0 && (len & QLEN_LEN_M) != 0;
    }

    private static int ringLength(int len) {
        return len & QLEN_LEN_M;
    }

    private static long base(int bah, int bal) {
        return (bah & 0xffff_ffffL) << 32 | (bal & 0xffff_ffffL);
    }

    // ---- command execution ----

    /** Runs the ATQ descriptor at {@code index}; false (CRIT set) when the ring itself is broken. */
    private boolean execute(int index) {
        long gpa = base(atqBah, atqBal) + (long) index * AqDescriptor.SIZE;
        if (!memory.copyOut(gpa, descStore, 0, AqDescriptor.SIZE)) {
            atqLen |= QLEN_CRIT_M;
            traceFault("atq", "descriptor_unmapped", gpa);
            LOG.warn("{} ATQ descriptor {} at 0x{} is not in guest memory: queue marked critical", name, index,
                    Long.toHexString(gpa));
            return false;
        }
        commands++;
        int opcode = desc.opcode();
        int flags = desc.flags();
        int driverLen = desc.datalen();
        long bufGpa = desc.bufferAddress();
        long param0 = desc.paramU32(0);
        long param1 = desc.paramU32(4);
        boolean hasBuf = (flags & AqDescriptor.BUF) != 0;
        int retval;
        int replyLen = 0;
        AqDescriptorCheck check = desc.validate();
        String reason = null;
        if (!check.accepted()) {
            retval = AqError.EINVAL;
            reason = check.name();
        } else if (hasBuf && !memory.copyOut(bufGpa, buf.bytesStore(), 0, driverLen)) {
            retval = AqError.EIO;
            reason = "buffer_unmapped";
        } else {
            AqCommandHandler h = handler(opcode);
            if (h == null) {
                retval = AqError.ESRCH;
                reason = "no_handler";
            } else {
                Bytes<?> b = null;
                if (hasBuf) {
                    buf.clear();
                    buf.writePosition(driverLen);
                    buf.writeLimit(driverLen);
                    buf.readPosition(0);
                    b = buf;
                }
                retval = run(h, opcode, b);
                replyLen = hasBuf ? desc.datalen() : 0;
                if (replyLen > driverLen) {
                    reason = "reply_longer_than_buffer";
                    retval = AqError.ENOMEM;
                    replyLen = 0;
                }
            }
        }
        if (retval != AqError.OK) {
            errors++;
        }
        if (replyLen > 0 && !memory.copyIn(bufGpa, buf.bytesStore(), 0, replyLen)) {
            retval = AqError.EIO;
            replyLen = 0;
        }
        int out = (flags | AqDescriptor.DD | AqDescriptor.CMP) & ~AqDescriptor.ERR;
        if (retval != AqError.OK) {
            out |= AqDescriptor.ERR;
        }
        desc.flags(out).retval(retval).datalen(replyLen);
        memory.copyIn(gpa, descStore, 0, AqDescriptor.SIZE);
        TraceEvent t = trace.start(TraceKind.AQ);
        if (t != null) {
            t.text("q", name).text("dir", "cmd").hex("opcode", opcode).text("op", AqOpcode.name(opcode))
                    .text("retval", AqError.name(retval)).num("datalen", driverLen).num("reply_len", replyLen)
                    .num("idx", index).hex("flags", flags).hex("param0", param0).hex("param1", param1);
            if (hasBuf) {
                t.hex("buf", bufGpa);
            }
            if (reason != null) {
                t.text("reason", reason);
            }
            t.emit();
        }
        if ((flags & AqDescriptor.SI) == 0 || retval != AqError.OK && (flags & AqDescriptor.EI) != 0) {
            raiseCause.run();
        }
        return true;
    }

    private int run(AqCommandHandler h, int opcode, Bytes<?> b) {
        try {
            return h.handle(desc, b);
        } catch (RuntimeException e) {
            if (handlerFaults++ < 16) {
                LOG.error("{} AQ handler of opcode 0x{} ({}) threw: answered EIO", name, Integer.toHexString(opcode),
                        AqOpcode.name(opcode), e);
            }
            return AqError.EIO;
        }
    }

    private AqCommandHandler handler(int opcode) {
        int i = Arrays.binarySearch(opcodes, opcode);
        return i >= 0 ? handlers[i] : null;
    }

    // ---- ARQ events ----

    /**
     * Writes an event into the next posted ARQ buffer: flags DD|CMP, {@code opcode}, datalen = the bytes written
     * (at most the posted buffer's datalen, as ice_clean_rq_elem copies min(datalen, its buffer)), the 16
     * {@code params} bytes (null: zero) and {@code length} bytes of {@code buffer} from {@code bufferOffset} (null
     * or 0: no buffer); then advances ARQH and raises the queue's interrupt cause.
     */
    public EventPost postEvent(int opcode, BytesStore<?, ?> params, BytesStore<?, ?> buffer, long bufferOffset,
                               int length) {
        if (!enabled(arqLen)) {
            eventsDropped++;
            return EventPost.DISABLED;
        }
        int len = ringLength(arqLen);
        if (arqHead >= len || arqTail >= len) {
            arqLen |= QLEN_CRIT_M;
            eventsDropped++;
            traceFault("arq", "head_or_tail_outside_ring", arqHead);
            return EventPost.RING_FAULT;
        }
        if (arqHead == arqTail) {
            arqLen |= QLEN_OVFL_M;
            eventsDropped++;
            traceFault("arq", "no_buffer_posted", opcode);
            return EventPost.OVERFLOW;
        }
        long gpa = base(arqBah, arqBal) + (long) arqHead * AqDescriptor.SIZE;
        if (!memory.copyOut(gpa, eventStore, 0, AqDescriptor.SIZE)) {
            arqLen |= QLEN_CRIT_M;
            eventsDropped++;
            traceFault("arq", "descriptor_unmapped", gpa);
            return EventPost.RING_FAULT;
        }
        int posted = (event.flags() & AqDescriptor.BUF) != 0 ? event.datalen() : 0;
        long bufGpa = event.bufferAddress();
        int n = buffer == null ? 0 : Math.max(0, Math.min(length, Math.min(posted, AqDescriptor.MAX_BUF_LEN)));
        if (n > 0 && !memory.copyIn(bufGpa, buffer, bufferOffset, n)) {
            arqLen |= QLEN_CRIT_M;
            eventsDropped++;
            traceFault("arq", "buffer_unmapped", bufGpa);
            return EventPost.RING_FAULT;
        }
        event.clear();
        if (params != null) {
            eventStore.write(AqDescriptor.PARAMS, params, params.start(), AqDescriptor.PARAMS_SIZE);
        }
        event.flags(AqDescriptor.DD | AqDescriptor.CMP).opcode(opcode).datalen(n).retval(AqError.OK);
        memory.copyIn(gpa, eventStore, 0, AqDescriptor.SIZE);
        int at = arqHead;
        arqHead = arqHead + 1 == len ? 0 : arqHead + 1;
        eventsPosted++;
        TraceEvent t = trace.start(TraceKind.AQ);
        if (t != null) {
            t.text("q", name).text("dir", "event").hex("opcode", opcode).text("op", AqOpcode.name(opcode))
                    .text("retval", AqError.name(AqError.OK)).num("datalen", n).num("idx", at).emit();
        }
        raiseCause.run();
        return EventPost.POSTED;
    }

    private void traceFault(String ring, String reason, long value) {
        TraceEvent t = trace.start(TraceKind.AQ);
        if (t != null) {
            t.text("q", name).text("dir", "fault").text("ring", ring).text("reason", reason).hex("val", value).emit();
        }
    }

    public long commands() {
        return commands;
    }

    public long errors() {
        return errors;
    }

    public long eventsPosted() {
        return eventsPosted;
    }

    public long eventsDropped() {
        return eventsDropped;
    }

    public String name() {
        return name;
    }
}
