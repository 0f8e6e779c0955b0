package dev.irdmaemu.model.mr;


import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.model.LeakCheck;
import java.math.BigInteger;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * For random registrations (no PBL, level 1, two levels; VA-based or zero-based; any first byte offset, VA and
 * length) and random accesses, a write either is refused with the code a plain reference (BigInteger arithmetic,
 * a list of page addresses) predicts and changes nothing, or lands exactly where the reference says and nowhere
 * else: every byte of every page of the pool (the region's pages and a guard page after each) is compared.
 */
class MemoryRegionProperties {
    static final int PD = 4;
    static final long PAGE = StagOps.PAGE;
    static final int RW = MemoryRegions.LOCAL_WRITE | MemoryRegions.REMOTE_READ | MemoryRegions.REMOTE_WRITE;
    static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    static final long INSIDE = 0;
    static final long ANY = 1;
    static final long WRONG_KEY = 2;
    static final long EDGE = 3;

    /**
     * {kind, a, b}: INSIDE an access within the region (a and b pick offset and length), EDGE a short access near
     * either end, ANY any tagged offset and length, WRONG_KEY an inside access under another key.
     */
    @Provide
    Arbitrary<long[]> accesses() {
        Arbitrary<Long> kind = Arbitraries.frequency(Tuple.of(6, INSIDE), Tuple.of(3, EDGE), Tuple.of(2, ANY),
                Tuple.of(1, WRONG_KEY));
        Arbitrary<Long> a = Arbitraries.longs();
        Arbitrary<Long> b = Arbitraries.longs().between(0, 9 * PAGE);
        return Combinators.combine(kind, a, b).as((k, x, y) -> new long[] {k, x, y});
    }

    private static BigInteger unsigned(long v) {
        return new BigInteger(Long.toUnsignedString(v));
    }

    @Property(tries = 200, edgeCases = EdgeCasesMode.MIXIN)
    void aWriteIsRefusedUntouchedOrLandsExactlyInTheRegionsPages(
            @ForAll @IntRange(min = 1, max = 8) int pageCount,
            @ForAll @IntRange(min = 0, max = 2) int list,
            @ForAll boolean zeroBased,
            @ForAll @IntRange(min = 0, max = 4095) int fbo,
            @ForAll long vaSeed,
            @ForAll @IntRange(min = 0, max = 1 << 20) int lenSeed,
            @ForAll @Size(min = 1, max = 6) List<@From("accesses") long[]> accesses) {
        StagOps d = node();
        boolean passed = false;
        try {
            LeakCheck.Held held = LeakCheck.snapshot(d.dev);
            long span = pageCount * PAGE;
            long len = 1 + lenSeed % (span - fbo);
            long[] pages;
            long[] pool;
            int chunk;
            long first = 0;
            long pa = 0;
            if (list == 0) {
                // one physically contiguous buffer, a guard page after it
                pa = d.alloc(span + PAGE);
                pages = new long[pageCount];
                for (int i = 0; i < pageCount; i++) {
                    pages[i] = pa + i * PAGE;
                }
                pool = new long[] {pa};
                chunk = 0;
            } else {
                pages = d.scatteredPages(pageCount);
                pool = pages;
                chunk = list == 1 ? 1 : 3;
                first = list == 1 ? d.level1(pages) : d.level2(pages);
            }
            long va = vaSeed & ~(PAGE - 1) | fbo;
            if (Long.compareUnsigned(va + len - 1, va) < 0) {
                va -= 16 * PAGE; // keep the VA-based region inside the 64-bit space
            }
            int stag = d.stag(77, 0x55, 0xa7);
            assertFalse(d.register(StagOps.regFields(stag, PD, va, len, RW | (zeroBased ? MemoryRegions.ZERO_BASED
                    : 0), chunk, first, pa)).error());
            long poolBytes = list == 0 ? span + PAGE : 2 * PAGE;
            long base = zeroBased ? 0 : va;
            byte[] data = new byte[(int) (9 * PAGE)];
            for (long[] a : accesses) {
                long to;
                int n;
                if (a[0] == ANY) {
                    to = a[1];
                    n = (int) a[2];
                } else if (a[0] == EDGE) {
                    long off = Math.floorMod(a[1], 64) - 32 + (a[2] % 2 == 0 ? 0 : len);
                    to = base + off;
                    n = (int) (a[2] % 48);
                } else {
                    long off = Math.floorMod(a[1], len);
                    to = base + off;
                    n = (int) (a[2] % (len - off + 1));
                }
                int s = a[0] == WRONG_KEY ? stag ^ 0x80 : stag;
                for (int i = 0; i < n; i++) {
                    data[i] = (byte) (to + i * 7 + 1);
                }
                byte[][] before = new byte[pool.length][];
                for (int i = 0; i < pool.length; i++) {
                    before[i] = d.read(pool[i], (int) poolBytes);
                }
                int rc = d.mrs.write(s, to, BytesStore.wrap(data), 0, n, MemoryRegions.REMOTE_WRITE, PD);

                // the reference
                int expected;
                BigInteger t = unsigned(to);
                BigInteger rel = zeroBased ? t : t.subtract(unsigned(va));
                if (s != stag) {
                    expected = AeCode.AMP_BAD_STAG_KEY.code();
                } else if (n == 0) {
                    expected = MemoryRegions.OK;
                } else if (t.add(BigInteger.valueOf(n - 1)).compareTo(TWO_64) >= 0) {
                    expected = AeCode.AMP_TO_WRAP.code();
                } else if (rel.signum() < 0 || rel.add(BigInteger.valueOf(n)).compareTo(BigInteger.valueOf(len)) > 0) {
                    expected = AeCode.AMP_BOUNDS_VIOLATION.code();
                } else {
                    expected = MemoryRegions.OK;
                }
                assertEquals(expected, rc, "write of " + n + " at 0x" + Long.toHexString(to));
                byte[][] want = new byte[pool.length][];
                for (int i = 0; i < pool.length; i++) {
                    want[i] = before[i].clone();
                }
                if (rc == MemoryRegions.OK) {
                    for (int i = 0; i < n; i++) {
                        long r = fbo + rel.longValue() + i;
                        long gpa = pages[(int) (r / PAGE)] + r % PAGE;
                        boolean placed = false;
                        for (int p = 0; p < pool.length && !placed; p++) {
                            if (gpa >= pool[p] && gpa < pool[p] + poolBytes) {
                                want[p][(int) (gpa - pool[p])] = data[i];
                                placed = true;
                            }
                        }
                        assertTrue(placed, "the reference put a byte outside the pool");
                    }
                }
                for (int i = 0; i < pool.length; i++) {
                    assertArrayEquals(want[i], d.read(pool[i], (int) poolBytes), "pool page " + i);
                }
                if (rc == MemoryRegions.OK && n > 0) {
                    byte[] back = new byte[n];
                    assertEquals(MemoryRegions.OK,
                            d.mrs.read(s, to, BytesStore.wrap(back), 0, n, MemoryRegions.REMOTE_READ, PD));
                    for (int i = 0; i < n; i++) {
                        assertEquals(data[i], back[i]);
                    }
                }
            }
            // irdma_hwdereg_mr: with its STag deallocated the function holds what the bring-up left.
            assertFalse(d.dealloc(stag, PD, true).error());
            LeakCheck.assertNoLeak(held, d.dev, "registering and deregistering one region");
            passed = true;
        } finally {
            if (!passed) {
                dropNode();
            }
        }
    }

    /**
     * One model brought up by the driver for all tries (a bring-up per try would cost more than the try): each try
     * deregisters what it registered, and one that fails drops the node so that the next starts from a fresh one.
     */
    private static StagOps shared;

    private static StagOps node() {
        if (shared == null) {
            shared = new StagOps();
            shared.trace.off();
        }
        return shared;
    }

    @AfterContainer
    static void dropNode() {
        if (shared != null) {
            shared.close();
            shared = null;
        }
    }
}
