package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.NetworkOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The TCP options {@link TcpHeader.Builder} writes, each as its RFC encodes it (kind, length, value): MSS (RFC 9293
 * §3.2), SACK-permitted (RFC 2018 §2), window scale (RFC 7323 §2.2) and timestamps (RFC 7323 §3.2), and the NOP
 * pair that aligns the option after it to 32 bits. Each writes at {@code at} and answers where the next option
 * starts, so the builder's two layouts (32-bit aligned with NOPs, or packed and closed by EOL) differ only in what
 * they put between the options. The caller has checked the header's range.
 */
final class TcpOptionEncoding {
    private TcpOptionEncoding() {
    }

    /** An option's kind and length octets (RFC 9293 §3.2: the length counts both and the option's data). */
    private static void kindAndLength(BytesStore<?, ?> store, long at, int kind, int length) {
        NetworkOrder.put8(store, at, kind);
        NetworkOrder.put8(store, at + 1, length);
    }

    static long mss(BytesStore<?, ?> store, long at, int mss) {
        kindAndLength(store, at, TcpHeader.OPTION_MSS, 4);
        NetworkOrder.put16(store, at + 2, mss);
        return at + 4;
    }

    static long sackPermitted(BytesStore<?, ?> store, long at) {
        kindAndLength(store, at, TcpHeader.OPTION_SACK_PERMITTED, 2);
        return at + 2;
    }

    static long timestamps(BytesStore<?, ?> store, long at, long tsVal, long tsEcr) {
        kindAndLength(store, at, TcpHeader.OPTION_TIMESTAMPS, 10);
        NetworkOrder.put32(store, at + 2, (int) tsVal);
        NetworkOrder.put32(store, at + 6, (int) tsEcr);
        return at + 10;
    }

    static long windowScale(BytesStore<?, ?> store, long at, int shift) {
        kindAndLength(store, at, TcpHeader.OPTION_WINDOW_SCALE, 3);
        NetworkOrder.put8(store, at + 2, shift);
        return at + 3;
    }

    /** Two NOPs (kind 1). */
    static long nops(BytesStore<?, ?> store, long at) {
        NetworkOrder.put8(store, at, TcpHeader.OPTION_NOP);
        NetworkOrder.put8(store, at + 1, TcpHeader.OPTION_NOP);
        return at + 2;
    }
}
