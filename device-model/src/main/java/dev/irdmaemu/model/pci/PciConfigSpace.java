package dev.irdmaemu.model.pci;

import dev.irdmaemu.fw.pci.PciRegs;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.Optional;

/**
 * A PCI Express function's 4 KiB configuration space as a table: every byte has its value, its power-on value and
 * four masks saying what a guest write does to each bit: read-write, write-one-to-clear, sticky (kept by FLR and
 * by a conventional reset, the spec's RWS / RW1CS / ROS) and kept by FLR only (the link-control fields the spec
 * leaves alone on a function-level reset). A bit in no mask is read-only. Fields are named for the trace, and a
 * field may have a named write handler for the few with side effects (FLR, the power state), as the register
 * table of {@link dev.irdmaemu.model.E810RdmaFunction} does for BAR0.
 *
 * <p>Every access is bounds-checked: bytes outside the 4 KiB read 0 and ignore writes; any offset and size a
 * transport forwards is answered, byte by byte, without an exception. Multi-byte values are little-endian, as
 * config space is.
 */
public final class PciConfigSpace {
    /** What a write to a field does besides the masks; called after the masks applied. */
    @FunctionalInterface
    public interface OnWrite {
        /**
         * {@code written}: the bits the guest wrote, field-relative ({@code writtenBytes} has 0xff per byte the
         * write covered); {@code before}: the field's value before the masks applied.
         */
        void written(int written, int writtenBytes, int before);
    }

    public static final int SIZE = PciRegs.CFG_SPACE_EXP_SIZE;
    private static final int MAX_FIELDS = 256;

    private final Trace trace;
    private final byte[] value = new byte[SIZE];
    private final byte[] powerOn = new byte[SIZE];
    private final byte[] rw = new byte[SIZE];
    private final byte[] rw1c = new byte[SIZE];
    private final byte[] sticky = new byte[SIZE];
    private final byte[] keptOnFlr = new byte[SIZE];
    private final short[] fieldOf = new short[SIZE];
    private final String[] fieldNames = new String[MAX_FIELDS];
    private final int[] fieldOffsets = new int[MAX_FIELDS];
    private final int[] fieldWidths = new int[MAX_FIELDS];
    private final OnWrite[] handlers = new OnWrite[MAX_FIELDS];
    private final String[] handlerNames = new String[MAX_FIELDS];
    /** Scratch of {@link #write}: the fields a write touched and their values before it. */
    private final int[] touched = new int[8];
    private final int[] beforeScratch = new int[8];
    private int fields;
    private long writes;
    private long ignoredWrites;

    public PciConfigSpace(Trace trace) {
        this.trace = trace;
        java.util.Arrays.fill(fieldOf, (short) -1);
    }

    // --- building the table (power-on values and masks)

    /** Sets the power-on (and current) value of {@code width} bytes at {@code offset}. */
    public PciConfigSpace init(int offset, int width, long v) {
        for (int i = 0; i < width; i++) {
            byte b = (byte) (v >>> (8 * i));
            value[offset + i] = b;
            powerOn[offset + i] = b;
        }
        return this;
    }

    /** Marks the bits of {@code mask} read-write. */
    public PciConfigSpace writable(int offset, int width, long mask) {
        return or(rw, offset, width, mask);
    }

    /** Marks the bits of {@code mask} write-one-to-clear (status bits the device sets). */
    public PciConfigSpace writeOneToClear(int offset, int width, long mask) {
        return or(rw1c, offset, width, mask);
    }

    /** Marks the bits of {@code mask} sticky: neither FLR nor a conventional reset changes them. */
    public PciConfigSpace sticky(int offset, int width, long mask) {
        return or(sticky, offset, width, mask);
    }

    /** Marks the bits of {@code mask} as kept by FLR (a conventional reset still returns them to power-on). */
    public PciConfigSpace keptOnFlr(int offset, int width, long mask) {
        return or(keptOnFlr, offset, width, mask);
    }

    private PciConfigSpace or(byte[] masks, int offset, int width, long mask) {
        for (int i = 0; i < width; i++) {
            masks[offset + i] |= (byte) (mask >>> (8 * i));
        }
        return this;
    }

    /** Names {@code width} bytes at {@code offset} for the trace; answers the field's index. */
    public int field(String name, int offset, int width) {
        return field(name, offset, width, null, null);
    }

    /** A named field with a named write handler. */
    public int field(String name, int offset, int width, String handlerName, OnWrite handler) {
        if (fields == MAX_FIELDS || width < 1 || width > 4 || offset < 0 || offset + width > SIZE) {
            throw new IllegalArgumentException("config field " + name);
        }
        for (int i = 0; i < width; i++) {
            if (fieldOf[offset + i] >= 0) {
                throw new IllegalArgumentException("config field " + name + " overlaps "
                        + fieldNames[fieldOf[offset + i]]);
            }
        }
        int f = fields++;
        fieldNames[f] = name;
        fieldOffsets[f] = offset;
        fieldWidths[f] = width;
        handlers[f] = handler;
        handlerNames[f] = handlerName;
        for (int i = 0; i < width; i++) {
            fieldOf[offset + i] = (short) f;
        }
        return f;
    }

    // --- guest accesses

    /** Reads {@code size} (1..4) bytes at {@code offset}; bytes outside the space read 0, other sizes answer 0. */
    public int read(int offset, int size) {
        if (size < 1 || size > 4) {
            return 0;
        }
        int v = 0;
        for (int i = 0; i < size; i++) {
            v |= (byte8(offset + i) & 0xff) << (8 * i);
        }
        return v;
    }

