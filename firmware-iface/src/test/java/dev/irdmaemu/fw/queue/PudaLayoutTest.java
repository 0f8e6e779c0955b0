package dev.irdmaemu.fw.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** Placement of ILQ frames as irdma_puda_get_tcpip_info (utils.c, gen2) reads them: TCP at 40 (puda.h). */
class PudaLayoutTest {
    /** IPv4 192.0.2.1 -> 198.51.100.7, TCP 20000 -> 4791, SYN, 20-byte headers, 4 data bytes. */
    static byte[] ipv4Packet() {
        byte[] p = new byte[20 + 20 + 4];
        p[0] = 0x45;
        p[3] = (byte) p.length;
        p[9] = 6;
        p[12] = (byte) 192; p[13] = 0; p[14] = 2; p[15] = 1;
        p[16] = (byte) 198; p[17] = 51; p[18] = 100; p[19] = 7;
        p[20] = 0x4e; p[21] = 0x20; p[22] = 0x12; p[23] = (byte) 0xb7;
        p[24] = 0x11; p[25] = 0x22; p[26] = 0x33; p[27] = 0x44;
        p[32] = 0x50; // data offset 5
        p[33] = 0x02;
        p[40] = 'M'; p[41] = 'P'; p[42] = 'A'; p[43] = ' ';
        return p;
    }

    @Test
    void ipv4IsPaddedSoTcpStartsAt40() {
        BytesStore<?, ?> src = BytesStore.wrap(ipv4Packet());
        BytesStore<?, ?> buf = Mem.heap(2048);
        long payload = PudaLayout.place(src, 0, 44, true, buf, 0, 2048);
        assertEquals(20 + 44, payload);
        assertEquals(0x45, buf.readUnsignedByte(PudaLayout.IPV4_PAD));
        assertEquals(0x4e, buf.readUnsignedByte(PudaLayout.TCP_OFFSET));
        assertEquals(20, PudaLayout.tcpHeaderLength(buf, 0));
        assertEquals(4, PudaLayout.dataLength(payload, 20));
        assertEquals('M', buf.readUnsignedByte(PudaLayout.TCP_OFFSET + 20));
        assertEquals(PudaCheck.ACCEPTED, PudaLayout.check(payload, 20, 2048));
    }

    @Test
    void ipv6StartsAt0() {
        byte[] p = new byte[40 + 20];
        p[0] = 0x60;
        p[40 + 12] = 0x50;
        BytesStore<?, ?> buf = Mem.heap(128);
        assertEquals(60, PudaLayout.place(BytesStore.wrap(p), 0, 60, false, buf, 0, 128));
        assertEquals(0x60, buf.readUnsignedByte(0));
        assertEquals(20, PudaLayout.tcpHeaderLength(buf, 0));
    }

    @Test
    void refusals() {
        BytesStore<?, ?> src = BytesStore.wrap(ipv4Packet());
        BytesStore<?, ?> small = Mem.heap(64);
        assertEquals(-1, PudaLayout.place(src, 0, 44, true, small, 0, 63));
        assertEquals(-1, PudaLayout.place(src, 0, 44, true, small, 8, 64));
        byte[] opts = ipv4Packet();
        opts[0] = 0x46;
        assertEquals(-2, PudaLayout.place(BytesStore.wrap(opts), 0, 44, true, small, 0, 64));
        assertEquals(-2, PudaLayout.place(src, 30, 44, true, small, 0, 64));
        assertEquals(PudaCheck.SHORTER_THAN_HEADERS, PudaLayout.check(59, 20, 2048));
        assertEquals(PudaCheck.SHORTER_THAN_HEADERS, PudaLayout.check(100, 16, 2048));
        assertEquals(PudaCheck.LONGER_THAN_BUFFER, PudaLayout.check(2049, 20, 2048));
    }
}
