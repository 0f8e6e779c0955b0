package dev.irdmaemu.fw.iwarp;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.WireView;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over an MPA FPDU without markers (RFC 5044 §4.1):
 * <pre>
 *   0 ULPDU_Length (u16 big-endian)   2 ULPDU (ULPDU_Length bytes)   PAD (0..3 zero bytes to a 4-byte boundary)
 *   CRC (4 bytes) over ULPDU_Length + ULPDU + PAD, in the wire order of {@link Crc32c#writeWire} (least
 *   significant byte first).
 * </pre>
 * The CRC field is in <b>every</b> FPDU (RFC 5044 §4.1), whether or not the MPA Request/Reply negotiated CRCs:
 * when CRC is not in use the field is still sent, its value is unspecified and the receiver does not check it.
 * So the FPDU length never depends on CRC: {@link #totalLengthFor(int)}. This codec writes zeros there when CRC
 * is off (as siw does) and {@link #validate} ignores the value. Linux agrees: siw always sends and consumes the
 * 4-byte trailer (zeroed when CRC is off) and irdma's IEQ frames FPDUs as ULPDU_Length + 6 (length + CRC),
 * rounded to 4, either way.
 * <b>Markers</b> (RFC 5044 §5: a 4-byte marker every 512 octets of the TCP stream) are not supported: FPDUs here
 * are assumed marker-free. A CM must refuse a connection that negotiated markers; {@link #checkFraming} gives it
 * the answer ({@link FpduCheck#MARKERS_NOT_SUPPORTED}) to report. irdma only requests markers with iw_ooo set
 * (cm.c irdma_build_mpa_v2).
 *
 * <p>One instance (with its own {@link Crc32c}) is reused for every frame: {@link #wrap} parses, and
 * {@link #beginBuild}/{@link #finishBuild} build.
 */
public final class Fpdu extends WireView {
    public static final int LENGTH_SIZE = 2;
    public static final int CRC_SIZE = Crc32c.SIZE;
    public static final int MAX_ULPDU_LENGTH = 0xffff;
    /** This codec never frames with MPA markers (RFC 5044 §5). */
    public static final boolean MARKERS_SUPPORTED = false;

    private final Crc32c crc = new Crc32c();
    private boolean crcEnabled;
    private int computedCrc;

    private BytesStore<?, ?> out;
    private long outBase;
    private long outCapacity;
    private int outUlpdu = -1;

    /** What a CM answers when the peer's MPA Request/Reply negotiated markers. */
    public static FpduCheck checkFraming(boolean markersNegotiated) {
        return markersNegotiated ? FpduCheck.MARKERS_NOT_SUPPORTED : FpduCheck.ACCEPTED;
    }

    /** Pad bytes after a ULPDU of this length: (−(2 + len)) mod 4 (RFC 5044 §4.1). */
    public static int padFor(int ulpduLength) {
        return (-(LENGTH_SIZE + ulpduLength)) & 3;
    }

    /**
     * Total FPDU bytes on the wire for this ULPDU length: length field, ULPDU, pad and the CRC field, which is
     * there whether or not CRC is in use (RFC 5044 §4.1).
     */
    public static int totalLengthFor(int ulpduLength) {
        return LENGTH_SIZE + ulpduLength + padFor(ulpduLength) + CRC_SIZE;
    }

    /**
     * Wraps the {@code available} bytes of a stream at {@code offset} that should start with an FPDU.
     * Bytes past {@link #totalLength()} belong to the next FPDU and are ignored. {@code crcEnabled} only says
     * whether {@link #validate} checks the CRC field; the field is there either way.
     */
    public Fpdu wrap(BytesStore<?, ?> store, long offset, long available, boolean crcEnabled) {
        attach(store, offset, available);
        this.crcEnabled = crcEnabled;
        computedCrc = 0;
        return this;
    }

    public FpduCheck validate() {
        if (!beginValidation(LENGTH_SIZE)) {
            return fail(FpduCheck.TOO_SHORT, length);
        }
        int ulp = ulpduLength();
        if (ulp < DdpHeader.MIN_LENGTH) {
            return fail(FpduCheck.ULPDU_TOO_SHORT, 0);
        }
        int total = totalLength();
        if (length < total) {
            return fail(FpduCheck.INCOMPLETE, length);
        }
        if (crcEnabled) { // with CRC off the field holds any value and is not checked (RFC 5044 §4.1)
            int crcAt = total - CRC_SIZE;
            computedCrc = crc.compute(store, base, crcAt);
            if (computedCrc != receivedCrc()) {
                return fail(FpduCheck.CRC_MISMATCH, crcAt);
            }
        }
        return FpduCheck.ACCEPTED;
    }

    public boolean crcEnabled() {
        return crcEnabled;
    }

    /** ULPDU_Length (0 if fewer than 2 bytes are present). */
    public int ulpduLength() {
        return u16(0);
    }

    public int padLength() {
        return padFor(ulpduLength());
    }

    /** Bytes this FPDU occupies, known as soon as 2 bytes are present: what a reassembler must wait for. */
    public int totalLength() {
        return has(0, LENGTH_SIZE) ? totalLengthFor(ulpduLength()) : LENGTH_SIZE;
    }

    /** Absolute store offset of the ULPDU (the DDP segment). */
    public long ulpduOffset() {
        return base + LENGTH_SIZE;
    }

    /** Offset of the CRC field relative to the FPDU start (present with and without CRC in use). */
    public int crcOffset() {
        return LENGTH_SIZE + ulpduLength() + padLength();
    }

    /**
     * The CRC field as received (0 if not all of it is present). With CRC off it is whatever the sender put there
     * (siw and this codec send zeros), not a CRC.
     */
    public int receivedCrc() {
        long at = crcOffset();
        return has(at, CRC_SIZE) ? Crc32c.readWire(store, base + at) : 0;
    }

    /** The CRC the last validate() computed (0 if it did not get that far). */
    public int computedCrc() {
        return computedCrc;
    }

    public long offset() {
        return base;
    }

    /**
     * Starts building an FPDU at absolute {@code offset} of {@code dst}: writes ULPDU_Length and answers the
     * absolute offset where the caller writes the {@code ulpduLength} ULPDU bytes. Then call {@link #finishBuild}.
     */
    public long beginBuild(BytesStore<?, ?> dst, long offset, long capacity, int ulpduLength) {
        if (ulpduLength < 0 || ulpduLength > MAX_ULPDU_LENGTH) {
            throw new IllegalArgumentException("ULPDU_Length " + ulpduLength);
        }
        NetworkOrder.requireRoom(capacity, LENGTH_SIZE + ulpduLength + padFor(ulpduLength), "FPDU");
        if (out != dst) {
            out = dst; // a reference store runs the GC's write barrier: skipped when it is the same buffer
        }
        outBase = offset;
        outCapacity = capacity;
        outUlpdu = ulpduLength;
        NetworkOrder.put16(dst, offset, ulpduLength);
        return offset + LENGTH_SIZE;
    }

    /**
     * Writes the zero pad and the CRC field: the CRC-32c if {@code crcEnabled}, else zeros (the field is in every
     * FPDU, RFC 5044 §4.1). Answers the FPDU's total length.
     */
    public int finishBuild(boolean crcEnabled) {
        if (outUlpdu < 0) {
            throw new IllegalStateException("finishBuild without beginBuild");
        }
        int ulp = outUlpdu;
        outUlpdu = -1;
        int total = totalLengthFor(ulp);
        NetworkOrder.requireRoom(outCapacity, total, "FPDU");
        long padAt = outBase + LENGTH_SIZE + ulp;
        for (int i = 0, n = padFor(ulp); i < n; i++) {
            NetworkOrder.put8(out, padAt + i, 0);
        }
        int body = total - CRC_SIZE;
        Crc32c.writeWire(out, outBase + body, crcEnabled ? crc.compute(out, outBase, body) : 0);
        return total;
    }
}
