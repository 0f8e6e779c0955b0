package dev.irdmaemu.fw.cqp;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.reg.QuadwordView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The buffer a Gather Stats WQE names (ctrl.c irdma_sc_gather_stats, quadword 4): IRDMA_GATHER_STATS_BUF_SIZE
 * (user.h, 1024) bytes of little-endian quadwords the device fills with the function's counters, in the gen2
 * layout of icrdma_hw.c icrdma_hw_stat_map: each {@link Stat} at a byte offset and bit offset, {@code width} bits
 * wide (IRDMA_MAX_STATS_24/32/48/56). A counter wraps at its width; the driver takes the difference of two gathers
 * modulo that width (ctrl.c irdma_stat_val / irdma_stat_delta / irdma_update_stats).
 *
 * <p>The driver's buffer is twice the size (irdma_vsi_stats_init: the gather area and the last gather); the device
 * writes the first {@link #SIZE} bytes only.
 */
public final class GatherStatsBuffer extends QuadwordView implements Flyweight<GatherStatsBuffer> {
    /** IRDMA_GATHER_STATS_BUF_SIZE. */
    public static final int SIZE = 1024;
    /** irdma_vsi_stats_init: stats_buff_mem.size = 2 x IRDMA_GATHER_STATS_BUF_SIZE. */
    public static final int DRIVER_BUFFER_SIZE = 2 * SIZE;

    /**
     * The gen2 counters, enum irdma_hw_stats_index (type.h) up to IRDMA_HW_STAT_INDEX_MAX_GEN_2, with their place in
     * the buffer from icrdma_hw_stat_map.
     */
    public enum Stat {
        IP4RXDISCARD(0, 24, 32, 32),
        IP4RXTRUNC(1, 24, 0, 32),
        IP4TXNOROUTE(2, 184, 32, 24),
        IP6RXDISCARD(3, 72, 32, 32),
        IP6RXTRUNC(4, 72, 0, 32),
        IP6TXNOROUTE(5, 184, 0, 24),
        TCPRTXSEG(6, 216, 32, 32),
        TCPRXOPTERR(7, 200, 32, 24),
        TCPRXPROTOERR(8, 200, 0, 24),
        RXVLANERR(9, 0, 32, 24),
        IP4RXOCTS(10, 8, 0, 48),
        IP4RXPKTS(11, 16, 0, 48),
        IP4RXFRAGS(12, 32, 0, 48),
        IP4RXMCPKTS(13, 48, 0, 48),
        IP4TXOCTS(14, 104, 0, 48),
        IP4TXPKTS(15, 112, 0, 48),
        IP4TXFRAGS(16, 120, 0, 48),
        IP4TXMCPKTS(17, 136, 0, 48),
        IP6RXOCTS(18, 56, 0, 48),
        IP6RXPKTS(19, 64, 0, 48),
        IP6RXFRAGS(20, 80, 0, 48),
        IP6RXMCPKTS(21, 96, 0, 48),
        IP6TXOCTS(22, 144, 0, 48),
        IP6TXPKTS(23, 152, 0, 48),
        IP6TXFRAGS(24, 160, 0, 48),
        IP6TXMCPKTS(25, 176, 0, 48),
        TCPRXSEGS(26, 192, 32, 48),
        TCPTXSEG(27, 208, 0, 48),
        RDMARXRDS(28, 248, 0, 48),
        RDMARXSNDS(29, 256, 0, 48),
        RDMARXWRS(30, 240, 0, 48),
        RDMATXRDS(31, 272, 0, 48),
        RDMATXSNDS(32, 280, 0, 48),
        RDMATXWRS(33, 264, 0, 48),
        RDMAVBND(34, 288, 0, 48),
        RDMAVINV(35, 296, 0, 48),
        IP4RXMCOCTS(36, 40, 0, 48),
        IP4TXMCOCTS(37, 128, 0, 48),
        IP6RXMCOCTS(38, 88, 0, 48),
        IP6TXMCOCTS(39, 168, 0, 48),
        UDPRXPKTS(40, 224, 0, 48),
        UDPTXPKTS(41, 232, 0, 48),
        RXNPECNMARKEDPKTS(42, 304, 0, 56),
        RXRPCNPHANDLED(43, 312, 0, 32),
        RXRPCNPIGNORED(44, 312, 32, 24),
        TXNPCNPSENT(45, 320, 0, 32);

        private final int kernelIndex;
        private final int byteOffset;
        private final int bitOffset;
        private final long mask;

        Stat(int kernelIndex, int byteOffset, int bitOffset, int width) {
            this.kernelIndex = kernelIndex;
            this.byteOffset = byteOffset;
            this.bitOffset = bitOffset;
            this.mask = width == 64 ? -1L : (1L << width) - 1;
        }

        /** The IRDMA_HW_STAT_INDEX_* value. */
        public int kernelIndex() {
            return kernelIndex;
        }

        /** icrdma_hw_stat_map[].byteoff: the quadword, 8-byte aligned. */
        public int byteOffset() {
            return byteOffset;
        }

        /** icrdma_hw_stat_map[].bitoff. */
        public int bitOffset() {
            return bitOffset;
        }

        /** icrdma_hw_stat_map[].bitmask: the largest value before the counter wraps. */
        public long mask() {
            return mask;
        }

        public int width() {
            return Long.bitCount(mask);
        }
    }

    private static final Stat[] STATS = Stat.values();

    public GatherStatsBuffer wrap(BytesStore<?, ?> store, long offset) {
        return wrap(store, offset, SIZE);
    }

    /** irdma_stat_val: the counter's field; 0 when the wrapped buffer is shorter than {@link #SIZE}. */
    public long value(Stat s) {
        if (!has(0, SIZE)) {
            return 0;
        }
        return qword(s.byteOffset()) >>> s.bitOffset() & s.mask();
    }

    /** irdma_stat_delta: how far a counter moved from {@code old} to {@code now}, across one wrap at its width. */
    public static long delta(Stat s, long now, long old) {
        return now >= old ? now - old : s.mask() - old + now + 1;
    }

    // --- the device's side

    /** Zeroes the {@link #SIZE} bytes at {@code offset}. */
    public static void clear(BytesStore<?, ?> dst, long offset) {
        requireRoom(dst, offset, SIZE, "Gather stats buffer");
        dst.zeroOut(offset, offset + SIZE);
    }

    /**
     * Writes every counter of {@code counters} (indexed by {@link Stat#ordinal()}) into its field, truncated to
     * its width as the hardware counter wraps; the bits no counter uses stay 0.
     */
    public static void write(BytesStore<?, ?> dst, long offset, long[] counters) {
        clear(dst, offset);
        for (Stat s : STATS) {
            long at = offset + s.byteOffset();
            long q = dst.readLong(at);
            q |= (counters[s.ordinal()] & s.mask()) << s.bitOffset();
            dst.writeLong(at, q);
        }
    }
}
