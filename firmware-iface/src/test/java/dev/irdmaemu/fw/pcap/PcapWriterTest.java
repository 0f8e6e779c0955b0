package dev.irdmaemu.fw.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcapWriterTest {
    private static final HexFormat HEX = HexFormat.of();

    @TempDir
    Path dir;

    @Test
    void globalHeaderMicrosecondsLittleEndianByteForByte() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new PcapWriter(out, TimestampResolution.MICROSECONDS, PcapWriter.DEFAULT_SNAPLEN, ByteOrder.LITTLE_ENDIAN)
                .close();
        // pcap-savefile(5): magic a1b2c3d4, version 2.4, thiszone 0, sigfigs 0, snaplen 262144, LINKTYPE_ETHERNET 1
        assertEquals("d4c3b2a1" + "0200" + "0400" + "00000000" + "00000000" + "00000400" + "01000000",
                HEX.formatHex(out.toByteArray()));
    }

    @Test
    void globalHeaderNanosecondsBigEndianByteForByte() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new PcapWriter(out, TimestampResolution.NANOSECONDS, 65535, ByteOrder.BIG_ENDIAN).close();
        // pcap-savefile(5): magic a1b23c4d means nanosecond timestamps
        assertEquals("a1b23c4d" + "0002" + "0004" + "00000000" + "00000000" + "0000ffff" + "00000001",
                HEX.formatHex(out.toByteArray()));
    }

    @Test
    void recordHeaderMicroseconds() throws IOException {
        byte[] file = write(TimestampResolution.MICROSECONDS, 262144, 1_500_000_999L, SampleFrames.UDP_HELLO_HEX);
        // ts_sec 1, ts_usec 500000 (the 999 ns are below the resolution), incl_len 47, orig_len 47
        assertEquals("01000000" + "20a10700" + "2f000000" + "2f000000",
                HEX.formatHex(Arrays.copyOfRange(file, 24, 40)));
        assertEquals(SampleFrames.UDP_HELLO_HEX, HEX.formatHex(Arrays.copyOfRange(file, 40, file.length)));
    }

    @Test
    void recordHeaderNanoseconds() throws IOException {
        byte[] file = write(TimestampResolution.NANOSECONDS, 262144, 1_500_000_999L, SampleFrames.UDP_HELLO_HEX);
        // ts_sec 1, ts_nsec 500000999 = 0x1dcd68e7
        assertEquals("01000000" + "e768cd1d" + "2f000000" + "2f000000",
                HEX.formatHex(Arrays.copyOfRange(file, 24, 40)));
    }

    @Test
    void snaplenCutsTheCapturedBytes() throws IOException {
        byte[] file = write(TimestampResolution.MICROSECONDS, 20, 0, SampleFrames.UDP_HELLO_HEX);
        assertEquals(24 + 16 + 20, file.length);
        assertEquals("14000000" + "2f000000", HEX.formatHex(Arrays.copyOfRange(file, 32, 40)), "incl 20, orig 47");
        assertEquals(SampleFrames.UDP_HELLO_HEX.substring(0, 40), HEX.formatHex(Arrays.copyOfRange(file, 40, 60)));
    }

    @Test
    void framesFromAnOffsetInADirectBytes() throws IOException {
        Bytes<Void> bytes = Bytes.allocateElasticDirect(256);
        try {
            bytes.write(new byte[] {9, 9, 9, 9, 9, 9, 9});
            bytes.write(SampleFrames.bytes(SampleFrames.TCP_SYN_HEX));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (PcapWriter w = new PcapWriter(out, TimestampResolution.MICROSECONDS, 262144,
                    ByteOrder.LITTLE_ENDIAN)) {
                w.frame(42_000L, bytes, 7, 54);
                assertEquals(1, w.frames());
            }
            byte[] file = out.toByteArray();
            assertEquals(SampleFrames.TCP_SYN_HEX, HEX.formatHex(Arrays.copyOfRange(file, 40, file.length)));
        } finally {
            bytes.releaseLast();
        }
    }

    @Test
    void framesLargerThanTheBufferAndManyFramesRoundTripThroughAFile() throws IOException {
        byte[] huge = new byte[PcapWriter.DEFAULT_SNAPLEN];
        for (int i = 0; i < huge.length; i++) {
            huge[i] = (byte) (i * 31 + 7);
        }
        BytesStore<?, byte[]> store = BytesStore.wrap(huge);
        Path file = dir.resolve("big.pcap");
        try (PcapWriter w = PcapWriter.open(file, TimestampResolution.NANOSECONDS)) {
            w.frame(1, store, 0, huge.length);
            for (int i = 0; i < 5000; i++) {
                w.frame(2 + i, store, i, 61);
            }
        }
        assertEquals(24 + 16 + huge.length + 5000L * (16 + 61), Files.size(file));
        try (PcapReader r = PcapReader.open(file)) {
            assertTrue(r.next());
            assertEquals(huge.length, r.capturedLength());
            byte[] back = new byte[huge.length];
            r.frame().read(0, back, 0, back.length);
            assertArrayEquals(huge, back);
            for (int i = 0; i < 5000; i++) {
                assertTrue(r.next());
                assertEquals(2 + i, r.timeNanos());
                assertEquals(61, r.capturedLength());
                assertEquals(huge[i], r.frame().readByte(0));
                assertEquals(huge[i + 60], r.frame().readByte(60));
            }
            assertEquals(false, r.next());
        }
    }

    @Test
    void rejectsBadArguments() throws IOException {
        BytesStore<?, byte[]> store = SampleFrames.store(SampleFrames.UDP_HELLO_HEX);
        PcapWriter w = new PcapWriter(OutputStream.nullOutputStream(), TimestampResolution.MICROSECONDS, 262144,
                ByteOrder.LITTLE_ENDIAN);
        assertThrows(IllegalArgumentException.class, () -> w.frame(-1, store, 0, 47));
        assertThrows(IllegalArgumentException.class, () -> w.frame(PcapWriter.MAX_TIME_NANOS + 1, store, 0, 47));
        assertThrows(IllegalArgumentException.class, () -> w.frame(0, store, 0, 48));
        assertThrows(IllegalArgumentException.class, () -> w.frame(0, store, 1, 47));
        assertThrows(IllegalArgumentException.class, () -> w.frame(0, store, -1, 2));
        assertThrows(IllegalArgumentException.class, () -> w.frame(0, store, 0, -1));
        assertThrows(IllegalArgumentException.class, () -> w.frame(0, store, Long.MAX_VALUE, 1));
        w.frame(PcapWriter.MAX_TIME_NANOS, store, 47, 0);
        assertEquals(1, w.frames());
        w.close();
        w.close();
        assertThrows(IllegalStateException.class, () -> w.frame(0, store, 0, 47));
        assertThrows(IllegalArgumentException.class, () -> new PcapWriter(OutputStream.nullOutputStream(),
                TimestampResolution.MICROSECONDS, 0, ByteOrder.LITTLE_ENDIAN));
        assertThrows(IllegalArgumentException.class, () -> new PcapWriter(OutputStream.nullOutputStream(),
                TimestampResolution.MICROSECONDS, PcapWriter.DEFAULT_SNAPLEN + 1, ByteOrder.LITTLE_ENDIAN));
    }

    @Test
    void aFailingStreamFailsTheWriterAndSaysSo() throws IOException {
        OutputStream broken = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("No space left on device");
            }
        };
        PcapWriter w = new PcapWriter(broken, TimestampResolution.MICROSECONDS, 262144, ByteOrder.LITTLE_ENDIAN);
        BytesStore<?, byte[]> store = BytesStore.wrap(new byte[1500]);
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> {
            for (int i = 0; i < 100; i++) {
                w.frame(i, store, 0, 1500);
            }
        });
        assertTrue(e.getMessage().contains("No space left on device"), e.getMessage());
        assertThrows(UncheckedIOException.class, () -> w.frame(0, store, 0, 10));
        IOException flush = assertThrows(IOException.class, w::flush);
        assertTrue(flush.getMessage().contains("failed earlier"), flush.getMessage());
        assertThrows(IOException.class, w::close);
    }

    @Test
    void writingAFrameAllocatesNothing() throws IOException {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        BytesStore<?, byte[]> store = BytesStore.wrap(new byte[9100]);
        try (PcapWriter w = new PcapWriter(OutputStream.nullOutputStream(), TimestampResolution.NANOSECONDS,
                262144, ByteOrder.LITTLE_ENDIAN)) {
            for (int i = 0; i < 20_000; i++) { // warm up: let the JIT compile the path
                w.frame(i, store, i % 100, 1 + i % 8999);
            }
            long id = Thread.currentThread().getId();
            long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < 100_000; i++) {
                w.frame(i, store, i % 100, 1 + i % 8999);
            }
            long allocated = threads.getThreadAllocatedBytes(id) - before;
            // a single allocation per frame would be at least 16 bytes x 100,000
            assertTrue(allocated < 100_000, allocated + " bytes allocated for 100,000 frames");
        }
    }

    @Test
    void readingAFrameAllocatesNothing() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BytesStore<?, byte[]> store = BytesStore.wrap(new byte[1500]);
        try (PcapWriter w = new PcapWriter(out, TimestampResolution.MICROSECONDS, 262144, ByteOrder.BIG_ENDIAN)) {
            for (int i = 0; i < 120_000; i++) {
                w.frame(i * 1000L, store, 0, 60 + i % 1000);
            }
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(out.toByteArray()))) {
            long sum = 0;
            for (int i = 0; i < 20_000; i++) {
                r.next();
                sum += r.capturedLength();
            }
            long id = Thread.currentThread().getId();
            long before = threads.getThreadAllocatedBytes(id);
            while (r.next()) {
                sum += r.timeNanos() + r.frame().readByte(0);
            }
            long allocated = threads.getThreadAllocatedBytes(id) - before;
            assertEquals(120_000, r.frameNumber());
            assertTrue(allocated < 100_000, allocated + " bytes allocated for 100,000 frames (" + sum + ")");
        }
    }

    private static byte[] write(TimestampResolution resolution, int snaplen, long time, String hex)
            throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PcapWriter w = new PcapWriter(out, resolution, snaplen, ByteOrder.LITTLE_ENDIAN)) {
            BytesStore<?, byte[]> store = SampleFrames.store(hex);
            w.frame(time, store, 0, (int) store.readLimit());
        }
        return out.toByteArray();
    }
}
