package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.NetworkOrder;
import java.nio.ByteOrder;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The Internet checksum (RFC 1071): the 16-bit one's complement of the one's complement sum of the data
 * taken as big-endian 16-bit words, an odd trailing byte padded with a zero low byte.
 *
 * <p>Sums here are "partial sums": non-negative {@code long}s that may still carry above bit 15. They add
 * with plain {@code +} (RFC 1071 §2(C): the sum is associative and commutative, carries can be deferred)
 * and become 16-bit with {@link #fold(long)}. A range summed on its own must start at an even distance
 * from the start of the checksummed data, or its sum be byte-swapped (RFC 1071 §2(B)) before combining;
 * the codecs only ever sum one contiguous range after a pseudo-header, so this never comes up for them.
 *
 * <p>Speed: the data is read 8 bytes at a time in the machine's order and the two 32-bit halves are added
 * into a 64-bit accumulator (RFC 1071 §2(B) byte-order independence, §2(C) parallel summation, §2(D)
 * deferred carries); the result is folded and, on a little-endian machine, byte-swapped once at the end.
 * No allocation.
 */
public final class InternetChecksum {
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /** IP protocol / IPv6 next-header number of TCP (IANA "Assigned Internet Protocol Numbers"). */
    public static final int PROTOCOL_TCP = 6;

    private InternetChecksum() {
    }

    /**
     * One's complement sum of {@code length} bytes at {@code offset}, folded to 16 bits (0..0xffff), not
     * complemented. RFC 1071 §3: bytes {@code 00 01 f2 03 f4 f5 f6 f7} sum to {@code 0xddf2}.
     *
     * @throws IllegalArgumentException if the range is not inside the store (a caller bug, not wire input)
     */
    public static int sum(BytesStore<?, ?> store, long offset, long length) {
        NetworkOrder.requireRange(store, offset, length);
        return sumUnchecked(store, offset, length);
    }

    /** Ranges this short (IP headers, segments without data) skip the long loop's setup. */
    private static final int SHORT = 64;

    /** {@link #sum} without the range check; callers have already bounded the range. */
    static int sumUnchecked(BytesStore<?, ?> store, long offset, long length) {
        if (length <= SHORT) {
            return sumShort(store, offset, (int) length);
        }
        long acc = 0;
        long at = offset;
        long end = offset + length;
        // An accumulator of 2^64 absorbs 2^31 additions of two 32-bit halves (16 GiB of data) before it
        // could wrap; fold every 1 GiB anyway so any range length is safe.
        long chunkEnd;
        while (end - at >= 8) {
            chunkEnd = Math.min(end - ((end - at) & 7), at + (1L << 30));
            for (; at < chunkEnd; at += 8) {
                long v = store.readLong(at);
                acc += (v & 0xffff_ffffL) + (v >>> 32);
            }
            acc = foldToLong(acc);
        }
        if (end - at >= 4) {
            acc += store.readInt(at) & 0xffff_ffffL;
            at += 4;
        }
        return finish(store, at, end, acc);
    }

    /**
     * {@link #sumUnchecked} of at most {@value #SHORT} bytes, four at a time: the long loop is compiled for long
     * ranges (the JIT vectorizes it), and its setup cost more than the summing for a 20-byte IPv4 header or a
     * 32-byte ACK.
     */
    private static int sumShort(BytesStore<?, ?> store, long offset, int length) {
        long acc = 0;
        int i = 0;
        for (; i + 4 <= length; i += 4) {
            acc += store.readInt(offset + i) & 0xffff_ffffL;
        }
        return finish(store, offset + i, offset + length, acc);
    }

    /** The last (fewer than four) bytes from {@code at} to {@code end} added to {@code acc}, folded, in network order. */
    private static int finish(BytesStore<?, ?> store, long at, long end, long acc) {
        if (end - at >= 2) {
            acc += store.readShort(at) & 0xffff;
            at += 2;
        }
        if (at < end) {
            // The odd last byte is the high half of a zero-padded big-endian word (RFC 1071 §1 (1)).
            int b = store.readUnsignedByte(at);
            acc += LITTLE_ENDIAN ? b : b << 8;
        }
        int folded = fold(acc);
        return LITTLE_ENDIAN ? Integer.reverseBytes(folded) >>> 16 : folded;
    }

    /**
     * Writes the checksum of the {@code length} bytes at {@code offset} into their 16-bit field at {@code fieldRel}
     * (zeroed first), with {@code pseudoHeaderSum} added: TCP and ICMP fill theirs this way. Callers have bounded the
     * range.
     */
    static void writeChecksumUnchecked(BytesStore<?, ?> store, long offset, long length, int fieldRel,
                                       long pseudoHeaderSum) {
        NetworkOrder.put16(store, offset + fieldRel, 0);
        NetworkOrder.put16(store, offset + fieldRel, complement(pseudoHeaderSum + sumUnchecked(store, offset, length)));
    }

    /** Fold a partial sum to 16 bits by end-around carry (RFC 1071 §1 (2)). */
    public static int fold(long partialSum) {
        // A fixed number of end-around carries instead of a loop of unknown length: 64 bits to at most 33 (2^32 is
        // 1 modulo 0xffff, as 2^16 is), then to at most 18, 17 and 16. Each step keeps the value modulo 0xffff and
        // keeps it non-zero, so the result is the same: 0 for 0, else the one value in 1..0xffff congruent to it.
        long s = (partialSum & 0xffff_ffffL) + (partialSum >>> 32);
        s = (s & 0xffff) + (s >>> 16);
        s = (s & 0xffff) + (s >>> 16);
        s = (s & 0xffff) + (s >>> 16);
        return (int) s;
    }

    private static long foldToLong(long s) {
        // Keep the accumulator small without fully folding: 64 -> at most 33 bits.
        return (s & 0xffff_ffffL) + (s >>> 32);
    }

    /** The checksum field value for data whose partial sum (checksum field taken as zero) is given. */
    public static int complement(long partialSum) {
        return ~fold(partialSum) & 0xffff;
    }

    /** Checksum of a range with an initial partial sum (e.g. a pseudo-header): {@code ~fold(initial+sum)}. */
    public static int checksum(BytesStore<?, ?> store, long offset, long length, long initialSum) {
        return complement(initialSum + sum(store, offset, length));
    }

    /** Checksum of a range alone. */
    public static int checksum(BytesStore<?, ?> store, long offset, long length) {
        return checksum(store, offset, length, 0);
    }

    /**
     * True if the data, checksum field included, plus the initial sum add up to all ones (RFC 1071 §1 (3)).
     * Because one's complement has two zeros, a checksum field of 0x0000 and one of 0xffff are equally
     * valid when the rest sums to 0xffff; that equivalence is inherent to the checksum.
     */
    public static boolean verify(BytesStore<?, ?> store, long offset, long length, long initialSum) {
        return fold(initialSum + sum(store, offset, length)) == 0xffff;
    }

    static boolean verifyUnchecked(BytesStore<?, ?> store, long offset, long length, long initialSum) {
        return fold(initialSum + sumUnchecked(store, offset, length)) == 0xffff;
    }

    /**
     * Partial sum of the TCP pseudo-header for IPv4 (RFC 9293 §3.1, "TCP Pseudo-Header for IPv4"):
     * source address, destination address, a zero byte, the protocol, and the TCP length (header plus data,
     * excluding the pseudo-header).
     */
    public static long ipv4PseudoHeaderSum(int source, int destination, int protocol, int tcpLength) {
        return (source >>> 16) + (source & 0xffff)
                + (destination >>> 16) + (destination & 0xffff)
                + (protocol & 0xff)
                + (tcpLength & 0xffff);
    }

    /**
     * Partial sum of the upper-layer pseudo-header for IPv6 (RFC 8200 §8.1): source address, destination
     * address, the 32-bit upper-layer packet length, three zero bytes and the next-header value.
     * Addresses are given as two longs each, most significant half first.
     */
    public static long ipv6PseudoHeaderSum(long sourceHi, long sourceLo, long destinationHi, long destinationLo,
                                           long upperLayerLength, int nextHeader) {
        return words(sourceHi) + words(sourceLo) + words(destinationHi) + words(destinationLo)
                + ((upperLayerLength >>> 16) & 0xffff) + (upperLayerLength & 0xffff)
                + (nextHeader & 0xff);
    }

    /** Sum of the four 16-bit words of a 64-bit value (at most 4 * 0xffff). */
    private static long words(long v) {
        return ((v >>> 48) & 0xffff) + ((v >>> 32) & 0xffff) + ((v >>> 16) & 0xffff) + (v & 0xffff);
    }
}