    /** Copies {@code length} bytes from {@code offset} into {@code into}; bytes outside the space read 0. */
    public void read(int offset, byte[] into, int intoOffset, int length) {
        for (int i = 0; i < length; i++) {
            into[intoOffset + i] = byte8(offset + i);
        }
    }

    private byte byte8(int at) {
        return at >= 0 && at < SIZE ? value[at] : 0;
    }

    /**
     * A guest write of {@code size} (1..4) bytes: each bit changes as its masks say, then each field the write
     * touched is traced (name, offset, the value it now holds) and its handler, if any, runs. A size outside 1..4
     * or bytes outside the space are dropped (counted, traced).
     */
    public void write(int offset, int size, int v) {
        writes++;
        if (size < 1 || size > 4 || offset < 0 || offset > SIZE - size) {
            ignoredWrites++;
            TraceEvent t = trace.start(TraceKind.PCI_CONFIG);
            if (t != null) {
                t.text("field", "outside").hex("off", offset & 0xffff_ffffL).num("size", size)
                        .hex("val", v & 0xffff_ffffL).emit();
            }
            return;
        }
        int nTouched = 0;
        int[] before = beforeScratch;
        for (int i = 0; i < size; i++) {
            int at = offset + i;
            int f = fieldOf[at];
            if (f >= 0 && !contains(touched, nTouched, f)) {
                touched[nTouched] = f;
                before[nTouched] = fieldValue(f);
                nTouched++;
            }
            int w = (v >>> (8 * i)) & 0xff;
            int old = value[at] & 0xff;
            int nv = (old & ~rw[at]) | (w & rw[at]);
            nv &= ~(w & rw1c[at]);
            value[at] = (byte) nv;
        }
        if (nTouched == 0) {
            TraceEvent t = trace.start(TraceKind.PCI_CONFIG);
            if (t != null) {
                t.text("field", "reserved").hex("off", offset).num("size", size).hex("val", v & 0xffff_ffffL).emit();
            }
            return;
        }
        for (int k = 0; k < nTouched; k++) {
            int f = touched[k];
            int fo = fieldOffsets[f];
            int written = 0;
            int writtenBytes = 0;
            for (int i = 0; i < fieldWidths[f]; i++) {
                int at = fo + i;
                if (at >= offset && at < offset + size) {
                    written |= ((v >>> (8 * (at - offset))) & 0xff) << (8 * i);
                    writtenBytes |= 0xff << (8 * i);
                }
            }
            TraceEvent t = trace.start(TraceKind.PCI_CONFIG);
            if (t != null) {
                t.text("field", fieldNames[f]).hex("off", fo).hex("written", written & 0xffff_ffffL)
                        .hex("val", fieldValue(f) & 0xffff_ffffL);
                if (handlerNames[f] != null) {
                    t.text("handler", handlerNames[f]);
                }
                t.emit();
            }
            if (handlers[f] != null) {
                handlers[f].written(written, writtenBytes, before[k]);
            }
        }
    }

    private static boolean contains(int[] a, int n, int x) {
        for (int i = 0; i < n; i++) {
            if (a[i] == x) {
                return true;
            }
        }
        return false;
    }

    // --- device-side access

    /** The current value of field {@code f}. */
    public int fieldValue(int f) {
        return read(fieldOffsets[f], fieldWidths[f]);
    }

    /**
     * Sets bits as the device does (not a guest write: no masks, no trace), e.g. a status bit the device raises, or
     * a field a handler refuses to change.
     */
    public void deviceSet(int offset, int width, int v) {
        for (int i = 0; i < width; i++) {
            value[offset + i] = (byte) (v >>> (8 * i));
        }
    }

    /**
     * Returns the space to power-on state except its sticky bits, and, for an FLR, the bits kept on FLR too.
     * Answers how many bytes changed.
     */
    public int reset(boolean flr) {
        int changed = 0;
        for (int i = 0; i < SIZE; i++) {
            int keep = sticky[i] | (flr ? keptOnFlr[i] : 0);
            byte nv = (byte) ((value[i] & keep) | (powerOn[i] & ~keep));
            if (nv != value[i]) {
                changed++;
                value[i] = nv;
            }
        }
        return changed;
    }

    // --- what the table says (tests, the trace)

    public int writableMask(int offset, int width) {
        return mask(rw, offset, width);
    }

    public int writeOneToClearMask(int offset, int width) {
        return mask(rw1c, offset, width);
    }

    public int stickyMask(int offset, int width) {
        return mask(sticky, offset, width);
    }

    private static int mask(byte[] m, int offset, int width) {
        int v = 0;
        for (int i = 0; i < width; i++) {
            v |= (m[offset + i] & 0xff) << (8 * i);
        }
        return v;
    }

    /** The name of the field holding byte {@code offset}, if a field holds it. */
    public Optional<String> fieldName(int offset) {
        if (offset < 0 || offset >= SIZE || fieldOf[offset] < 0) {
            return Optional.empty();
        }
        return Optional.of(fieldNames[fieldOf[offset]]);
    }

    /** Guest writes so far, and those dropped (bad size or outside the space). */
    public long writes() {
        return writes;
    }

    public long ignoredWrites() {
        return ignoredWrites;
    }
}
