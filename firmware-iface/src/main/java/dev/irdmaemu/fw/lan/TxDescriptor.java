package dev.irdmaemu.fw.lan;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.reg.QuadwordView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A 16-byte Tx descriptor of a LAN queue (ice_lan_tx_rx.h): the data descriptor struct ice_tx_desc (buf_addr,
 * cmd_type_offset_bsz: DTYPE bits 3:0, CMD 15:4, OFFSET 33:16 = MACLEN in 2-byte words, IPLEN in 4-byte words,
 * L4LEN in 4-byte words, BSZ 47:34, L2TAG1 63:48) or the context descriptor struct ice_tx_ctx_desc
 * (tunneling_params, l2tag2, gcs, qw1: DTYPE 1, CMD 10:4, TSO_LEN 47:30, MSS 63:50), as ice_txrx.c ice_tx_map and
 * ice_tso write them. The device marks a finished packet by writing DTYPE 0xF (DESC_DONE) into the EOP
 * descriptor's qw1, which ice_clean_tx_irq tests; ice does not use head write-back.
 */
public final class TxDescriptor extends QuadwordView {
    public static final int SIZE = 16;
    public static final int DTYPE_DATA = 0x0;
    public static final int DTYPE_CTX = 0x1;
    public static final int DTYPE_DESC_DONE = 0xF;
    public static final int CMD_EOP = 0x0001;
    public static final int CMD_RS = 0x0002;
    public static final int CMD_IL2TAG1 = 0x0008;
    public static final int CMD_DUMMY = 0x0010;
    public static final int CMD_IIPT_M = 0x0060;
    public static final int CMD_IIPT_IPV6 = 0x0020;
    public static final int CMD_IIPT_IPV4 = 0x0040;
    public static final int CMD_IIPT_IPV4_CSUM = 0x0060;
    public static final int CMD_L4T_M = 0x0300;
    public static final int CMD_L4T_TCP = 0x0100;
    public static final int CMD_L4T_SCTP = 0x0200;
    public static final int CMD_L4T_UDP = 0x0300;
    /** ICE_TX_CTX_DESC_TSO (in the context descriptor's CMD). */
    public static final int CTX_CMD_TSO = 0x01;
    /** ICE_MAX_DATA_PER_TXD: 16 KiB - 1 per descriptor. */
    public static final int MAX_BUFFER = 0x3FFF;
    /** ICE_TXD_CTX_MIN_MSS. */
    public static final int MIN_MSS = 64;

    public enum Status implements Check {
        ACCEPTED("accepted"),
        SHORT("descriptor shorter than 16 bytes"),
        DTYPE("descriptor type neither data nor context"),
        ZERO_LENGTH("data descriptor with buffer size 0"),
        TSO_MSS("TSO with an MSS below 64"),
        TSO_LENGTH("TSO with a payload length of 0");

        private final String text;

        Status(String text) {
            this.text = text;
        }

        @Override
        public String describe() {
            return text;
        }
    }

    public TxDescriptor wrap(BytesStore<?, ?> store, long offset) {
        attach(store, offset, SIZE);
        return this;
    }

    /** Checks one descriptor on its own; the Tx engine checks the chain (EOP, total length, memory). */
    public Status validate() {
        if (!has(0, SIZE)) {
            return fail(Status.SHORT, length);
        }
        int d = dtype();
        if (d == DTYPE_DATA) {
            return bufferSize() == 0 ? fail(Status.ZERO_LENGTH, 12) : Status.ACCEPTED;
        }
        if (d != DTYPE_CTX) {
            return fail(Status.DTYPE, 8);
        }
        if ((contextCmd() & CTX_CMD_TSO) != 0) {
            if (mss() < MIN_MSS) {
                return fail(Status.TSO_MSS, 14);
            }
            if (tsoLength() == 0) {
                return fail(Status.TSO_LENGTH, 11);
            }
        }
        return Status.ACCEPTED;
    }

    public long qw1() {
        return qword(8);
    }

    public int dtype() {
        return (int) qw1() & 0xF;
    }

    // data descriptor

    public long bufferAddress() {
        return qword(0);
    }

    public int cmd() {
        return (int) (qw1() >>> 4) & 0xFFF;
    }

    public boolean endOfPacket() {
        return (cmd() & CMD_EOP) != 0;
    }

    /** MACLEN in bytes (7 bits of 2-byte words). */
    public int macLength() {
        return ((int) (qw1() >>> 16) & 0x7F) * 2;
    }

    /** IPLEN in bytes (7 bits of 4-byte words). */
    public int ipLength() {
        return ((int) (qw1() >>> 23) & 0x7F) * 4;
    }

    /** L4LEN in bytes (4 bits of 4-byte words). */
    public int l4Length() {
        return ((int) (qw1() >>> 30) & 0xF) * 4;
    }

    public int bufferSize() {
        return (int) (qw1() >>> 34) & MAX_BUFFER;
    }

    public int l2Tag1() {
        return (int) (qw1() >>> 48) & 0xFFFF;
    }

    // context descriptor

    public int contextCmd() {
        return (int) (qw1() >>> 4) & 0x7F;
    }

    public int tsoLength() {
        return (int) (qw1() >>> 30) & 0x3FFFF;
    }

    public int mss() {
        return (int) (qw1() >>> 50) & 0x3FFF;
    }

    // writers (the driver side, and the device's DESC_DONE)

    /** qw1 of a data descriptor, as ice_build_ctob composes it. */
    public static long dataQw1(int cmd, int macLen, int ipLen, int l4Len, int size, int l2tag1) {
        long offset = (macLen / 2 & 0x7F) | (long) (ipLen / 4 & 0x7F) << 7 | (long) (l4Len / 4 & 0xF) << 14;
        return DTYPE_DATA | (long) (cmd & 0xFFF) << 4 | offset << 16 | (long) (size & MAX_BUFFER) << 34
                | (long) (l2tag1 & 0xFFFF) << 48;
    }

    /** qw1 of a TSO context descriptor, as ice_tso composes cd_qw1. */
    public static long tsoContextQw1(int tsoLength, int mss) {
        return DTYPE_CTX | (long) CTX_CMD_TSO << 4 | (long) (tsoLength & 0x3FFFF) << 30 | (long) (mss & 0x3FFF) << 50;
    }

    public static void write(BytesStore<?, ?> dst, long offset, long qw0, long qw1) {
        requireRoom(dst, offset, SIZE, "Tx descriptor");
        putQword(dst, offset, qw0);
        putQword(dst, offset + 8, qw1);
    }
}
