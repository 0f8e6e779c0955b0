package dev.irdmaemu.bridge.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelPair;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The capture of connects between two model nodes, whose CM frames the devices build from address handles (gen2
 * ILQ sends: the driver hands over the TCP segment, the model adds Ethernet, VLAN, IP and both checksums), decodes
 * in tshark with every IPv4 header checksum and every TCP checksum good, for IPv4, IPv6 and a VLAN.
 */
class ModelConnectPcapTsharkTest {
    @TempDir
    Path dir;

    @Test
    void everyChecksumOfAModelConnectIsGoodInTshark() throws Exception {
        Path file = dir.resolve("connect.pcap");
        int connected = 0;
        try (PcapWriter pcap = PcapWriter.open(file, TimestampResolution.NANOSECONDS);
             ModelPair pair = new ModelPair(pcap, null, null)) {
            int[] replies = new int[1];
            IpEndpoint[][] pairs = {{CmPair.A_V4, CmPair.B_V4}, {CmPair.A_V6, CmPair.B_V6},
                {CmPair.A_VLAN, CmPair.B_VLAN}};
            int port = 4791;
            for (IpEndpoint[] p : pairs) {
                IpEndpoint server = p[1].withPort(port);
                pair.b.cm.listen(server, 8, e -> {
                    if (e.type() == CmEventType.CONNECT_REQUEST) {
                        pair.b.cm.accept(e.node(), "b".getBytes(StandardCharsets.UTF_8));
                    }
                });
                pair.a.cm.connect(p[0].withPort(50000 + port), server,
                        ConnectParams.of("a".getBytes(StandardCharsets.UTF_8), 16, 8), e -> {
                            if (e.type() == CmEventType.CONNECT_REPLY) {
                                replies[0]++;
                            }
                        });
                assertTrue(pair.runUntilIdle(60_000_000_000L));
                port++;
            }
            connected = replies[0];
            pcap.flush();
        }
        assertEquals(3, connected);
        List<String> lines = Tshark.run(dir, file, "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
                "-T", "fields", "-E", "separator=/t", "-e", "frame.number", "-e", "ip.checksum.status", "-e",
                "tcp.checksum.status", "-e", "tcp.flags.syn", "-e", "ipv6.src", "-e", "vlan.id");
        int tcp = 0;
        int syns = 0;
        int v6 = 0;
        int tagged = 0;
        for (String line : lines) {
            String[] f = line.split("\t", -1);
            if (f[2].isEmpty()) {
                continue; // not TCP
            }
            tcp++;
            assertEquals("1", f[2], "TCP checksum of frame " + f[0]);
            if (f[4].isEmpty()) {
                assertEquals("1", f[1], "IPv4 header checksum of frame " + f[0]);
            } else {
                v6++;
            }
            if ("1".equals(f[3]) || "True".equalsIgnoreCase(f[3])) {
                syns++;
            }
            if (!f[5].isEmpty()) {
                tagged++;
            }
        }
        assertTrue(tcp >= 3 * 5, "handshake, MPA and RTR frames of three connects: " + tcp);
        assertEquals(6, syns, "a SYN and a SYN-ACK per connect");
        assertTrue(v6 >= 5, "IPv6 frames: " + v6);
        assertTrue(tagged >= 5, "802.1Q-tagged frames: " + tagged);
    }
}
