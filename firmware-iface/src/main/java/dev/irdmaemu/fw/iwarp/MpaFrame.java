package dev.irdmaemu.fw.iwarp;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.WireView;

import java.nio.charset.StandardCharsets;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over an MPA Request or Reply frame (RFC 5044 §7.1; RFC 6581 §5 for revision 2; irdma cm.h structs
 * ietf_mpa_v1 / ietf_mpa_v2 / ietf_rtr_msg):
 * <pre>
 *   0 key (16 ASCII bytes)   16 flags: M 0x80, C 0x40, R 0x20, H 0x10 (irdma IETF_MPA_V2_FLAG), low nibble reserved
 *  17 revision              18 PD_Length (u16 big-endian)      20 private data
 *  rev 2 with H: 20 ctrl_ird (u16 BE: peer-to-peer 0x8000, zero-length FPDU 0x4000, IRD 0x3fff)
 *                22 ctrl_ord (u16 BE: RDMA0 write 0x8000, RDMA0 read 0x4000, ORD 0x3fff)
 *                24 ULP private data; PD_Length counts the 4 RTR bytes (irdma_build_mpa_v2 adds IETF_RTR_MSG_SIZE)
 * </pre>
 * The codec reports facts; policy (markers refused, a revision above ours, P2P required) is the CM's.
 * Note: irdma_parse_mpa reads the RTR message whenever the revision is 2, without looking at the H bit; RFC 6581
 * ties it to H. {@link #hasRtr()} follows the RFC; {@link #ctrlIrd()}/{@link #ctrlOrd()} read bytes 20..23
 * whenever they are present, so a CM mimicking irdma can use them directly for any revision-2 frame.
 * <p>{@link #wrap} takes the bytes received (as irdma_parse_mpa gets its buffer).
 */
public final class MpaFrame extends WireView implements Flyweight<MpaFrame> {
    public static final String KEY_REQUEST = "MPA ID Req Frame";
    public static final String KEY_REPLY = "MPA ID Rep Frame";
    public static final int KEY_SIZE = 16;
    /** irdma cm.h IETF_MPA_FRAME_SIZE: key + flags + rev + PD_Length. */
    public static final int HEADER_SIZE = 20;
    /** irdma cm.h IETF_RTR_MSG_SIZE. */
    public static final int RTR_SIZE = 4;
    /** irdma cm.h IETF_MAX_PRIV_DATA_LEN; RFC 5044 §7.1. */
    public static final int MAX_PRIVATE_DATA = 512;
    /** irdma cm.h IRDMA_MAX_CM_BUF = IRDMA_MAX_IETF_SIZE (32) + IETF_MAX_PRIV_DATA_LEN. */
    public static final int MAX_CM_BUF = 32 + MAX_PRIVATE_DATA;

    public static final int FLAG_MARKERS = 0x80;
    public static final int FLAG_CRC = 0x40;
    public static final int FLAG_REJECT = 0x20;
    /** irdma cm.h IETF_MPA_V2_FLAG; RFC 6581 enhanced connection establishment; siw iwarp.h calls it MPA_RR_FLAG_ENHANCED. */
    public static final int FLAG_ENHANCED = 0x10;

    public static final int REVISION_1 = 1;
    public static final int REVISION_2 = 2;

    /** irdma cm.h IETF_PEER_TO_PEER (ctrl_ird). */
    public static final int IRD_PEER_TO_PEER = 0x8000;
    /** irdma cm.h IETF_FLPDU_ZERO_LEN (ctrl_ird): the RTR is a zero-length FPDU. */
    public static final int IRD_ZERO_LENGTH_FPDU = 0x4000;
    /** irdma cm.h IETF_RDMA0_WRITE (ctrl_ord). */
    public static final int ORD_RDMA0_WRITE = 0x8000;
    /** irdma cm.h IETF_RDMA0_READ (ctrl_ord). */
    public static final int ORD_RDMA0_READ = 0x4000;
    /** RFC 6581 §5 / irdma IETF_NO_IRD_ORD: IRD/ORD are 14 bits, 0x3fff means "no value". */
    public static final int IRD_ORD_MASK = 0x3fff;
    public static final int NO_IRD_ORD = 0x3fff;

    public static final int OFF_KEY = 0;
    public static final int OFF_FLAGS = 16;
    public static final int OFF_REVISION = 17;
    public static final int OFF_PD_LENGTH = 18;
    public static final int OFF_PRIVATE_DATA = 20;
    public static final int OFF_CTRL_IRD = 20;
    public static final int OFF_CTRL_ORD = 22;

    // The keys as two little-endian longs each, to compare 16 bytes without allocating.
    private static final long REQ_LO = keyWord(KEY_REQUEST, 0);
    private static final long REQ_HI = keyWord(KEY_REQUEST, 8);
    private static final long REP_LO = keyWord(KEY_REPLY, 0);
    private static final long REP_HI = keyWord(KEY_REPLY, 8);

    private static long keyWord(String key, int from) {
        byte[] b = key.getBytes(StandardCharsets.US_ASCII);
        long w = 0;
        for (int i = 7; i >= 0; i--) {
            w = w << 8 | (b[from + i] & 0xff);
        }
        return w;
    }

    private long leWord(long rel) {
        long w = 0;
        for (int i = 7; i >= 0; i--) {
            w = w << 8 | u8(rel + i);
        }
        return w;
    }

    public MpaCheck validate() {
        if (!beginValidation(HEADER_SIZE)) {
            return fail(MpaCheck.TOO_SHORT, length);
        }
        if (!isRequest() && !isReply()) {
            return fail(MpaCheck.BAD_KEY, OFF_KEY);
        }
        int rev = revision();
        if (rev < REVISION_1 || rev > REVISION_2) {
            return fail(MpaCheck.BAD_REVISION, OFF_REVISION);
        }
        int pd = privateDataLengthField();
        if (pd > MAX_PRIVATE_DATA) {
            return fail(MpaCheck.PRIVATE_DATA_TOO_LONG, OFF_PD_LENGTH);
        }
        if (HEADER_SIZE + pd > length) {
            return fail(MpaCheck.PRIVATE_DATA_BEYOND_BUFFER, OFF_PD_LENGTH);
        }
        if (length > MAX_CM_BUF) {
            return fail(MpaCheck.OVER_MAX_CM_BUF, MAX_CM_BUF);
        }
        if (hasRtr() && pd < RTR_SIZE) {
            return fail(MpaCheck.RTR_MISSING, OFF_PD_LENGTH);
        }
        return MpaCheck.ACCEPTED;
    }

    public boolean isRequest() {
        return has(0, KEY_SIZE) && leWord(0) == REQ_LO && leWord(8) == REQ_HI;
    }

    public boolean isReply() {
        return has(0, KEY_SIZE) && leWord(0) == REP_LO && leWord(8) == REP_HI;
    }

    public int flags() {
        return u8(OFF_FLAGS);
    }

    public boolean requestsMarkers() {
        return (flags() & FLAG_MARKERS) != 0;
    }

    public boolean requestsCrc() {
        return (flags() & FLAG_CRC) != 0;
    }

    public boolean isReject() {
        return (flags() & FLAG_REJECT) != 0;
    }

    /** The H bit (irdma IETF_MPA_V2_FLAG). */
    public boolean isEnhanced() {
        return (flags() & FLAG_ENHANCED) != 0;
    }

    /** Low nibble of the flags byte, reserved (RFC 5044 §7.1: sent as zero, not checked). */
    public int reservedFlags() {
        return flags() & 0x0f;
    }

    public int revision() {
        return u8(OFF_REVISION);
    }

    /** PD_Length as on the wire (for an enhanced frame it includes the 4 RTR bytes). */
    public int privateDataLengthField() {
        return u16(OFF_PD_LENGTH);
    }

    /** Bytes this frame occupies: 20 + PD_Length. */
    public int frameLength() {
        return HEADER_SIZE + privateDataLengthField();
    }

    /** RFC 6581 §5: the RTR message leads the private data of a revision-2 frame with the H bit. */
    public boolean hasRtr() {
        return revision() == REVISION_2 && isEnhanced();
    }

    public int ctrlIrd() {
        return u16(OFF_CTRL_IRD);
    }

    public int ctrlOrd() {
        return u16(OFF_CTRL_ORD);
    }

    public int ird() {
        return ctrlIrd() & IRD_ORD_MASK;
    }

    public int ord() {
        return ctrlOrd() & IRD_ORD_MASK;
    }

    public boolean peerToPeer() {
        return (ctrlIrd() & IRD_PEER_TO_PEER) != 0;
    }

    public boolean zeroLengthFpduRtr() {
        return (ctrlIrd() & IRD_ZERO_LENGTH_FPDU) != 0;
    }

    public boolean rdma0WriteRtr() {
        return (ctrlOrd() & ORD_RDMA0_WRITE) != 0;
    }

    public boolean rdma0ReadRtr() {
        return (ctrlOrd() & ORD_RDMA0_READ) != 0;
    }

    /** Absolute store offset of the ULP private data (after the RTR message when {@link #hasRtr()}). */
    public long privateDataOffset() {
        return base + OFF_PRIVATE_DATA + (hasRtr() ? RTR_SIZE : 0);
    }

    /** ULP private data length: PD_Length less the RTR message when present (never negative). */
    public int privateDataLength() {
        return Math.max(0, privateDataLengthField() - (hasRtr() ? RTR_SIZE : 0));
    }

    public long offset() {
        return base;
    }

    public long length() {
        return length;
    }

    /**
     * Reusable builder of MPA frames into a caller's buffer. State is primitives and one source reference;
     * {@link #build} writes everything at once. Values are written as given (0..255 revisions, any flag bits),
     * so tests can also craft malformed frames; {@link #build} refuses only what cannot be represented.
     */
    public static final class Builder {
        private boolean request = true;
        private int revision = REVISION_2;
        private int flags = FLAG_CRC;
        private boolean rtr;
        private int ctrlIrd;
        private int ctrlOrd;
        private BytesStore<?, ?> pdSource;
        private long pdOffset;
        private int pdLength;

        /** Back to: request, revision 2, flags C only, no RTR, no private data. */
        public Builder reset() {
            request = true;
            revision = REVISION_2;
            flags = FLAG_CRC;
            rtr = false;
            ctrlIrd = 0;
            ctrlOrd = 0;
            pdSource = null;
            pdOffset = 0;
            pdLength = 0;
            return this;
        }

        public Builder request() {
            request = true;
            return this;
        }

        public Builder reply() {
            request = false;
            return this;
        }

        public Builder revision(int rev) {
            revision = rev & 0xff;
            return this;
        }

        /** The whole flags byte (M, C, R, H and the reserved nibble). */
        public Builder flags(int f) {
            flags = f & 0xff;
            return this;
        }

        /**
         * Adds the RFC 6581 RTR message and sets the H bit. IRD/ORD are masked to 14 bits (0x3fff = no value).
         */
        public Builder rtr(int ird, int ord, boolean peerToPeer, boolean zeroLengthFpdu, boolean rdma0Write,
                           boolean rdma0Read) {
            rtr = true;
            flags |= FLAG_ENHANCED;
            ctrlIrd = (ird & IRD_ORD_MASK) | (peerToPeer ? IRD_PEER_TO_PEER : 0)
                    | (zeroLengthFpdu ? IRD_ZERO_LENGTH_FPDU : 0);
            ctrlOrd = (ord & IRD_ORD_MASK) | (rdma0Write ? ORD_RDMA0_WRITE : 0) | (rdma0Read ? ORD_RDMA0_READ : 0);
            return this;
        }

        /** Drops the RTR message and clears the H bit. */
        public Builder noRtr() {
            rtr = false;
            flags &= ~FLAG_ENHANCED;
            return this;
        }

        /** ULP private data, copied from {@code src[offset, offset + length)} at build time (≤ 512 with RTR). */
        public Builder privateData(BytesStore<?, ?> src, long offset, int length) {
            if (length < 0 || (length > 0 && src == null)) {
                throw new IllegalArgumentException("private data " + length);
            }
            pdSource = src;
            pdOffset = offset;
            pdLength = length;
            return this;
        }

        /** Bytes {@link #build} will write. */
        public int frameLength() {
            return HEADER_SIZE + (rtr ? RTR_SIZE : 0) + pdLength;
        }

        /**
         * Writes the frame at absolute {@code offset} of {@code dst} (at most {@code capacity} bytes); answers
         * its length. PD_Length counts the RTR message, as irdma_build_mpa_v2 does.
         *
         * @throws IllegalArgumentException if PD_Length would exceed 512 or the frame does not fit
         */
        public int build(BytesStore<?, ?> dst, long offset, long capacity) {
            int pdField = (rtr ? RTR_SIZE : 0) + pdLength;
            if (pdField > MAX_PRIVATE_DATA) {
                throw new IllegalArgumentException("PD_Length " + pdField + " above " + MAX_PRIVATE_DATA);
            }
            int total = HEADER_SIZE + pdField;
            NetworkOrder.requireRoom(capacity, total, "MPA frame");
            String key = request ? KEY_REQUEST : KEY_REPLY;
            for (int i = 0; i < KEY_SIZE; i++) {
                NetworkOrder.put8(dst, offset + i, key.charAt(i));
            }
            NetworkOrder.put8(dst, offset + OFF_FLAGS, flags);
            NetworkOrder.put8(dst, offset + OFF_REVISION, revision);
            NetworkOrder.put16(dst, offset + OFF_PD_LENGTH, pdField);
            long pd = offset + OFF_PRIVATE_DATA;
            if (rtr) {
                NetworkOrder.put16(dst, offset + OFF_CTRL_IRD, ctrlIrd);
                NetworkOrder.put16(dst, offset + OFF_CTRL_ORD, ctrlOrd);
                pd += RTR_SIZE;
            }
            if (pdLength > 0) {
                dst.write(pd, pdSource, pdOffset, pdLength);
            }
            return total;
        }
    }
}
