package dev.irdmaemu.fw.pcap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every rule of {@link PcapReader}, broken one at a time by hand-made files. */
class PcapReaderTest {
    @TempDir
    Path dir;

    // ---- global header ----

    @Test
    void emptyFile() {
        PcapFormatException e = fails(new byte[0]);
        assertEquals(PcapCheck.TRUNCATED_GLOBAL_HEADER, e.check());
        assertEquals("truncated global header at byte 0: 0 of 24 bytes", e.getMessage());
    }

    @Test
    void globalHeaderCutAfterTheMagic() {
        byte[] file = Arrays.copyOf(header(ByteOrder.LITTLE_ENDIAN, 0xa1b2c3d4, 2, 4, 65535, 1), 10);
        PcapFormatException e = fails(file);
        assertEquals(PcapCheck.TRUNCATED_GLOBAL_HEADER, e.check());
        assertEquals(10, e.fileOffset());
        assertEquals("truncated global header at byte 10: 10 of 24 bytes", e.getMessage());
    }

    @Test
    void unknownMagic() {
        PcapFormatException e = fails("GIF89a, certainly not a capture file".getBytes());
        assertEquals(PcapCheck.UNKNOWN_MAGIC, e.check());
        assertEquals(0, e.fileOffset());
        assertEquals("not a classic pcap file (unknown magic number) at byte 0: 0x47494638", e.getMessage());
    }

    @Test
    void pcapngIsNamed() {
        byte[] file = header(ByteOrder.BIG_ENDIAN, 0x0a0d0d0a, 0, 0, 0, 0);
        PcapFormatException e = fails(file);
        assertEquals(PcapCheck.UNKNOWN_MAGIC, e.check());
        assertTrue(e.getMessage().contains("pcapng"), e.getMessage());
    }

    @Test
    void shortUnknownFileIsTruncatedNotUnknown() {
        assertEquals(PcapCheck.TRUNCATED_GLOBAL_HEADER, fails(new byte[] {1, 2, 3}).check());
    }

    @Test
    void unsupportedVersion() {
        PcapFormatException e = fails(header(ByteOrder.LITTLE_ENDIAN, 0xa1b2c3d4, 2, 3, 65535, 1));
        assertEquals(PcapCheck.UNSUPPORTED_VERSION, e.check());
        assertEquals(4, e.fileOffset());
        assertTrue(e.getMessage().endsWith(": 2.3"), e.getMessage());
    }

