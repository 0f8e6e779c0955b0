package dev.irdmaemu.model.timing;

import dev.irdmaemu.fw.cqp.CqpOpcode;

/**
 * What each device action costs in simulated nanoseconds. The defaults are the model's estimates for a PCIe Gen4
 * x16 E810 (no kernel source states device latencies): a posted MMIO write reaches the device in about 100 ns; a
 * DMA read of one 64-byte line takes a PCIe round trip of about 500 ns; a CQP op executes in firmware in 1 to
 * 5 us (context ops are slower than table updates); an MSI-X message costs a posted write; the wire serialises at
 * the link speed (100 Gb/s: 0.08 ns per bit) plus propagation. Mutable: a bench or a test sets its own.
 */
public final class LatencyTable {
    public long mmioWriteNanos = 100;
    public long dmaLineNanos = 500;
    public long cqpCreateNanos = 10_000;
    public long cqpWqeFetchNanos = 500;
    public long interruptNanos = 100;
    public long qhashLookupNanos = 20;
    public long pudaWqeFetchNanos = 500;
    /** A posted DMA write of one 64-byte line when streamed (about 16 GB/s of PCIe Gen4 x16 write bandwidth). */
    public long dmaWriteLineNanos = 4;
    /** Link speed in bits per second (the port's current setting). */
    public long linkBitsPerSecond = 100_000_000_000L;
    public long propagationNanos = 500;
    /**
     * Fetching one SQ WQE (up to 8 quanta, 256 bytes) from host memory: one PCIe read round trip, as
     * {@link #dmaLineNanos} (the WQE's quanta arrive back to back in the same completion).
     */
    public long sqWqeFetchNanos = 500;
    /**
     * The protocol engine's work per FPDU (MPA framing and CRC, DDP/RDMAP header, TCP segment): the E810 keeps 100
     * Gb/s line rate with 1500-byte frames, about 8.1 million frames a second per direction, so about 120 ns a
     * frame in its pipeline; the model takes 100 ns.
     */
    public long fpduNanos = 100;
    /** A streamed DMA read of one 64-byte line (payload gathered from host memory; about 16 GB/s, PCIe Gen4 x16). */
    public long dmaReadLineNanos = 4;
    /**
     * Not a device latency: the floor of every offloaded TCP connection's retransmission timeout, over the QP
     * context's RTOMIN (irdma writes 5, read as milliseconds), for a model paced against a peer whose time runs
     * slow. A TCG guest acknowledges in 5 to 30 ms on a loaded host where a host acknowledges in microseconds, so a
     * 5 ms floor retransmits spuriously and each time collapses the congestion window (RFC 5681 §3.1: cwnd 1 SMSS,
     * ssthresh half the flight). 0, the default: the context's floor alone, as on the E810.
     */
    public long tcpRtoFloorNanos;
    private final long[] cqpOpNanos = new long[64];

    public LatencyTable() {
        java.util.Arrays.fill(cqpOpNanos, 2_000);
        op(CqpOpcode.NOP, 500);
        op(CqpOpcode.QUERY_FPM_VAL, 5_000);
        op(CqpOpcode.COMMIT_FPM_VAL, 10_000);
        op(CqpOpcode.UPDATE_PE_SDS, 3_000);
        op(CqpOpcode.CREATE_QP, 4_000);
        op(CqpOpcode.MODIFY_QP, 4_000);
        op(CqpOpcode.DESTROY_QP, 3_000);
        op(CqpOpcode.MANAGE_QUAD_HASH_TABLE_ENTRY, 1_500);
        op(CqpOpcode.MANAGE_APBVT, 1_000);
        op(CqpOpcode.MANAGE_ARP, 1_000);
    }

    public LatencyTable op(CqpOpcode op, long nanos) {
        cqpOpNanos[op.code()] = nanos;
        return this;
    }

    /** Execution time of a CQP op (by 6-bit opcode; unknown codes cost the default). */
    public long cqpOp(int opcode) {
        return cqpOpNanos[opcode & 63];
    }

    /**
     * From a frame's arrival to its CQE written: the quad-hash lookup, an RQ WQE fetch (one DMA read), the frame's
     * placement (streamed line writes) and the CQE write.
     */
    public long rxFrameNanos(int bytes) {
        return qhashLookupNanos + dmaLineNanos + (bytes + 63L) / 64 * dmaWriteLineNanos + dmaWriteLineNanos;
    }

    /** What gathering {@code bytes} of payload costs (streamed line reads). */
    public long dmaReadNanos(long bytes) {
        return (bytes + 63) / 64 * dmaReadLineNanos;
    }

    /** Serialisation time of {@code bytes} on the wire (preamble, SFD, FCS and inter-frame gap included). */
    public long wireNanos(int bytes) {
        long bits = (bytes + 4L + 8 + 12) * 8;
        return (bits * 1_000_000_000L + linkBitsPerSecond - 1) / linkBitsPerSecond;
    }
}
