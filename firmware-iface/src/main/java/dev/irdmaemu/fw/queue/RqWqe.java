package dev.irdmaemu.fw.queue;

import dev.irdmaemu.fw.Flyweight;
import java.util.OptionalInt;

/**
 * Flyweight over one receive queue WQE (irdma_uk_post_receive, gen2; defs.h IRDMAQPRQ_* aliases of the SQ
 * fields): fragment slot 0 at +0/+8, quadword 2 zero, header at +24 with only IRDMAQPRQ_ADDFRAGCNT [41:38] and
 * IRDMAQPRQ_VALID 63, further slots from +32 every 16 bytes; an even SGE count gets a zero-length pad slot that
 * ADDFRAGCNT counts. The WQE occupies the QP's RQ WQE size (32 to 256 bytes; rq_wqe_size_multiplier quanta).
 *
 * <p>The PUDA receive descriptor (irdma_puda_post_recvbuf, gen2) is the same format with one fragment and no
 * STag; its valid bit is not the ring polarity bookkeeping of uk.c but the inverse of "the old header was
 * non-zero" ({@link #pudaValidBit(long)}), which equals the ring polarity when buffers are reposted in ring order.
 */
public final class RqWqe extends FragmentedWqe implements Flyweight<RqWqe> {
    public static final int MIN_SIZE = 32;
    public static final int MAX_SIZE = 256;
    /** user.h IRDMA_MAX_INBOUND_MSG_SIZE. */
    public static final long MAX_MESSAGE = 2147483647L;

    private static final long ALLOWED_HEADER = mask(41, 38) | 1L << BIT_VALID;

    public long totalLength() {
        long t = 0;
        int slots = Math.min(fragmentSlots(), 15);
        for (int s = 0; s < slots; s++) {
            t += fragmentLength(s);
        }
        return t;
    }

    /** Bytes the fragment slots span: 32 for one slot, 32 + 16 * ADDFRAGCNT otherwise. */
    public int spannedBytes() {
        return 32 + 16 * additionalFragmentCount();
    }

    /**
     * Checks the WQE at the RQ's next index: {@code polarity} is the ring's, {@code wqeSize} the QP's RQ WQE
     * size in bytes (32 * rq_wqe_size_multiplier).
     */
    public WqeCheck validate(boolean polarity, int wqeSize) {
        if (!beginValidation(MIN_SIZE)) {
            return fail(WqeCheck.TRUNCATED, length);
        }
        if (valid() != polarity) {
            return fail(WqeCheck.NOT_POSTED, OFF_HEADER + 7);
        }
        long reserved = header() & ~ALLOWED_HEADER;
        if (reserved != 0) {
            return fail(WqeCheck.RESERVED_BITS, OFF_HEADER + Long.numberOfTrailingZeros(reserved) / 8);
        }
        if (qword(16) != 0) {
            return fail(WqeCheck.RESERVED_BITS, 16 + Long.numberOfTrailingZeros(qword(16)) / 8);
        }
        int slots = fragmentSlots();
        if (slots > SqWqe.MAX_FRAGMENTS + 1) {
            return fail(WqeCheck.TOO_MANY_FRAGMENTS, OFF_HEADER + 4);
        }
        if (spannedBytes() > wqeSize) {
            return fail(WqeCheck.TOO_LARGE_FOR_QUEUE, OFF_HEADER + 4);
        }
        if (!has(0, spannedBytes())) {
            return fail(WqeCheck.TRUNCATED, length);
        }
        for (int s = 0; s < slots; s++) {
            if (fragmentValid(s) != polarity) {
                return fail(WqeCheck.FRAGMENT_POLARITY, slotOffset(s) + 15L);
            }
        }
        if (totalLength() > MAX_MESSAGE) {
            return fail(WqeCheck.INVALID_LENGTH, 12);
        }
        return WqeCheck.ACCEPTED;
    }

    /** irdma_fragcnt_to_wqesize_rq: the RQ WQE size for a maximum SGE count; empty above 14 (or below 0). */
    public static OptionalInt wqeSizeFor(int maxFragments) {
        if (maxFragments < 0 || maxFragments > 14) {
            return OptionalInt.empty();
        }
        if (maxFragments <= 1) {
            return OptionalInt.of(32);
        }
        if (maxFragments <= 3) {
            return OptionalInt.of(64);
        }
        return OptionalInt.of(maxFragments <= 7 ? 128 : 256);
    }

    /** irdma_uk_post_receive (gen2); answers the bytes the slots span. */
    public int write(boolean polarity, SgeList sges) {
        int n = sges.count();
        if (n > SqWqe.MAX_FRAGMENTS) {
            throw new IllegalArgumentException(n + " SGEs, at most " + SqWqe.MAX_FRAGMENTS);
        }
        int addl = n > 1 ? n - 1 : 0;
        int span = 32 + 16 * (addl + ((n & 1) == 0 && n > 0 ? 1 : 0));
        requireRoom(span, "RQ WQE");
        fragment(0, sges, 0, polarity);
        int off = 32;
        for (int i = 1; i < n; i++) {
            fragment(off, sges, i, polarity);
            off += 16;
        }
        if (n > 0 && (n & 1) == 0) {
            fragment(off, null, 0, polarity);
            addl++;
        }
        putQ(16, 0L);
        putQ(OFF_HEADER, prep(addl, 41, 38) | flag(polarity, BIT_VALID));
        return span;
    }

    /** The valid bit irdma_puda_post_recvbuf gives a reposted buffer: set iff the old header was zero. */
    public static boolean pudaValidBit(long previousHeader) {
        return previousHeader == 0;
    }

    /**
     * irdma_puda_post_recvbuf (gen2): one fragment of {@code size} bytes at {@code paddr}, no STag; the valid
     * bit from {@link #pudaValidBit(long)} of the current header ({@code initial}: as on a fresh ring, set).
     * Answers the valid bit written.
     */
    public boolean writePuda(long paddr, int size, boolean initial) {
        requireRoom(MIN_SIZE, "PUDA RQ WQE");
        boolean v = initial || pudaValidBit(header());
        putQ(16, 0L);
        putQ(0, paddr);
        putQ(8, prep(Integer.toUnsignedLong(size), 62, 32) | flag(v, 63));
        putQ(OFF_HEADER, flag(v, BIT_VALID));
        return v;
    }
}