    @Test
    void notEthernet() {
        // LINKTYPE_RAW = 101 (tcpdump.org link-layer header types)
        PcapFormatException e = fails(header(ByteOrder.BIG_ENDIAN, 0xa1b2c3d4, 2, 4, 65535, 101));
        assertEquals(PcapCheck.NOT_ETHERNET, e.check());
        assertEquals(20, e.fileOffset());
        assertEquals("link type is not Ethernet (1) at byte 20: link type 101", e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(TimestampResolution.class)
    void bothByteOrdersAndResolutionsOpen(TimestampResolution resolution) throws IOException {
        for (ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN}) {
            byte[] file = concat(header(order, resolution.magic(), 2, 4, 65535, 1),
                    record(order, 3, resolution.ticksPerSecond() - 1, 5, 9), new byte[] {1, 2, 3, 4, 5});
            try (PcapReader r = new PcapReader(new ByteArrayInputStream(file))) {
                assertEquals(order, r.byteOrder());
                assertEquals(resolution, r.resolution());
                assertEquals(65535, r.snaplen());
                assertEquals(1, r.linkType());
                assertTrue(r.next());
                assertEquals(1, r.frameNumber());
                assertEquals(24, r.recordOffset());
                assertEquals(3_999_999_999L, r.timeNanos() + (resolution.nanosPerTick() - 1));
                assertEquals(5, r.capturedLength());
                assertEquals(9, r.originalLength());
                assertEquals(5, r.frame().readByte(4));
                assertFalse(r.next());
                assertFalse(r.next());
            }
        }
    }

    @Test
    void unsignedFieldsAboveTwoToTheThirtyOne() throws IOException {
        byte[] file = concat(header(ByteOrder.LITTLE_ENDIAN, 0xa1b23c4d, 2, 4, -1, 1),
                record(ByteOrder.LITTLE_ENDIAN, -1, 999_999_999, 0, -1));
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(file))) {
            assertEquals(0xFFFF_FFFFL, r.snaplen());
            assertTrue(r.next());
            assertEquals(PcapWriter.MAX_TIME_NANOS, r.timeNanos());
            assertEquals(0xFFFF_FFFFL, r.originalLength());
            assertEquals(0, r.capturedLength());
        }
    }

    // ---- records ----

    @Test
    void noRecordsIsAnEmptyCapture() throws IOException {
        try (PcapReader r = reader(ethernetHeader())) {
            assertFalse(r.next());
            assertEquals(0, r.frameNumber());
        }
    }

    @Test
    void truncatedRecordHeader() {
        PcapFormatException e = failsOnRecord(concat(ethernetHeader(), new byte[7]));
        assertEquals(PcapCheck.TRUNCATED_RECORD_HEADER, e.check());
        assertEquals(24, e.fileOffset());
        assertEquals("truncated record header at byte 24: frame 1: 7 of 16 bytes", e.getMessage());
    }

    @Test
    void truncatedRecordData() {
        byte[] file = concat(ethernetHeader(), record(ByteOrder.LITTLE_ENDIAN, 0, 0, 4, 4), new byte[4],
                record(ByteOrder.LITTLE_ENDIAN, 0, 0, 60, 60), new byte[12]);
        PcapFormatException e = failsOnRecord(file);
        assertEquals(PcapCheck.TRUNCATED_RECORD_DATA, e.check());
        assertEquals(24 + 20 + 16, e.fileOffset());
        assertEquals("truncated record data at byte 60: frame 2: 12 of 60 bytes", e.getMessage());
    }

    @Test
    void capturedLengthOverSnaplen() {
        byte[] file = concat(header(ByteOrder.LITTLE_ENDIAN, 0xa1b2c3d4, 2, 4, 64, 1),
                record(ByteOrder.LITTLE_ENDIAN, 0, 0, 65, 65), new byte[65]);
        PcapFormatException e = failsOnRecord(file);
        assertEquals(PcapCheck.CAPTURED_LENGTH_OVER_SNAPLEN, e.check());
        assertEquals(24 + 8, e.fileOffset());
        assertTrue(e.getMessage().endsWith("incl_len 65 > snaplen 64"), e.getMessage());
    }

    @Test
    void capturedLengthOverTheLimitEvenWithAHugeSnaplen() {
        // snaplen and incl_len 0xffffffff: must not size a 4 GiB buffer
        byte[] file = concat(header(ByteOrder.LITTLE_ENDIAN, 0xa1b2c3d4, 2, 4, -1, 1),
                record(ByteOrder.LITTLE_ENDIAN, 0, 0, -1, -1));
        PcapFormatException e = failsOnRecord(file);
        assertEquals(PcapCheck.CAPTURED_LENGTH_OVER_LIMIT, e.check());
        assertEquals(32, e.fileOffset());
        byte[] justOver = concat(header(ByteOrder.LITTLE_ENDIAN, 0xa1b2c3d4, 2, 4, -1, 1),
                record(ByteOrder.LITTLE_ENDIAN, 0, 0, 256 * 1024 + 1, 256 * 1024 + 1));
        assertEquals(PcapCheck.CAPTURED_LENGTH_OVER_LIMIT, failsOnRecord(justOver).check());
    }

    @Test
    void capturedLengthAtTheLimitIsRead() throws IOException {
        int max = PcapReader.MAX_CAPTURED_LENGTH;
        byte[] data = new byte[max];
        data[max - 1] = 77;
        byte[] file = concat(header(ByteOrder.LITTLE_ENDIAN, 0xa1b2c3d4, 2, 4, -1, 1),
                record(ByteOrder.LITTLE_ENDIAN, 0, 0, max, max), data);
        try (PcapReader r = reader(file)) {
            assertTrue(r.next());
            assertEquals(max, r.capturedLength());
            assertEquals(77, r.frame().readByte(max - 1));
        }
    }

    @Test
    void capturedLengthOverOriginalLength() {
        byte[] file = concat(ethernetHeader(), record(ByteOrder.LITTLE_ENDIAN, 0, 0, 10, 9), new byte[10]);
        PcapFormatException e = failsOnRecord(file);
        assertEquals(PcapCheck.CAPTURED_LENGTH_OVER_ORIGINAL, e.check());
        assertTrue(e.getMessage().endsWith("incl_len 10 > orig_len 9"), e.getMessage());
    }

    @Test
    void microsecondFractionOfAWholeSecond() {
        byte[] file = concat(ethernetHeader(), record(ByteOrder.LITTLE_ENDIAN, 0, 1_000_000, 0, 0));
        PcapFormatException e = failsOnRecord(file);
        assertEquals(PcapCheck.TIMESTAMP_FRACTION_OUT_OF_RANGE, e.check());
        assertEquals(28, e.fileOffset());
    }

    @Test
    void aFailureRepeats() throws IOException {
        byte[] file = concat(ethernetHeader(), new byte[3]);
        try (PcapReader r = reader(file)) {
            PcapFormatException first = assertThrows(PcapFormatException.class, r::next);
            assertSame(first, assertThrows(PcapFormatException.class, r::next));
        }
    }

    @Test
    void everyMessageIsOneLine() {
        for (PcapCheck c : PcapCheck.values()) {
            assertFalse(c.describe().contains("\n"));
            assertEquals(c == PcapCheck.ACCEPTED, c.accepted());
        }
        assertThrows(IllegalArgumentException.class, () -> new PcapFormatException(PcapCheck.ACCEPTED, 0, ""));
    }

    // ---- files ----

    @Test
    void missingFile() {
        assertThrows(NoSuchFileException.class, () -> PcapReader.open(dir.resolve("absent.pcap")));
    }

    @Test
    void aDirectoryIsAnIoErrorNotAFormatError() {
        IOException e = assertThrows(IOException.class, () -> PcapReader.open(dir));
        assertFalse(e instanceof PcapFormatException, e.toString());
    }

    @Test
    void openReadsAFile() throws IOException {
        Path file = dir.resolve("one.pcap");
        Files.write(file, concat(ethernetHeader(), record(ByteOrder.LITTLE_ENDIAN, 1, 2, 1, 1), new byte[] {42}));
        try (PcapReader r = PcapReader.open(file)) {
            assertTrue(r.next());
            assertEquals(1_000_002_000L, r.timeNanos());
            assertEquals(42, r.frame().readByte(0));
            assertFalse(r.next());
        }
    }

    // ---- helpers ----

    static byte[] ethernetHeader() {
        return header(ByteOrder.LITTLE_ENDIAN, 0xa1b2c3d4, 2, 4, 262144, 1);
    }

    static byte[] header(ByteOrder order, int magic, int major, int minor, int snaplen, int link) {
        return ByteBuffer.allocate(24).order(order).putInt(magic).putShort((short) major).putShort((short) minor)
                .putInt(0).putInt(0).putInt(snaplen).putInt(link).array();
    }

    static byte[] record(ByteOrder order, int sec, int fraction, int incl, int orig) {
        return ByteBuffer.allocate(16).order(order).putInt(sec).putInt(fraction).putInt(incl).putInt(orig).array();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static PcapReader reader(byte[] file) throws IOException {
        return new PcapReader(new ByteArrayInputStream(file));
    }

    private static PcapFormatException fails(byte[] file) {
        return assertThrows(PcapFormatException.class, () -> reader(file).close());
    }

    private static PcapFormatException failsOnRecord(byte[] file) {
        return assertThrows(PcapFormatException.class, () -> {
            try (PcapReader r = reader(file)) {
                while (r.next()) {
                    // read on to the broken record
                }
            }
        });
    }
}
