package dev.irdmaemu.fw.lan;

import dev.irdmaemu.fw.reg.QuadwordView;
import dev.irdmaemu.fw.bus.HostMemory;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The 32-byte Rx descriptor of a flex queue (ice_lan_tx_rx.h union ice_32b_rx_flex_desc): the driver posts the
 * read format (qword 0 the packet buffer address, qword 1 the header buffer address whose bit 0 overlaps DD), the
 * device writes the write-back format of RXDID 2, ICE_RXDID_FLEX_NIC (struct ice_32b_rx_flex_desc_nic): rxdid,
 * ptype (10 bits) with flex flags, pkt_len (14 bits), status_error0 (DD, EOF, L3L4P, checksum errors, RSS_VALID),
 * l2tag1, rss_hash, status_error1. ice_txrx.c ice_clean_rx_irq reads DD from status_error0 first, then the rest.
 */
public final class RxFlexDescriptor extends QuadwordView {
    public static final int SIZE = 32;
    /** ICE_RXDID_FLEX_NIC. */
    public static final int RXDID_FLEX_NIC = 2;
    // enum ice_rx_flex_desc_status_error_0_bits
    public static final int STATUS0_DD = 1;
    public static final int STATUS0_EOF = 1 << 1;
    /** ICE_RX_FLEX_DESC_STATUS0_HBO_S: the header did not fit the header buffer (ice drops such a buffer as RXE). */
    public static final int STATUS0_HBO = 1 << 2;
    public static final int STATUS0_L3L4P = 1 << 3;
    public static final int STATUS0_XSUM_IPE = 1 << 4;
    public static final int STATUS0_XSUM_L4E = 1 << 5;
    public static final int STATUS0_RXE = 1 << 10;
    public static final int STATUS0_RSS_VALID = 1 << 12;
    /** ICE_RX_FLEX_DESC_PTYPE_M / ICE_RX_FLX_DESC_PKT_LEN_M. */
    public static final int PTYPE_M = 0x3FF;
    public static final int PKT_LEN_M = 0x3FFF;
    /**
     * hdr_len_sph_flex_flags1 (qword 0 bits 63:48): the header length in bits 10:0 (ICE_RX_FLEX_DESC_HDR_LEN_M,
     * what ice_clean_rx_irq takes from the header buffer on a header-split queue), SPH in bit 11 (the header was
     * split into the header buffer; the field's name in ice_lan_tx_rx.h, the bit from the E810 datasheet's
     * write-back format), the flex flags above.
     */
    public static final int HDR_LEN_M = 0x7FF;
    public static final int SPH = 1 << 11;

    public RxFlexDescriptor wrap(BytesStore<?, ?> store, long offset) {
        attach(store, offset, SIZE);
        return this;
    }

    public boolean complete() {
        return has(0, SIZE);
    }

    // read format (what the driver posted)

    public long packetBufferAddress() {
        return qword(0);
    }

    public long headerBufferAddress() {
        return qword(8);
    }

    // write-back format (what the device wrote)

    public int rxdid() {
        return (int) (qword(0) & 0xFF);
    }

    public int packetType() {
        return (int) (qword(0) >>> 16) & PTYPE_M;
    }

    public int packetLength() {
        return (int) (qword(0) >>> 32) & PKT_LEN_M;
    }

    /** The header length a header-split queue wrote (hdr_len_sph_flex_flags1 bits 10:0). */
    public int headerLength() {
        return (int) (qword(0) >>> 48) & HDR_LEN_M;
    }

    /** SPH: the frame's header went to the header buffer. */
    public boolean splitHeader() {
        return ((int) (qword(0) >>> 48) & SPH) != 0;
    }

    public int status0() {
        return (int) qword(8) & 0xFFFF;
    }

    public boolean done() {
        return (status0() & STATUS0_DD) != 0;
    }

    public boolean endOfPacket() {
        return (status0() & STATUS0_EOF) != 0;
    }

    public int l2Tag1() {
        return (int) (qword(8) >>> 16) & 0xFFFF;
    }

    /** rss_hash of the NIC profile (qword 1 bits 63:32). */
    public int rssHash() {
        return (int) (qword(8) >>> 32);
    }

    public int status1() {
        return (int) qword(16) & 0xFFFF;
    }

    /** Writes the posted (read) format: the driver side (ice_alloc_rx_bufs writes pkt_addr and zeroes hdr_addr). */
    public static void writeRead(BytesStore<?, ?> dst, long offset, long packetBuffer, long headerBuffer) {
        requireRoom(dst, offset, SIZE, "Rx flex descriptor");
        putQword(dst, offset, packetBuffer);
        putQword(dst, offset + 8, headerBuffer);
        putQword(dst, offset + 16, 0);
        putQword(dst, offset + 24, 0);
    }

    /**
     * Writes a write-back descriptor at guest address {@code address} of {@code memory} (the device's side): qwords 0,
     * 2 and 3 first, then qword 1 with DD, which the driver reads before the rest (ice_txrx.c ice_clean_rx_irq).
     * False when the descriptor is not in guest memory.
     */
    public static boolean writeBack(HostMemory memory, long address, int ptype, int packetLength, int status0,
                                    int rssHash) {
        if (!memory.contains(address, SIZE)) {
            return false;
        }
        memory.writeLong(address, writeBackQword0(ptype, packetLength));
        memory.writeLong(address + 16, 0);
        memory.writeLong(address + 24, 0);
        memory.writeLong(address + 8, writeBackQword1(status0, rssHash));
        return true;
    }

    /**
     * As {@link #writeBack(HostMemory, long, int, int, int, int)}, on a header-split queue: {@code headerLength}
     * bytes went to the header buffer (SPH set when there are any), {@code packetLength} to the packet buffer.
     */
    public static boolean writeBack(HostMemory memory, long address, int ptype, int packetLength, int headerLength,
                                    int status0, int rssHash) {
        if (!memory.contains(address, SIZE)) {
            return false;
        }
        long sph = headerLength > 0 ? SPH : 0;
        memory.writeLong(address, writeBackQword0(ptype, packetLength)
                | ((headerLength & HDR_LEN_M) | sph) << 48);
        memory.writeLong(address + 16, 0);
        memory.writeLong(address + 24, 0);
        memory.writeLong(address + 8, writeBackQword1(status0, rssHash));
        return true;
    }

    /** Composes qword 0 of the write-back: rxdid, ptype, pkt_len (hdr_len 0, no split). */
    public static long writeBackQword0(int ptype, int packetLength) {
        return RXDID_FLEX_NIC | (long) (ptype & PTYPE_M) << 16 | (long) (packetLength & PKT_LEN_M) << 32;
    }

    /** Composes qword 1 of the write-back: status_error0, l2tag1 0, rss_hash. */
    public static long writeBackQword1(int status0, int rssHash) {
        return (status0 & 0xFFFFL) | (rssHash & 0xFFFF_FFFFL) << 32;
    }
}
