package dev.irdmaemu.model.mr;

import static dev.irdmaemu.fw.hmc.PbleLayout.CHUNK_LEVEL_1;
import static dev.irdmaemu.fw.hmc.PbleLayout.CHUNK_NONE;
import static dev.irdmaemu.model.mr.MemoryRegions.OK;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.model.hmc.HmcFunction;
import dev.irdmaemu.model.hmc.PbleWalker;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The checked translation of tagged offsets into host memory and the copy through it: an access admitted by
 * {@link StagAdmission} is walked page by page through the entry's page list (no PBL: a contiguous buffer; level 1
 * or level 2 PBLEs in the HMC PBLE object, pble.c get_lvl1_pble / get_lvl2_pble, read with {@link PbleWalker}),
 * each page split again at host-memory region ends, every piece translated and checked before the first byte is
 * copied; then the copy goes store to store. Also the privileged STag 0 access by physical address. Nothing here
 * allocates.
 */
final class RegionTranslation {
    /** Translated pieces kept between the check pass and the copy pass; beyond them the copy re-translates. */
    private static final int CACHED_PIECES = 32;
    static final int VALIDATE = 0;
    static final int COPY_IN = 1;
    static final int COPY_OUT = 2;

    private final HostMemory memory;
    private final StagEntries e;
    private final StagAdmission admission;
    private final StagCounters counters;
    private final PbleWalker pbles;
    // scratch of one call: the last frame, the pieces
    private long frame;
    private AccessFault frameFault;
    private final int[] pieceRegion = new int[CACHED_PIECES];
    private final long[] pieceOffset = new long[CACHED_PIECES];
    private final long[] pieceLength = new long[CACHED_PIECES];
    private int pieces;
    private long cachedBytes;

    RegionTranslation(HostMemory memory, HmcFunction hmc, StagEntries entries, StagAdmission admission,
                      StagCounters counters) {
        this.memory = memory;
        this.e = entries;
        this.admission = admission;
        this.counters = counters;
        this.pbles = new PbleWalker(memory, hmc);
    }


    int check(int stag, long taggedOffset, long len, int access, int pdId) {
        AccessFault f = admission.admit(stag, taggedOffset, len, access, pdId);
        if (f != AccessFault.NONE) {
            return counters.refuse(f, stag, taggedOffset, len);
        }
        if (len == 0) {
            return OK;
        }
        f = walk(admission.entry(), admission.regionOffset(), len, VALIDATE, null, 0);
        return f == AccessFault.NONE ? OK : counters.refuse(f, stag, taggedOffset, len);
    }

    int write(int stag, long taggedOffset, BytesStore<?, ?> src, long srcOffset, int len, int access,
                     int pdId) {
        if (len < 0 || srcOffset < src.start() || srcOffset > src.readLimit() - len) {
            throw new IllegalArgumentException("source " + srcOffset + "+" + len + " outside its store");
        }
        return place(stag, taggedOffset, src, srcOffset, len, access, pdId, COPY_IN);
    }

    int read(int stag, long taggedOffset, BytesStore<?, ?> dst, long dstOffset, int len, int access,
                    int pdId) {
        if (len < 0 || dstOffset < dst.start() || dstOffset > dst.capacity() - len) {
            throw new IllegalArgumentException("destination " + dstOffset + "+" + len + " outside its store");
        }
        return place(stag, taggedOffset, dst, dstOffset, len, access, pdId, COPY_OUT);
    }

    private int place(int stag, long to, BytesStore<?, ?> buf, long bufOffset, int len, int access, int pdId,
                      int mode) {
        AccessFault f = admission.admit(stag, to, len, access, pdId);
        if (f == AccessFault.NONE && len > 0) {
            f = walk(admission.entry(), admission.regionOffset(), len, VALIDATE, null, 0);
        }
        if (f != AccessFault.NONE) {
            return counters.refuse(f, stag, to, len);
        }
        if (len == 0) {
            return OK;
        }
        int cached = Math.min(pieces, CACHED_PIECES);
        for (int i = 0; i < cached; i++) {
            copy(mode, pieceRegion[i], pieceOffset[i], buf, bufOffset, pieceLength[i]);
            bufOffset += pieceLength[i];
        }
        if (pieces > CACHED_PIECES) {
            // the pieces beyond the cache are translated again; only a guest rewriting its PBLEs from another
            // thread during this call could make that fail, and then the bytes before stay written
            f = walk(admission.entry(), admission.regionOffset() + cachedBytes, len - cachedBytes, mode, buf, bufOffset);
            if (f != AccessFault.NONE) {
                return counters.refuse(f, stag, to, len);
            }
        }
        return OK;
    }

