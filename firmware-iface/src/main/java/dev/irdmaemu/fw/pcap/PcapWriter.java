package dev.irdmaemu.fw.pcap;

import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Writes frames to a classic pcap file (link type Ethernet), buffered, without allocating per frame.
 *
 * <p>Attach it anywhere frames flow: it is a {@link FrameTap}. Frames longer than the snaplen are cut to it
 * (incl_len = snaplen, orig_len = the frame's length), as libpcap does. Timestamps are simulated time in
 * nanoseconds, written as seconds plus microseconds (truncated) or nanoseconds. Not thread-safe: one writer per
 * stream of frames. Closing the writer closes the stream or channel it writes to.
 */
public final class PcapWriter implements FrameTap, Flushable, Closeable {
    /** pcap-savefile(5): version 2.4 is the current classic format. */
    public static final short VERSION_MAJOR = 2;
    public static final short VERSION_MINOR = 4;
    /** tcpdump.org link-layer header types: LINKTYPE_ETHERNET. */
    public static final int LINKTYPE_ETHERNET = 1;
    /** tcpdump's default snaplen, and the largest this writer accepts (what {@link PcapReader} accepts). */
    public static final int DEFAULT_SNAPLEN = PcapReader.MAX_CAPTURED_LENGTH;
    public static final int GLOBAL_HEADER_LENGTH = 24;
    public static final int RECORD_HEADER_LENGTH = 16;
    /** ts_sec is an unsigned 32-bit field: the latest time a record can carry. */
    public static final long MAX_TIME_NANOS = 0xFFFF_FFFFL * 1_000_000_000L + 999_999_999L;

    private static final int BUFFER_LENGTH = 64 * 1024;

    private final Sink sink;
    private final byte[] buffer = new byte[BUFFER_LENGTH];
    private final ByteBuffer fields;
    private final TimestampResolution resolution;
    private final int snaplen;
    private int position;
    private long frames;
    private IOException failure;
    private boolean closed;

    /** A writer of microsecond timestamps, little-endian, snaplen {@link #DEFAULT_SNAPLEN}, to a new file. */
    public static PcapWriter open(Path file, TimestampResolution resolution) throws IOException {
        return open(file, resolution, DEFAULT_SNAPLEN, ByteOrder.LITTLE_ENDIAN);
    }

    /** A writer to {@code file}, created or truncated. */
    public static PcapWriter open(Path file, TimestampResolution resolution, int snaplen, ByteOrder order)
            throws IOException {
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING);
        try {
            return new PcapWriter(channel, resolution, snaplen, order);
        } catch (RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** A writer to a channel (e.g. a {@link FileChannel}); the global header is written on the first flush. */
    public PcapWriter(WritableByteChannel out, TimestampResolution resolution, int snaplen, ByteOrder order) {
        this(new ChannelSink(Objects.requireNonNull(out, "out")), resolution, snaplen, order);
    }

    /** A writer to a stream; the global header is written on the first flush. */
    public PcapWriter(OutputStream out, TimestampResolution resolution, int snaplen, ByteOrder order) {
        this(new StreamSink(Objects.requireNonNull(out, "out")), resolution, snaplen, order);
    }

    private PcapWriter(Sink sink, TimestampResolution resolution, int snaplen, ByteOrder order) {
        this.resolution = Objects.requireNonNull(resolution, "resolution");
        Objects.requireNonNull(order, "order");
        if (snaplen < 1 || snaplen > DEFAULT_SNAPLEN) {
            throw new IllegalArgumentException("snaplen " + snaplen + " outside 1.." + DEFAULT_SNAPLEN);
        }
        this.sink = sink;
        this.snaplen = snaplen;
        this.fields = ByteBuffer.wrap(buffer).order(order);
        fields.putInt(0, resolution.magic());
        fields.putShort(4, VERSION_MAJOR);
        fields.putShort(6, VERSION_MINOR);
        fields.putInt(8, 0);  // thiszone: timestamps are UTC (simulated time)
        fields.putInt(12, 0); // sigfigs: always 0 in practice
        fields.putInt(16, snaplen);
        fields.putInt(20, LINKTYPE_ETHERNET);
        position = GLOBAL_HEADER_LENGTH;
    }

    /**
     * Appends one frame: the bytes {@code [offset, offset + length)} of {@code store}, which must lie in its
     * readable range ({@code start()} to {@code readLimit()}).
     *
     * @throws IllegalArgumentException if the time is negative or past {@link #MAX_TIME_NANOS}, or the range is
     *                                  outside the store
     * @throws UncheckedIOException     if the file cannot be written (this writer is then failed)
     */
    @Override
    public void frame(long timeNanos, BytesStore<?, ?> store, long offset, int length) {
        if (closed) {
            throw new IllegalStateException("pcap writer is closed");
        }
        if (timeNanos < 0 || timeNanos > MAX_TIME_NANOS) {
            throw new IllegalArgumentException("time " + timeNanos + " ns outside 0.." + MAX_TIME_NANOS);
        }
        if (length < 0 || offset < store.start() || offset > store.readLimit() - length) {
            throw new IllegalArgumentException("frame [" + offset + ", " + offset + " + " + length
                    + ") outside the store's readable range [" + store.start() + ", " + store.readLimit() + ")");
        }
        try {
            checkNotFailed();
            int captured = Math.min(length, snaplen);
            if (BUFFER_LENGTH - position < RECORD_HEADER_LENGTH) {
                drain();
            }
            fields.putInt(position, (int) (timeNanos / 1_000_000_000L));
            fields.putInt(position + 4, (int) (timeNanos % 1_000_000_000L) / resolution.nanosPerTick());
            fields.putInt(position + 8, captured);
            fields.putInt(position + 12, length);
            position += RECORD_HEADER_LENGTH;
            long from = offset;
            int left = captured;
            while (left > 0) {
                if (position == BUFFER_LENGTH) {
                    drain();
                }
                int chunk = Math.min(left, BUFFER_LENGTH - position);
                long copied = store.read(from, buffer, position, chunk);
                if (copied != chunk) {
                    throw new IllegalStateException("store gave " + copied + " of " + chunk + " bytes at " + from);
                }
                position += chunk;
                from += chunk;
                left -= chunk;
            }
            frames++;
        } catch (IOException e) {
            throw new UncheckedIOException("pcap: cannot write frame " + (frames + 1) + ": " + e.getMessage(), e);
        }
    }

    /** Frames written so far. */
    public long frames() {
        return frames;
    }

    public TimestampResolution resolution() {
        return resolution;
    }

    public int snaplen() {
        return snaplen;
    }

    public ByteOrder byteOrder() {
        return fields.order();
    }

    /** Hands everything buffered to the stream or channel. */
    @Override
    public void flush() throws IOException {
        if (closed) {
            return;
        }
        checkNotFailed();
        drain();
        try {
            sink.flush();
        } catch (IOException e) {
            failure = e;
            throw e;
        }
    }

    /** Flushes, then closes the stream or channel (also when the flush fails). Idempotent. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        try {
            flush();
        } finally {
            closed = true;
            sink.close();
        }
    }

    private void checkNotFailed() throws IOException {
        if (failure != null) {
            throw new IOException("pcap writer failed earlier: " + failure.getMessage(), failure);
        }
    }

    private void drain() throws IOException {
        if (position == 0) {
            return;
        }
        try {
            sink.write(buffer, position);
        } catch (IOException e) {
            failure = e;
            throw e;
        }
        position = 0;
    }

    private interface Sink {
        void write(byte[] bytes, int length) throws IOException;

        void flush() throws IOException;

        void close() throws IOException;
    }

    private static final class StreamSink implements Sink {
        private final OutputStream out;

        StreamSink(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(byte[] bytes, int length) throws IOException {
            out.write(bytes, 0, length);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }

    private static final class ChannelSink implements Sink {
        private final WritableByteChannel out;
        private ByteBuffer view;

        ChannelSink(WritableByteChannel out) {
            this.out = out;
        }

        @Override
        public void write(byte[] bytes, int length) throws IOException {
            if (view == null || view.array() != bytes) {
                view = ByteBuffer.wrap(bytes);
            }
            view.clear().limit(length);
            while (view.hasRemaining()) {
                out.write(view);
            }
        }

        @Override
        public void flush() {
            // a channel has no user-space buffer; durability (force) is not this writer's business
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}
