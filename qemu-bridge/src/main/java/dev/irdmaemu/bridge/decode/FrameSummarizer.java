package dev.irdmaemu.bridge.decode;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * One-line summary of a frame, in the spirit of tshark's summary line. For now the Ethernet II header only:
 * {@code "02:00:00:00:00:01 → 02:00:00:00:00:02 IPv4 60"} (source → destination, EtherType, length); the IP, TCP,
 * MPA, DDP and RDMAP layers come with their codecs. Reads bytes in place, allocates nothing; a short or
 * out-of-range frame gives a summary saying so, never an exception. One instance can be reused for every frame.
 */
public final class FrameSummarizer {
    /** IEEE 802.3 clause 3.1.1: destination (6), source (6), length/type (2). */
    public static final int ETHERNET_HEADER_LENGTH = 14;

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /**
     * Appends the summary of the frame at {@code [offset, offset + length)} of {@code frame} to {@code out}.
     */
    public void summarize(BytesStore<?, ?> frame, long offset, int length, StringBuilder out) {
        if (length < 0 || offset < frame.start() || offset > frame.readLimit() - length) {
            out.append("frame outside its buffer (offset ").append(offset).append(", length ").append(length)
                    .append(')');
            return;
        }
        if (length < ETHERNET_HEADER_LENGTH) {
            out.append("short frame: ").append(length).append(" bytes, below the 14-byte Ethernet header");
            return;
        }
        appendMac(frame, offset + 6, out);
        out.append(" → ");
        appendMac(frame, offset, out);
        out.append(' ');
        int type = frame.readUnsignedByte(offset + 12) << 8 | frame.readUnsignedByte(offset + 13);
        appendEtherType(type, out);
        out.append(' ').append(length);
    }

    private static void appendMac(BytesStore<?, ?> frame, long at, StringBuilder out) {
        for (int i = 0; i < 6; i++) {
            if (i > 0) {
                out.append(':');
            }
            int b = frame.readUnsignedByte(at + i);
            out.append(HEX[b >>> 4]).append(HEX[b & 0xf]);
        }
    }

    private static void appendEtherType(int type, StringBuilder out) {
        switch (type) {
            case 0x0800 -> out.append("IPv4");   // IEEE EtherType registry
            case 0x0806 -> out.append("ARP");
            case 0x86dd -> out.append("IPv6");
            case 0x8100 -> out.append("802.1Q");
            case 0x88cc -> out.append("LLDP");
            default -> {
                if (type <= 1500) {
                    // IEEE 802.3 clause 3.2.6: a value up to 1500 is an 802.3 length field, not a type
                    out.append("802.3");
                } else {
                    out.append("0x").append(HEX[type >>> 12]).append(HEX[type >>> 8 & 0xf])
                            .append(HEX[type >>> 4 & 0xf]).append(HEX[type & 0xf]);
                }
            }
        }
    }
}
