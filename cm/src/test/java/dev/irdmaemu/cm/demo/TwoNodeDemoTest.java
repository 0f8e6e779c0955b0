package dev.irdmaemu.cm.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import dev.irdmaemu.fw.pcap.PcapReader;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TwoNodeDemoTest {
    @Test
    void demoConnectsExchangesPrivateDataAndDisconnects() throws Exception {
        Path dir = Files.createDirectories(Path.of("target", "pcap"));
        Path file = dir.resolve("demo.pcap");
        TwoNodeDemo.Result r;
        try (PcapWriter pcap = PcapWriter.open(file, TimestampResolution.MICROSECONDS)) {
            r = TwoNodeDemo.run(pcap);
        }
        List<String> seq = r.steps().stream().map(s -> s.node() + " " + s.type()).collect(Collectors.toList());
        assertEquals(List.of("server CONNECT_REQUEST", "server ESTABLISHED", "client CONNECT_REPLY",
                "server DISCONNECT", "client CLOSE", "server CLOSE"), seq);
        assertEquals("hello from A", r.serverReceived());
        assertEquals("hello from B", r.clientReceived());
        assertEquals(2, r.mpaRevision());
        // the client asked 16/16; the server's device has 128/128: RFC 6581 negotiation lowers the server's ORD
        assertEquals(16, r.clientIrd());
        assertEquals(16, r.clientOrd());
        assertEquals(128, r.serverIrd());
        assertEquals(16, r.serverOrd());
        assertTrue(r.clean());

        // the capture holds every frame, and the handshake is in it
        int frames = 0;
        int mpa = 0;
        TcpPacket tcp = new TcpPacket();
        MpaFrame m = new MpaFrame();
        try (PcapReader in = PcapReader.open(file)) {
            while (in.next()) {
                frames++;
                assertTrue(tcp.wrap(in.frame(), 0, in.capturedLength()).validate().accepted());
                long len = tcp.tcpPayloadLength();
                if (len >= MpaFrame.HEADER_SIZE) {
                    m.wrap(in.frame(), tcp.tcpPayloadOffset(), len);
                    if (m.isRequest() || m.isReply()) {
                        mpa++;
                    }
                }
            }
        }
        assertEquals(r.framesOnWire(), frames);
        assertEquals(2, mpa, "one MPA request, one MPA reply");
        assertEquals(CmEventType.CONNECT_REQUEST, r.steps().get(0).type());
    }
}
