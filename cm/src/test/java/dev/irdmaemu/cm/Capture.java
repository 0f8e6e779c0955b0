package dev.irdmaemu.cm;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import dev.irdmaemu.fw.wire.FaultProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A {@link CmPair} whose wire is written to {@code target/pcap/<name>.pcap}, for a person to open. */
final class Capture implements AutoCloseable {
    final PcapWriter pcap;
    final CmPair pair;
    final Path file;

    Capture(String name, CmPair.Config config) {
        try {
            Path dir = Path.of("target", "pcap");
            Files.createDirectories(dir);
            file = dir.resolve(name.replaceAll("[^A-Za-z0-9._-]", "_") + ".pcap");
            pcap = PcapWriter.open(file, TimestampResolution.NANOSECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        pair = new CmPair(config.withTap(pcap));
    }

    Capture(String name) {
        this(name, CmPair.Config.perfect());
    }

    Capture(String name, FaultProfile faults, long seed) {
        this(name, CmPair.Config.perfect().withFaults(faults).withSeed(seed));
    }

    @Override
    public void close() {
        try {
            pcap.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
