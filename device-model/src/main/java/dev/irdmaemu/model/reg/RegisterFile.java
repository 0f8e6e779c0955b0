package dev.irdmaemu.model.reg;

import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.OptionalInt;

/**
 * BAR0 as a table from offset to behaviour, in the style of QEMU igb's dispatch tables: every defined register (or
 * register array, e.g. GLINT_DYN_CTL(0..2047)) is a block with its own storage and an optional named read and
 * write handler; blocks without a handler are plain storage. Lookups go through an open-addressed table keyed by
 * the 32-bit offset and allocate nothing. Unknown offsets read 0, ignore writes, and are traced once each. A
 * read-only block ({@link #defineReadOnly}) ignores writes: the first per block is traced as reg_read_only and
 * logged as a warning, later ones only counted.
 */
public final class RegisterFile {
    /** Answers a read of element {@code element}; {@code stored} is the block's plain storage for it. */
    @FunctionalInterface
    public interface OnRead {
        int read(int element, int stored);
    }

    /** Takes a write of element {@code element}; storing the value (or not) is the handler's choice. */
    @FunctionalInterface
    public interface OnWrite {
        void write(int element, int value);
    }

    private static final Logger LOG = LoggerFactory.getLogger(RegisterFile.class);
    private static final int EMPTY = -1;
    private static final int MAX_BLOCKS = 64;

    private final Trace trace;
    private final String[] names = new String[MAX_BLOCKS];
    private final long[] bases = new long[MAX_BLOCKS];
    private final int[] strides = new int[MAX_BLOCKS];
    private final int[][] storage = new int[MAX_BLOCKS][];
    private final OnRead[] readers = new OnRead[MAX_BLOCKS];
    private final OnWrite[] writers = new OnWrite[MAX_BLOCKS];
    private final String[] readerNames = new String[MAX_BLOCKS];
    private final String[] writerNames = new String[MAX_BLOCKS];
    private final boolean[] readOnly = new boolean[MAX_BLOCKS];
    private final long[] readOnlyWrites = new long[MAX_BLOCKS];
    private int blocks;

    private int[] keys = new int[1 << 15];
    private int[] slots = new int[1 << 15];
    private int entries;

    private final Set<Long> unknownSeen = new HashSet<>();
    private long unknownReads;
    private long unknownWrites;

    public RegisterFile(Trace trace) {
        this.trace = trace;
        java.util.Arrays.fill(slots, EMPTY);
    }

    /** Defines a plain register; answers its block id. */
    public int define(String name, long offset) {
        return define(name, offset, 1, 0, null, null, null, null);
    }

    /**
     * Defines {@code count} registers {@code stride} bytes apart from {@code offset}. {@code readName} /
     * {@code writeName} name the side-effect handlers in the trace (null handler: plain storage).
     */
    public int define(String name, long offset, int count, int stride, String readName, OnRead read,
                      String writeName, OnWrite write) {
        if (blocks == MAX_BLOCKS || count < 1 || count > 0xffff || offset < 0 || offset > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("register block " + name);
        }
        int b = blocks++;
        names[b] = name;
        bases[b] = offset;
        strides[b] = stride;
        storage[b] = new int[count];
        readers[b] = read;
        writers[b] = write;
        readerNames[b] = readName;
        writerNames[b] = writeName;
        for (int i = 0; i < count; i++) {
            insert((int) (offset + (long) i * stride), b << 16 | i);
        }
        return b;
    }

    /**
     * Defines {@code count} read-only registers: reads as {@link #define} (plain storage without a handler),
     * writes ignored, the first one traced and logged as a warning, every one counted.
     */
    public int defineReadOnly(String name, long offset, int count, int stride, String readName, OnRead read) {
        int b = define(name, offset, count, stride, readName, read, "read_only", null);
        readOnly[b] = true;
        return b;
    }

    private void insert(int offset, int slot) {
        if ((entries + 1) * 2 > keys.length) {
            int[] ok = keys;
            int[] os = slots;
            keys = new int[ok.length * 2];
            slots = new int[os.length * 2];
            java.util.Arrays.fill(slots, EMPTY);
            entries = 0;
            for (int i = 0; i < ok.length; i++) {
                if (os[i] != EMPTY) {
                    insert(ok[i], os[i]);
                }
            }
        }
        int m = keys.length - 1;
        int h = mix(offset) & m;
        while (slots[h] != EMPTY) {
            if (keys[h] == offset) {
                throw new IllegalArgumentException("register offset 0x" + Integer.toHexString(offset) + " twice");
            }
            h = (h + 1) & m;
        }
        keys[h] = offset;
        slots[h] = slot;
        entries++;
    }

