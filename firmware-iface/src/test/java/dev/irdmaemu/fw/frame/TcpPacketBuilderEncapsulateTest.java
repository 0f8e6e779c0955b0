package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * {@link TcpPacketBuilder#encapsulate}: a TCP segment that begins at its header (a gen2 PUDA buffer, irdma cm.c
 * irdma_form_ah_cm_frame) put behind Ethernet, 802.1Q and IP headers, with the TCP checksum filled in, equals the
 * frame {@link TcpPacketBuilder#build} writes for the same fields, and verifies in {@link TcpPacket}.
 */
class TcpPacketBuilderEncapsulateTest {
    private static byte[] bytes(BytesStore<?, ?> s, int len) {
        byte[] b = new byte[len];
        s.read(0, b, 0, len);
        return b;
    }

    private static void sameAsBuild(TcpPacketBuilder b, int payload) {
        BytesStore<?, ?> whole = BytesStore.wrap(new byte[2048]);
        BytesStore<?, ?> data = BytesStore.wrap(new byte[512]);
        for (int i = 0; i < payload; i++) {
            data.writeByte(i, (byte) (i * 13));
        }
        int len = b.build(whole, 0, data, 0, payload);
        int at = b.linkAndIpLength();
        BytesStore<?, ?> seg = BytesStore.wrap(new byte[2048]);
        seg.write(0, whole, at, len - at);
        seg.writeShort(16, (short) 0x1234); // whatever the buffer's checksum field holds, the device's replaces it
        BytesStore<?, ?> out = BytesStore.wrap(new byte[2048]);
        int n = b.encapsulate(out, 0, seg, 0, len - at);
        assertEquals(len, n);
        assertEquals(java.util.Arrays.toString(bytes(whole, len)), java.util.Arrays.toString(bytes(out, n)));
        assertTrue(new TcpPacket().wrap(out, 0, n).validate().accepted());
    }

    @Test
    void ipv4WithVlanAndIpv6EqualWhatBuildWrites() {
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(0x02_00_00_00_00_02L, 0x02_00_00_00_00_01L)
                .vlan(5, false, 100).ipv4(IpAddress.ipv4(192, 0, 2, 1), IpAddress.ipv4(192, 0, 2, 2)).tos(0x28)
                .identification(7).ttl(64);
        b.tcp().ports(50000, 4791).sequenceNumber(1).acknowledgmentNumber(2).flags(TcpHeader.ACK).window(100);
        sameAsBuild(b, 37);
        b.noVlan().ipv6(0x2001_0db8_0000_0000L, 1, 0x2001_0db8_0000_0000L, 2).flowLabel(0xabcde);
        b.tcp().mss(1460).windowScale(7).packedWithEndOfList(true);
        sameAsBuild(b, 0);
    }

    @Test
    void aSegmentShorterThanATcpHeaderOrBeyondItsStoreIsRefused() {
        TcpPacketBuilder b = new TcpPacketBuilder().ipv4(1, 2);
        BytesStore<?, ?> seg = BytesStore.wrap(new byte[64]);
        BytesStore<?, ?> out = BytesStore.wrap(new byte[128]);
        assertThrows(IllegalArgumentException.class, () -> b.encapsulate(out, 0, seg, 0, 19));
        assertThrows(RuntimeException.class, () -> b.encapsulate(out, 0, seg, 0, 100));
        assertThrows(RuntimeException.class, () -> b.encapsulate(out, 100, seg, 0, 40));
    }
}
