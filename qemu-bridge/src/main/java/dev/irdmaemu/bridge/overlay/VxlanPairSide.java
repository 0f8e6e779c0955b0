package dev.irdmaemu.bridge.overlay;

import dev.irdmaemu.bridge.boot.QemuHost;
import dev.irdmaemu.bridge.boot.ScenarioOverlay;
import dev.irdmaemu.bridge.boot.TempFolders;
import dev.irdmaemu.bridge.e810.E810Host;
import dev.irdmaemu.bridge.e810.E810PairRun;
import dev.irdmaemu.bridge.kit.GuestBootException;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import dev.irdmaemu.model.E810Holdings;
import dev.irdmaemu.model.trace.JsonLinesTraceSink;
import java.io.BufferedWriter;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * One guest of the two-guest pair ({@link E810PairRun}'s rping-pair scenario) with its own emulated E810, whose
 * Ethernet cable is a VXLAN segment (RFC 7348, {@link VxlanCable}) instead of a cable inside one process: the other
 * guest runs the same in another process, container or host, with the other part. The run folder gets the guest's
 * console ({@code PART.log}), the E810's trace ({@code PART-trace.jsonl}) and a capture of the inner frames on this
 * side of the segment ({@code PART-wire.pcap}, stamped with the time since the cable came up).
 */
public final class VxlanPairSide {
    /** The pair's two parts, with the MAC and address each takes (as {@link E810PairRun} gives them). */
    public enum Part {
        SERVER("server", E810PairRun.SERVER_MAC, E810PairRun.SERVER_ADDRESS, E810PairRun.CLIENT_ADDRESS),
        CLIENT("client", E810PairRun.CLIENT_MAC, E810PairRun.CLIENT_ADDRESS, E810PairRun.SERVER_ADDRESS);

        private final String word;
        private final long mac;
        private final String address;
        private final String peer;

        Part(String word, long mac, String address, String peer) {
            this.word = word;
            this.mac = mac;
            this.address = address;
            this.peer = peer;
        }

        public String word() {
            return word;
        }

        /** The part a word names; an {@link IllegalArgumentException} for any other. */
        public static Part named(String word) {
            for (Part p : values()) {
                if (p.word.equals(word)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("the pair's parts are server and client, not '" + word + "'");
        }
    }

    /** Where this side's cable is: its own UDP address, the segment's other endpoints, the segment's VNI. */
    public record Segment(InetSocketAddress local, List<InetSocketAddress> peers, int vni) {
        public Segment {
            peers = List.copyOf(peers);
        }
    }

    /**
     * This side's result: the guest's result line, the run's files, what the E810 held after the guest's poweroff,
     * and the segment's counters (datagrams each way, and each kind of hostile datagram dropped).
     */
    public record Outcome(Part part, GuestResult result, Path runDir, Path pcap, int qpsLeft, E810Holdings held,
                          String overlay) {
        public boolean ok() {
            return result.ok() && qpsLeft == 0;
        }
    }

    private VxlanPairSide() {
    }

    /** Boots this side's guest and waits (at most {@code timeout}) for its result and its QEMU's exit. */
    public static Outcome run(GuestKit e810Kit, Part part, Segment segment, Path runDir, int count, Duration timeout,
                              Consumer<String> progress)
            throws IOException, InterruptedException, TimeoutException, GuestBootException {
        Files.createDirectories(runDir);
        Path temp = Files.createTempDirectory("irdma-emu-vxlan-pair");
        Path pcapFile = runDir.resolve(part.word + "-wire.pcap");
        try (BufferedWriter trace = Files.newBufferedWriter(runDir.resolve(part.word + "-trace.jsonl"),
                StandardCharsets.UTF_8);
             PcapWriter pcap = PcapWriter.open(pcapFile, TimestampResolution.NANOSECONDS);
             E810Host host = E810Host.start(temp.resolve("e810.sock"), 0, part.mac, part.ordinal() + 1L,
                     new JsonLinesTraceSink(trace))) {
            GuestResult result;
            String counters;
            try (VxlanCable cable = VxlanCable.open(new CapturedWire(host.wire(), pcap), segment.local(),
                    segment.peers(), segment.vni())) {
                progress.accept("the " + part.word + "'s E810 is on VXLAN segment " + segment.vni() + " at "
                        + cable.localAddress() + ", peers " + segment.peers());
                Path initrd = temp.resolve("initrd.img");
                ScenarioOverlay.write(e810Kit.initramfs(), initrd);
                try (QemuHost.Running qemu = QemuHost.LOCAL.start(E810PairRun.launch(QemuHost.LOCAL.launch(e810Kit),
                        initrd, host, part.word, part.address, part.peer, count), runDir.resolve(part.word + ".log"),
                        temp)) {
                    progress.accept("the " + part.word + " guest is booting (Linux " + e810Kit.kernelRelease()
                            + ", TCG): " + qemu.where());
                    result = qemu.awaitResult("the " + part.word + " guest", timeout.toNanos(),
                            "in " + timeout.toSeconds() + " s");
                    qemu.awaitExit(Duration.ofSeconds(30));
                }
                counters = cable.counters().toString();
            }
            int qps = host.loop().call(() -> host.pf().rdma().qps().liveCount(), Duration.ofSeconds(10));
            E810Holdings held = host.loop().call(() -> host.pf().holdings(), Duration.ofSeconds(10));
            return new Outcome(part, result, runDir, pcapFile, qps, held, counters);
        } finally {
            TempFolders.delete(temp);
        }
    }
}
