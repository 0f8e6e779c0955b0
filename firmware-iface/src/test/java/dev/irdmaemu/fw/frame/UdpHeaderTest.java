package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** RFC 768: the header, the length rules against the IP layer, the checksum over the pseudo-header. */
class UdpHeaderTest {
    private final UdpHeader udp = new UdpHeader();

    @Test
    void rfc768ChecksumOfAKnownDatagram() {
        // 192.0.2.1:1234 -> 192.0.2.2:5678 "hello" (firmware-iface's pcap sample, which tshark verifies)
        BytesStore<?, byte[]> s = BytesStore.wrap(new byte[13]);
        UdpHeader.write(s, 0, 1234, 5678, 13);
        s.write(8, "hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        int src = IpAddress.ipv4(192, 0, 2, 1);
        int dst = IpAddress.ipv4(192, 0, 2, 2);
        long pseudo = InternetChecksum.ipv4PseudoHeaderSum(src, dst, UdpHeader.PROTOCOL_UDP, 13);
        assertTrue(udp.wrap(s, 0, 13).checksumAbsent());
        assertFalse(udp.checksumVerifies(pseudo));
        UdpHeader.writeChecksum(s, 0, 13, pseudo);
        assertEquals(UdpHeader.Status.ACCEPTED, udp.wrap(s, 0, 13).validate());
        assertTrue(udp.checksumVerifies(pseudo));
        assertEquals(1234, udp.sourcePort());
        assertEquals(5678, udp.destinationPort());
        assertEquals(5, udp.payloadLength());
        s.writeByte(9, (byte) 'E');
        assertFalse(udp.checksumVerifies(pseudo));
    }

    @Test
    void lengthsAgainstTheIpLayer() {
        BytesStore<?, byte[]> s = BytesStore.wrap(new byte[20]);
        UdpHeader.write(s, 0, 1, 2, 20);
        assertEquals(UdpHeader.Status.TRUNCATED, udp.wrap(s, 0, 7).validate());
        assertEquals(UdpHeader.Status.LENGTH_MISMATCH, udp.wrap(s, 0, 19).validate());
        assertEquals(4, udp.failedAt());
        s.writeByte(5, (byte) 7);
        assertEquals(UdpHeader.Status.LENGTH_BELOW_HEADER, udp.wrap(s, 0, 20).validate());
        assertThrows(IllegalArgumentException.class, () -> UdpHeader.write(s, 0, 1, 2, 7));
    }
}
