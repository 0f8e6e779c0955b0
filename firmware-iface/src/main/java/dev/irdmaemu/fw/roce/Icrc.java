package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.UdpHeader;
import java.nio.ByteOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The Invariant CRC of a RoCEv2 packet (IBA Vol. 1 §7.8.1 and Annex A17.4.3; read against
 * drivers/infiniband/sw/rxe/rxe_icrc.c): Ethernet's CRC-32 (reflected polynomial 0x04C11DB7, register preset to
 * ones, result complemented) over the IP header, the UDP header, the BTH, the extension headers, the payload and
 * the pad, preceded by 8 bytes of ones that stand for the LRH a RoCEv2 packet does not have. The fields a router
 * or switch may rewrite count as all ones:
 * <ul>
 *   <li>IPv4: type of service, TTL, header checksum;</li>
 *   <li>IPv6: traffic class and flow label (the first word but the version), hop limit;</li>
 *   <li>UDP: the checksum;</li>
 *   <li>BTH: byte 4 (FECN, BECN and the reserved bits: IBA's resv8a).</li>
 * </ul>
 * The CRC value is sent least significant byte first, as Ethernet's FCS is (and rxe stores it). Computed with
 * slicing-by-8 tables over the store's memory: no allocation, no copy.
 */
public final class Icrc {
    public static final int LENGTH = 4;

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final int POLYNOMIAL_REFLECTED = 0xEDB88320;
    private static final int[][] TABLES = new int[8][256];
    /** The register after 8 bytes of ones from the preset all-ones register (rxe_icrc.c's 0xdebb20e3). */
    private static final int SEED;

    static {
        for (int i = 0; i < 256; i++) {
            int c = i;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? (c >>> 1) ^ POLYNOMIAL_REFLECTED : c >>> 1;
            }
            TABLES[0][i] = c;
        }
        for (int t = 1; t < 8; t++) {
            for (int i = 0; i < 256; i++) {
                int prev = TABLES[t - 1][i];
                TABLES[t][i] = (prev >>> 8) ^ TABLES[0][prev & 0xff];
            }
        }
        int crc = 0xffff_ffff;
        for (int i = 0; i < 8; i++) {
            crc = step(crc, 0xff);
        }
        SEED = crc;
    }

    private Icrc() {
    }

    /**
     * The ICRC of the packet whose IP header starts at absolute {@code ipOffset} ({@code ipHeaderLength} bytes, IPv4
     * or IPv6 by {@code ipv6}), covering everything up to absolute {@code icrcOffset} (where the ICRC sits). The
     * caller has bounded the range (a parsed or built frame): UDP header and BTH lie inside it.
     */
    public static int compute(BytesStore<?, ?> store, long ipOffset, int ipHeaderLength, boolean ipv6,
                              long icrcOffset) {
        NetworkOrder.requireRange(store, ipOffset, icrcOffset - ipOffset);
        long udp = ipOffset + ipHeaderLength;
        long bth = udp + UdpHeader.HEADER_LENGTH;
        int crc = SEED;
        for (long at = ipOffset; at < bth + Bth.LENGTH; at++) {
            crc = step(crc, store.readUnsignedByte(at) | mask(at - ipOffset, ipHeaderLength, ipv6));
        }
        crc = update(crc, store, bth + Bth.LENGTH, icrcOffset - bth - Bth.LENGTH);
        return ~crc;
    }

    /** Ones where the byte at {@code rel} from the IP header is variant (see the class comment), else 0. */
    private static int mask(long rel, int ipHeaderLength, boolean ipv6) {
        if (rel < ipHeaderLength) {
            if (ipv6) {
                return rel == 0 ? 0x0f : rel <= 3 || rel == 7 ? 0xff : 0;
            }
            return rel == 1 || rel == 8 || rel == 10 || rel == 11 ? 0xff : 0;
        }
        long udpRel = rel - ipHeaderLength;
        if (udpRel == UdpHeader.OFF_CHECKSUM || udpRel == UdpHeader.OFF_CHECKSUM + 1) {
            return 0xff;
        }
        return udpRel == UdpHeader.HEADER_LENGTH + Bth.OFF_ECN ? 0xff : 0;
    }

    /** The ICRC as received: the 4 bytes at absolute {@code at}, least significant first. */
    public static int read(BytesStore<?, ?> store, long at) {
        return Integer.reverseBytes(NetworkOrder.i32(store, at));
    }

    /** Writes {@code icrc} at absolute {@code at}, least significant byte first; answers 4. */
    public static int write(BytesStore<?, ?> store, long at, int icrc) {
        NetworkOrder.requireRange(store, at, LENGTH);
        NetworkOrder.put32(store, at, Integer.reverseBytes(icrc));
        return LENGTH;
    }

    private static int step(int crc, int b) {
        return (crc >>> 8) ^ TABLES[0][(crc ^ b) & 0xff];
    }

    private static int update(int crc, BytesStore<?, ?> store, long offset, long length) {
        long at = offset;
        long end = offset + length;
        int[] t0 = TABLES[0];
        int[] t1 = TABLES[1];
        int[] t2 = TABLES[2];
        int[] t3 = TABLES[3];
        int[] t4 = TABLES[4];
        int[] t5 = TABLES[5];
        int[] t6 = TABLES[6];
        int[] t7 = TABLES[7];
        for (; end - at >= 8; at += 8) {
            long v = store.readLong(at);
            if (!LITTLE_ENDIAN) {
                v = Long.reverseBytes(v);
            }
            v ^= crc & 0xffff_ffffL;
            crc = t7[(int) v & 0xff] ^ t6[(int) (v >>> 8) & 0xff] ^ t5[(int) (v >>> 16) & 0xff]
                    ^ t4[(int) (v >>> 24) & 0xff] ^ t3[(int) (v >>> 32) & 0xff] ^ t2[(int) (v >>> 40) & 0xff]
                    ^ t1[(int) (v >>> 48) & 0xff] ^ t0[(int) (v >>> 56) & 0xff];
        }
        for (; at < end; at++) {
            crc = step(crc, store.readUnsignedByte(at));
        }
        return crc;
    }
}