    private void copy(int mode, int region, long storeOffset, BytesStore<?, ?> buf, long bufOffset, long n) {
        if (mode == COPY_IN) {
            memory.store(region).write(storeOffset, buf, bufOffset, n);
        } else {
            buf.write(bufOffset, memory.store(region), storeOffset, n);
        }
    }

    /**
     * Walks {@code len} bytes of entry {@code i} from region offset {@code offset}: page by page through the page
     * list, each page split again at host-memory region ends. VALIDATE checks and caches the pieces (setting
     * {@link #pieces} and {@link #cachedBytes}); COPY_IN / COPY_OUT copy as they go.
     */
    private AccessFault walk(int i, long offset, long len, int mode, BytesStore<?, ?> buf, long bufOffset) {
        int shift = e.pageShift[i];
        long pageSize = 1L << shift;
        long done = 0;
        long lastPage = -1;
        int n = 0;
        long cached = 0;
        while (done < len) {
            long at = offset + done;
            long page = at >>> shift;
            if (page != lastPage) {
                if (!frameOf(e.chunk[i], e.firstPble[i], e.firstFrame[i], shift, page)) {
                    return frameFault;
                }
                lastPage = page;
            }
            long within = at & (pageSize - 1);
            long gpa = frame + within;
            int r = gpa < 0 ? -1 : memory.find(gpa, 1);
            if (r < 0) {
                return AccessFault.DMA_FAULT;
            }
            long piece = Math.min(len - done, pageSize - within);
            piece = Math.min(piece, memory.base(r) + memory.length(r) - gpa);
            long storeOffset = memory.offset(r, gpa);
            if (mode == VALIDATE) {
                if (n < CACHED_PIECES) {
                    pieceRegion[n] = r;
                    pieceOffset[n] = storeOffset;
                    pieceLength[n] = piece;
                    cached += piece;
                }
            } else {
                copy(mode, r, storeOffset, buf, bufOffset + done, piece);
            }
            n++;
            done += piece;
        }
        if (mode == VALIDATE) {
            pieces = n;
            cachedBytes = cached;
        }
        return AccessFault.NONE;
    }

    /**
     * The page frame of page {@code page} of a page list into {@link #frame}: contiguous from {@code frame0}
     * (no PBL), PBLE {@code first + page} (level 1), or PBLE {@code root[first + page / 512] + page % 512}
     * (level 2, pble.c get_lvl2_pble). False with {@link #frameFault} when a PBLE does not resolve.
     */
    boolean frameOf(int chunkCode, long first, long frame0, int shift, long page) {
        long pageMask = (1L << shift) - 1;
        if (chunkCode == CHUNK_NONE) {
            frame = frame0 + (page << shift);
            return true;
        }
        if (!pbles.page(chunkCode != CHUNK_LEVEL_1, first, page)) {
            frameFault = AccessFault.PBLE_FAULT;
            return false;
        }
        frame = pbles.value() & ~pageMask;
        return true;
    }

    /**
     * A privileged STag 0 write (the QP engine decides who is privileged): {@code len} bytes at guest-physical
     * {@code gpa}, split at host-memory region ends, all checked before the first byte is written. Answers
     * {@link #OK} or the DMA fault's code.
     */
    int writePhysical(long gpa, BytesStore<?, ?> src, long srcOffset, int len) {
        if (len < 0 || srcOffset < src.start() || srcOffset > src.readLimit() - len) {
            throw new IllegalArgumentException("source " + srcOffset + "+" + len + " outside its store");
        }
        return physical(gpa, src, srcOffset, len, COPY_IN);
    }

    /** A privileged STag 0 read, as {@link #writePhysical}. */
    int readPhysical(long gpa, BytesStore<?, ?> dst, long dstOffset, int len) {
        if (len < 0 || dstOffset < dst.start() || dstOffset > dst.capacity() - len) {
            throw new IllegalArgumentException("destination " + dstOffset + "+" + len + " outside its store");
        }
        return physical(gpa, dst, dstOffset, len, COPY_OUT);
    }

    private int physical(long gpa, BytesStore<?, ?> buf, long bufOffset, int len, int mode) {
        for (boolean copying = false; ; copying = true) {
            long done = 0;
            while (done < len) {
                long at = gpa + done;
                int r = at < 0 ? -1 : memory.find(at, 1);
                if (r < 0) {
                    return counters.refuse(AccessFault.DMA_FAULT, 0, gpa, len);
                }
                long piece = Math.min(len - done, memory.base(r) + memory.length(r) - at);
                if (copying) {
                    copy(mode, r, memory.offset(r, at), buf, bufOffset + done, piece);
                }
                done += piece;
            }
            if (copying) {
                return OK;
            }
        }
    }

    /** The page frame the last successful {@link #frameOf} found. */
    long frame() {
        return frame;
    }
}
