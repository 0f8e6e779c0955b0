package dev.irdmaemu.fw.pcap;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Reads a classic pcap file of Ethernet frames, in either byte order and either timestamp resolution.
 *
 * <p>Everything in the file is hostile: every header field is checked before use and a file that breaks a rule
 * answers a {@link PcapFormatException} naming the {@link PcapCheck} and the byte offset, never an unchecked
 * exception; no length from the file sizes an allocation (the one frame buffer is allocated up front, at most
 * {@link #MAX_CAPTURED_LENGTH} bytes). Frames are read into that buffer, reused for every frame.
 *
 * <pre>{@code
 * try (PcapReader r = PcapReader.open(path)) {
 *     while (r.next()) {
 *         use(r.timeNanos(), r.frame(), 0, r.capturedLength());
 *     }
 * }
 * }</pre>
 */
public final class PcapReader implements Closeable {
    /** The largest captured length accepted: 256 KiB, tcpdump's default snaplen (MAXIMUM_SNAPLEN in libpcap). */
    public static final int MAX_CAPTURED_LENGTH = 256 * 1024;

    private static final int READ_BUFFER = 64 * 1024;
    private static final int SWAPPED_MICROS = Integer.reverseBytes(TimestampResolution.MICROSECONDS.magic());
    private static final int SWAPPED_NANOS = Integer.reverseBytes(TimestampResolution.NANOSECONDS.magic());
    /** pcapng's Section Header Block type: a common mix-up worth naming in the error. */
    private static final int PCAPNG_MAGIC = 0x0a0d0d0a;

    private final InputStream in;
    private final byte[] recordHeader = new byte[PcapWriter.RECORD_HEADER_LENGTH];
    private final ByteBuffer recordFields;
    private final byte[] data;
    private final BytesStore<?, byte[]> frame;
    private final TimestampResolution resolution;
    private final ByteOrder order;
    private final long snaplen;
    private final int linkType;

    private long fileOffset;
    private long frameNumber;
    private long recordOffset;
    private long timeNanos;
    private int capturedLength;
    private long originalLength;
    private PcapFormatException failure;

    /**
     * Opens {@code file} and reads its global header.
     *
     * @throws java.nio.file.NoSuchFileException if there is no such file
     * @throws PcapFormatException               if the global header breaks a rule
     * @throws IOException                       if the file cannot be read
     */
    public static PcapReader open(Path file) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(file), READ_BUFFER);
        try {
            return new PcapReader(in);
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    /** Reads the global header from {@code in}; closing the reader closes {@code in}. */
    public PcapReader(InputStream in) throws IOException {
        this.in = Objects.requireNonNull(in, "in");
        byte[] header = new byte[PcapWriter.GLOBAL_HEADER_LENGTH];
        int got = in.readNBytes(header, 0, header.length);
        fileOffset = got;
        if (got < 4) {
            throw new PcapFormatException(PcapCheck.TRUNCATED_GLOBAL_HEADER, got,
                    got + " of " + header.length + " bytes");
        }
        ByteBuffer fields = ByteBuffer.wrap(header).order(ByteOrder.BIG_ENDIAN);
        int magic = fields.getInt(0);
        TimestampResolution r = TimestampResolution.ofMagic(magic);
        ByteOrder o = ByteOrder.BIG_ENDIAN;
        if (r == null) {
            if (magic == SWAPPED_MICROS) {
                r = TimestampResolution.MICROSECONDS;
            } else if (magic == SWAPPED_NANOS) {
                r = TimestampResolution.NANOSECONDS;
            } else {
                throw new PcapFormatException(PcapCheck.UNKNOWN_MAGIC, 0, String.format("0x%08x%s", magic,
                        magic == PCAPNG_MAGIC ? " is pcapng, not supported: save it as classic pcap" : ""));
            }
            o = ByteOrder.LITTLE_ENDIAN;
        }
        if (got < header.length) {
            throw new PcapFormatException(PcapCheck.TRUNCATED_GLOBAL_HEADER, got,
                    got + " of " + header.length + " bytes");
        }
        fields.order(o);
        int major = Short.toUnsignedInt(fields.getShort(4));
        int minor = Short.toUnsignedInt(fields.getShort(6));
        if (major != PcapWriter.VERSION_MAJOR || minor != PcapWriter.VERSION_MINOR) {
            throw new PcapFormatException(PcapCheck.UNSUPPORTED_VERSION, 4, major + "." + minor);
        }
        long snap = Integer.toUnsignedLong(fields.getInt(16));
        int link = fields.getInt(20);
        if (link != PcapWriter.LINKTYPE_ETHERNET) {
            throw new PcapFormatException(PcapCheck.NOT_ETHERNET, 20, "link type " + Integer.toUnsignedString(link));
        }
        this.resolution = r;
        this.order = o;
        this.snaplen = snap;
        this.linkType = link;
        this.recordFields = ByteBuffer.wrap(recordHeader).order(o);
        this.data = new byte[(int) Math.min(snap, MAX_CAPTURED_LENGTH)];
        this.frame = BytesStore.wrap(data);
    }

    /**
     * Reads the next record.
     *
     * @return true if a frame was read, false at the clean end of the file (between records)
     * @throws PcapFormatException if the record breaks a rule (then every later call throws it again)
     * @throws IOException         if the file cannot be read
     */
    public boolean next() throws IOException {
        if (failure != null) {
            throw failure;
        }
        long at = fileOffset;
        int got = in.readNBytes(recordHeader, 0, recordHeader.length);
        fileOffset += got;
        if (got == 0) {
            return false;
        }
        long number = frameNumber + 1;
        if (got < recordHeader.length) {
            throw fail(PcapCheck.TRUNCATED_RECORD_HEADER, at,
                    "frame " + number + ": " + got + " of " + recordHeader.length + " bytes");
        }
        long seconds = Integer.toUnsignedLong(recordFields.getInt(0));
        long fraction = Integer.toUnsignedLong(recordFields.getInt(4));
        long captured = Integer.toUnsignedLong(recordFields.getInt(8));
        long original = Integer.toUnsignedLong(recordFields.getInt(12));
        if (fraction >= resolution.ticksPerSecond()) {
            throw fail(PcapCheck.TIMESTAMP_FRACTION_OUT_OF_RANGE, at + 4,
                    "frame " + number + ": " + fraction + " >= " + resolution.ticksPerSecond());
        }
        if (captured > MAX_CAPTURED_LENGTH) {
            throw fail(PcapCheck.CAPTURED_LENGTH_OVER_LIMIT, at + 8, "frame " + number + ": incl_len " + captured);
        }
        if (captured > snaplen) {
            throw fail(PcapCheck.CAPTURED_LENGTH_OVER_SNAPLEN, at + 8,
                    "frame " + number + ": incl_len " + captured + " > snaplen " + snaplen);
        }
        if (captured > original) {
            throw fail(PcapCheck.CAPTURED_LENGTH_OVER_ORIGINAL, at + 8,
                    "frame " + number + ": incl_len " + captured + " > orig_len " + original);
        }
        int length = (int) captured;
        int read = in.readNBytes(data, 0, length);
        fileOffset += read;
        if (read < length) {
            throw fail(PcapCheck.TRUNCATED_RECORD_DATA, at + recordHeader.length,
                    "frame " + number + ": " + read + " of " + length + " bytes");
        }
        frameNumber = number;
        recordOffset = at;
        timeNanos = seconds * 1_000_000_000L + fraction * resolution.nanosPerTick();
        capturedLength = length;
        originalLength = original;
        return true;
    }

    /**
     * Reads every remaining frame and hands each to {@code tap} (the bytes are valid only during the call).
     *
     * @return the number of frames handed over
     */
    public long replay(FrameTap tap) throws IOException {
        long count = 0;
        while (next()) {
            tap.frame(timeNanos, frame, 0, capturedLength);
            count++;
        }
        return count;
    }

    private PcapFormatException fail(PcapCheck check, long offset, String detail) {
        failure = new PcapFormatException(check, offset, detail);
        return failure;
    }

    /** The file's timestamp resolution (from its magic). */
    public TimestampResolution resolution() {
        return resolution;
    }

    /** The file's byte order (from its magic). */
    public ByteOrder byteOrder() {
        return order;
    }

    /** The global header's snaplen, unsigned. */
    public long snaplen() {
        return snaplen;
    }

    /** The global header's link type: always {@link PcapWriter#LINKTYPE_ETHERNET} once open. */
    public int linkType() {
        return linkType;
    }

    /** 1-based number of the current frame (0 before the first {@link #next()}). */
    public long frameNumber() {
        return frameNumber;
    }

    /** Byte offset in the file of the current frame's record header. */
    public long recordOffset() {
        return recordOffset;
    }

    /** The current frame's timestamp, nanoseconds since the epoch of the file's clock. */
    public long timeNanos() {
        return timeNanos;
    }

    /** The current frame's captured length (incl_len): the bytes available in {@link #frame()} from offset 0. */
    public int capturedLength() {
        return capturedLength;
    }

    /** The current frame's length on the wire (orig_len), unsigned. */
    public long originalLength() {
        return originalLength;
    }

    /**
     * The buffer holding the current frame at offset 0, {@link #capturedLength()} bytes long (the buffer itself
     * may be longer). Overwritten by the next {@link #next()}.
     */
    public BytesStore<?, ?> frame() {
        return frame;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
