package dev.irdmaemu.fw.pcap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;

/** read(write(frames)) == frames, and no byte sequence makes the reader throw anything but its typed error. */
class PcapRoundTripProperties {
    record Frame(long timeNanos, byte[] bytes) {
    }

    @Property(tries = 300)
    void readGivesBackWhatWasWritten(@ForAll("frameLists") List<Frame> frames,
            @ForAll TimestampResolution resolution, @ForAll("orders") ByteOrder order,
            @ForAll("snaplens") int snaplen) throws IOException {
        byte[] file = write(frames, resolution, order, snaplen);
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(file))) {
            assertEquals(resolution, r.resolution());
            assertEquals(order, r.byteOrder());
            assertEquals(snaplen, r.snaplen());
            for (Frame f : frames) {
                assertTrue(r.next());
                long tick = resolution.nanosPerTick();
                assertEquals(f.timeNanos() / tick * tick, r.timeNanos());
                int captured = Math.min(f.bytes().length, snaplen);
                assertEquals(captured, r.capturedLength());
                assertEquals(f.bytes().length, r.originalLength());
                byte[] back = new byte[captured];
                r.frame().read(0, back, 0, captured);
                assertArrayEquals(Arrays.copyOf(f.bytes(), captured), back);
            }
            assertFalse(r.next());
            assertEquals(frames.size(), r.frameNumber());
        }
    }

    @Property(tries = 300)
    void replayHandsEveryFrameToATapThatCanWriteItAgain(@ForAll("frameLists") List<Frame> frames,
            @ForAll TimestampResolution resolution, @ForAll("orders") ByteOrder order) throws IOException {
        byte[] file = write(frames, resolution, order, PcapWriter.DEFAULT_SNAPLEN);
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(file));
                PcapWriter w = new PcapWriter(copy, resolution, PcapWriter.DEFAULT_SNAPLEN, order)) {
            assertEquals(frames.size(), r.replay(w));
        }
        assertArrayEquals(file, copy.toByteArray());
    }

    @Property(tries = 1000)
    void mutatedFilesOnlyEverFailWithAPcapFormatException(@ForAll("frameLists") List<Frame> frames,
            @ForAll TimestampResolution resolution, @ForAll("orders") ByteOrder order,
            @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 0, max = 1 << 20) Integer> positions,
            @ForAll @Size(min = 8, max = 8) List<Byte> values, @ForAll @IntRange(min = 0, max = 1 << 20) int cut) {
        byte[] file = write(frames, resolution, order, PcapWriter.DEFAULT_SNAPLEN);
        for (int i = 0; i < positions.size(); i++) {
            file[positions.get(i) % file.length] = values.get(i);
        }
        readAll(Arrays.copyOf(file, Math.min(file.length, cut)));
    }

    @Property(tries = 1000)
    void arbitraryBytesOnlyEverFailWithAPcapFormatException(@ForAll @Size(max = 200) byte[] tail,
            @ForAll boolean validHeader) {
        byte[] head = validHeader ? PcapReaderTest.ethernetHeader() : new byte[0];
        readAll(PcapReaderTest.concat(head, tail));
    }

    /** Reads to the end; a PcapFormatException is an answer, anything else thrown fails the property. */
    private static void readAll(byte[] file) {
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(file))) {
            while (r.next()) {
                assertTrue(r.capturedLength() >= 0 && r.capturedLength() <= PcapReader.MAX_CAPTURED_LENGTH);
                assertTrue(r.capturedLength() <= r.originalLength());
            }
        } catch (PcapFormatException e) {
            assertFalse(e.check().accepted());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        } catch (IOException e) {
            throw new AssertionError("in-memory input cannot fail with " + e, e);
        }
    }

    private static byte[] write(List<Frame> frames, TimestampResolution resolution, ByteOrder order, int snaplen) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PcapWriter w = new PcapWriter(out, resolution, snaplen, order)) {
            for (Frame f : frames) {
                BytesStore<?, byte[]> store = BytesStore.wrap(f.bytes());
                w.frame(f.timeNanos(), store, 0, f.bytes().length);
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return out.toByteArray();
    }

    @Provide
    Arbitrary<List<Frame>> frameLists() {
        Arbitrary<Long> times = Arbitraries.longs().between(0, PcapWriter.MAX_TIME_NANOS);
        Arbitrary<byte[]> bytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(1600);
        return Combinators.combine(times, bytes).as(Frame::new).list().ofMaxSize(12);
    }

    @Provide
    Arbitrary<ByteOrder> orders() {
        return Arbitraries.of(ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN);
    }

    @Provide
    Arbitrary<Integer> snaplens() {
        return Arbitraries.oneOf(Arbitraries.integers().between(1, 2000),
                Arbitraries.integers().between(1, PcapWriter.DEFAULT_SNAPLEN));
    }
}