    private static int mix(int x) {
        x *= 0x9E3779B9;
        return x ^ (x >>> 16);
    }

    /** The packed (block << 16 | element) for {@code offset}, or -1. */
    public int lookup(long offset) {
        if (offset < 0 || offset > Integer.MAX_VALUE) {
            return EMPTY;
        }
        int o = (int) offset;
        int m = keys.length - 1;
        int h = mix(o) & m;
        while (slots[h] != EMPTY) {
            if (keys[h] == o) {
                return slots[h];
            }
            h = (h + 1) & m;
        }
        return EMPTY;
    }

    public int read32(long offset) {
        int s = lookup(offset);
        if (s == EMPTY) {
            unknownReads++;
            unknown("read", offset, 0);
            return 0;
        }
        int b = s >>> 16;
        int e = s & 0xffff;
        int stored = storage[b][e];
        int v = readers[b] == null ? stored : readers[b].read(e, stored);
        traceAccess(TraceKind.REG_READ, b, e, offset, v, readerNames[b]);
        return v;
    }

    /** A read or write of entry {@code e} of block {@code b}, traced with the handler that served it (if any). */
    private void traceAccess(TraceKind kind, int b, int e, long offset, int v, String handler) {
        TraceEvent t = trace.start(kind);
        if (t != null) {
            t.text("reg", names[b]).num("idx", e).hex("off", offset).hex("val", v & 0xffff_ffffL);
            if (handler != null) {
                t.text("handler", handler);
            }
            t.emit();
        }
    }

    public void write32(long offset, int value) {
        int s = lookup(offset);
        if (s == EMPTY) {
            unknownWrites++;
            unknown("write", offset, value);
            return;
        }
        int b = s >>> 16;
        int e = s & 0xffff;
        traceAccess(TraceKind.REG_WRITE, b, e, offset, value, writerNames[b]);
        if (readOnly[b]) {
            if (readOnlyWrites[b]++ == 0) {
                readOnlyWrite(b, e, offset, value);
            }
            return;
        }
        if (writers[b] == null) {
            storage[b][e] = value;
        } else {
            writers[b].write(e, value);
        }
    }

    private void readOnlyWrite(int b, int e, long offset, int value) {
        TraceEvent t = trace.start(TraceKind.REG_READ_ONLY);
        if (t != null) {
            t.text("reg", names[b]).num("idx", e).hex("off", offset).hex("val", value & 0xffff_ffffL).emit();
        }
        LOG.warn("write of 0x{} to read-only register {} (offset 0x{}) ignored; later writes to it are only counted",
                Integer.toHexString(value), names[b], Long.toHexString(offset));
    }

    private void unknown(String access, long offset, int value) {
        if (unknownSeen.size() < 4096 && unknownSeen.add(offset)) {
            TraceEvent t = trace.start(TraceKind.REG_UNKNOWN);
            if (t != null) {
                t.text("access", access).hex("off", offset).hex("val", value & 0xffff_ffffL).emit();
            }
        }
    }

    /** Plain storage of element {@code element} of block {@code block}. */
    public int stored(int block, int element) {
        return storage[block][element];
    }

    public void store(int block, int element, int value) {
        storage[block][element] = value;
    }

    public String name(int block) {
        return names[block];
    }

    public int elements(int block) {
        return storage[block].length;
    }

    public boolean readOnly(int block) {
        return readOnly[block];
    }

    /** Writes to read-only block {@code block} (all ignored; the first was traced and logged). */
    public long readOnlyWrites(int block) {
        return readOnlyWrites[block];
    }

    /** The block named {@code name}, if one is defined (a lookup by name: not for per-frame paths). */
    public OptionalInt block(String name) {
        for (int b = 0; b < blocks; b++) {
            if (names[b].equals(name)) {
                return OptionalInt.of(b);
            }
        }
        return OptionalInt.empty();
    }

    public long unknownReads() {
        return unknownReads;
    }

    public long unknownWrites() {
        return unknownWrites;
    }

    /** Distinct unknown offsets seen (each traced once). */
    public int unknownOffsets() {
        return unknownSeen.size();
    }
}
