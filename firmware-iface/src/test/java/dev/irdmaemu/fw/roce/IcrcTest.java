package dev.irdmaemu.fw.roce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.frame.IpAddress;
import java.util.zip.CRC32;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The ICRC against vectors this code did not produce: a CNP captured from a ConnectX-4 Lx adapter (published as
 * a regression vector in Scapy's test/contrib/roce.uts; the bytes only), the UC SEND example whose ICRC Scapy's RoCE
 * layer computes there, and java.util.zip.CRC32 over a masked copy of every sample; and the Annex A17 masking:
 * variant fields may change without breaking the ICRC, invariant ones may not.
 */
class IcrcTest {
    /** A CNP from a ConnectX-4 Lx (Scapy test/contrib/roce.uts "RoCE CNP captured on ConnectX-4 Lx"). */
    static final String CONNECTX4_CNP =
            "e41d2dab2bc27cfe90643b32080045c2003c718c400040119161 0a001101 0a001201"
            + "000012b700280000 8100ffff40000118 00000000 00000000000000000000000000000000 82fd002a";

    private final RoceFrame frame = new RoceFrame();

    static BytesStore<?, byte[]> hex(String s) {
        String h = s.replaceAll("[^0-9a-fA-F]", "");
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return BytesStore.wrap(b);
    }

    @Test
    void connectX4CnpCaptureVerifies() {
        BytesStore<?, byte[]> s = hex(CONNECTX4_CNP);
        assertEquals(RoceCheck.ACCEPTED, frame.wrap(s, 0, s.capacity()).validate(PathMtu.MTU_1024));
        assertEquals(BthOpcode.CNP, frame.opcode().orElseThrow());
        assertEquals(0x0118, frame.bth().destinationQp());
        assertTrue(frame.bth().becn());
        assertEquals(0xffff, frame.bth().partitionKey());
        assertEquals(0, frame.bth().psn());
        assertTrue(frame.headers().cnp().reservedBytesZero());
        // on the wire 82 fd 00 2a: the CRC value least significant byte first
        assertEquals(0x2a00fd82, frame.receivedIcrc());
        assertEquals(0x2a00fd82, frame.computedIcrc());
        // the DSCP/ECN byte (0xc2 here) is variant: CE marking in a switch leaves the ICRC valid
        s.writeByte(15, (byte) 0xc3);
        assertTrue(frame.wrap(s, 0, s.capacity()).validateStructure().accepted());
        assertTrue(frame.icrcVerifies());
    }

    /**
     * The builder's CNP, given the captured packet's addresses, DSCP/ECN byte, IPv4 id and UDP source port (0, no
     * checksum), is the ConnectX-4 Lx's packet byte for byte: BTH (0x81, P_Key 0xffff, BECN, DestQP, PSN 0), the 16
     * reserved bytes, the IPv4 checksum and the ICRC.
     */
    @Test
    void builderReproducesTheConnectX4CnpByteForByte() {
        BytesStore<?, byte[]> captured = hex(CONNECTX4_CNP);
        RoceFrameBuilder b = new RoceFrameBuilder().ethernet(0xe41d2dab2bc2L, 0x7cfe90643b32L)
                .ipv4(IpAddress.ipv4(10, 0, 17, 1), IpAddress.ipv4(10, 0, 18, 1)).tos(0xc2).identification(0x718c)
                .udp(0, false).cnp(0x118);
        BytesStore<?, byte[]> out = BytesStore.wrap(new byte[(int) captured.capacity()]);
        assertEquals(captured.capacity(), b.build(out, 0));
        assertEquals(java.util.HexFormat.of().formatHex(captured.underlyingObject()),
                java.util.HexFormat.of().formatHex(out.underlyingObject()));
    }

    /** Scapy's roce.uts "RoCE layer" example: a UC SEND ONLY, MigReq, pad 2; ICRC bytes 78 f3 53 f3. */
    @Test
    void scapyUcSendExample() {
        byte[] data = {'F', '0', (byte) 0x81, (byte) 0x8b, (byte) 0xe2, (byte) 0x89, '5', (byte) 0xd9, 0x0e,
            (byte) 0x9a, (byte) 0x95, 'P', 'T', 0x01, (byte) 0xbe, (byte) 0x88, '^', 'P'};
        RoceFrameBuilder b = new RoceFrameBuilder().ethernet(0x248a07a8fa22L, 0x248a07a8fa22L)
                .ipv4(IpAddress.ipv4(192, 168, 0, 7), IpAddress.ipv4(192, 168, 0, 7)).tos(1).identification(1144)
                .ttl(64).udp(49152, true).bth(BthOpcode.UC_SEND_ONLY, 211, 13571856).flags(false, true, false);
        BytesStore<?, byte[]> out = BytesStore.wrap(new byte[128]);
        int n = b.build(out, 0, BytesStore.wrap(data), 0, data.length);
        assertEquals(14 + 64, n);
        assertEquals(0x78f353f3, wireWord(out, n - 4), "ICRC bytes on the wire");
        assertEquals(RoceCheck.ACCEPTED, frame.wrap(out, 0, n).validate(PathMtu.MTU_256));
        assertEquals(2, frame.bth().padCount());
        assertEquals(0xb4d5, frame.ipv4().headerChecksum(), "IPv4 checksum as Scapy computes it");
    }

    private static int wireWord(BytesStore<?, ?> s, int at) {
        return (s.readUnsignedByte(at) << 24) | (s.readUnsignedByte(at + 1) << 16) | (s.readUnsignedByte(at + 2) << 8)
                | s.readUnsignedByte(at + 3);
    }

    /** java.util.zip.CRC32 over 8 bytes of ones and a masked copy agrees with Icrc on every sample. */
    @Test
    void agreesWithJavaUtilZipOverAMaskedCopy() {
        for (RoceSamples.Sample sample : RoceSamples.all()) {
            byte[] b = sample.bytes();
            BytesStore<?, byte[]> s = BytesStore.wrap(b);
            assertTrue(frame.wrap(s, 0, b.length).validateStructure().accepted(), sample.name());
            int ip = frame.ethernet().payloadOffset();
            int udp = frame.bthOffset() - 8;
            byte[] copy = java.util.Arrays.copyOfRange(b, ip, frame.icrcOffset());
            if (frame.isIpv6()) {
                copy[0] |= 0x0f;
                copy[1] = copy[2] = copy[3] = (byte) 0xff;
                copy[7] = (byte) 0xff;
            } else {
                copy[1] = copy[8] = copy[10] = copy[11] = (byte) 0xff;
            }
            copy[udp - ip + 6] = copy[udp - ip + 7] = (byte) 0xff;
            copy[udp - ip + 8 + 4] = (byte) 0xff;
            CRC32 crc = new CRC32();
            crc.update(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1});
            crc.update(copy);
            assertEquals((int) crc.getValue(), frame.computedIcrc(), sample.name());
            assertEquals((int) crc.getValue(), frame.receivedIcrc(), sample.name());
        }
    }

    @Test
    void variantFieldsDoNotCountInvariantOnesDo() {
        for (RoceSamples.Sample sample : RoceSamples.all()) {
            byte[] b = sample.bytes();
            assertTrue(frame.wrap(BytesStore.wrap(b), 0, b.length).validateStructure().accepted());
            int ip = frame.ethernet().payloadOffset();
            int udp = frame.bthOffset() - 8;
            int bth = frame.bthOffset();
            int[] variant = frame.isIpv6()
                    ? new int[] {ip, ip + 1, ip + 2, ip + 3, ip + 7, udp + 6, udp + 7, bth + 4}
                    : new int[] {ip + 1, ip + 8, ip + 10, ip + 11, udp + 6, udp + 7, bth + 4};
            for (int at : variant) {
                byte[] m = b.clone();
                m[at] ^= (byte) (at == ip && frame.isIpv6() ? 0x05 : 0xa5);
                assertTrue(frame.wrap(BytesStore.wrap(m), 0, m.length).validateStructure().accepted());
                assertTrue(frame.icrcVerifies(), sample.name() + " variant byte " + at);
            }
            // invariant: the IPv4 id / IPv6 payload length's neighbour (next header), the UDP source port, the BTH
            // P_Key and PSN, the first byte after the BTH
            int[] invariant = frame.isIpv6()
                    ? new int[] {ip + 8, udp, bth + 2, bth + 11, bth + 12}
                    : new int[] {ip + 4, ip + 12, udp, bth + 2, bth + 11, bth + 12};
            for (int at : invariant) {
                if (at >= frame.icrcOffset()) {
                    continue;
                }
                byte[] m = b.clone();
                m[at] ^= 0x10;
                frame.wrap(BytesStore.wrap(m), 0, m.length);
                assertTrue(frame.validateStructure().accepted(), sample.name() + " " + at);
                assertNotEquals(frame.receivedIcrc(), frame.computedIcrc(), sample.name() + " invariant byte " + at);
            }
        }
    }
}
