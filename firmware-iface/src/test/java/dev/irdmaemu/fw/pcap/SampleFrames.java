package dev.irdmaemu.fw.pcap;

import java.util.HexFormat;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Hand-made Ethernet II frames for pcap tests, written out as hex (no FCS). Documentation addresses only
 * (RFC 5737: 192.0.2.0/24, 198.51.100.0/24), locally administered MACs (02:...). The IPv4, UDP and TCP checksums
 * are correct (RFC 1071 over the RFC 791 header, and over the RFC 768 / RFC 9293 pseudo-header), so tshark
 * reports them "good" only if every byte arrived intact.
 */
public final class SampleFrames {
    public static final String MAC_A = "02:00:00:00:00:01";
    public static final String MAC_B = "02:00:00:00:00:02";

    /** 02:..:01 → 02:..:02, IPv4 192.0.2.1 → 192.0.2.2, UDP 50000 → 50001, payload "hello". 47 bytes. */
    public static final String UDP_HELLO_HEX = "020000000002" + "020000000001" + "0800"
            + "45000021000140004011b6c7" + "c0000201" + "c0000202"
            + "c350c351000db15b" + "68656c6c6f";

    /** 02:..:02 → 02:..:01, IPv4 198.51.100.1 → 198.51.100.2, TCP 50002 → 50003 SYN, seq 0x01020304. 54 bytes. */
    public static final String TCP_SYN_HEX = "020000000001" + "020000000002" + "0800"
            + "45000028000240004006e663" + "c6336401" + "c6336402"
            + "c352c353" + "01020304" + "00000000" + "5002ffff" + "d0cb0000";

    /** 02:..:02 → 02:..:01, IPv4 192.0.2.2 → 192.0.2.1, UDP 50001 → 50000, payload 00 01 .. 3f. 106 bytes. */
    public static final String UDP_COUNT_HEX = "020000000001" + "020000000002" + "0800"
            + "4500005c000340004011b68a" + "c0000202" + "c0000201"
            + "c351c350004810b4"
            + "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
            + "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f";

    private SampleFrames() {
    }

    public static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex);
    }

    /** The frame's bytes in a heap {@link BytesStore} at offset 0. */
    public static BytesStore<?, byte[]> store(String hex) {
        return BytesStore.wrap(bytes(hex));
    }
}
