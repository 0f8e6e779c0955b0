package dev.irdmaemu.fw.roce;

/**
 * The NAK codes of an AETH whose syndrome is NAK (IBA Vol. 1 §9.3.6 Table 43 and §9.7.5.2.x; rxe_hdr.h
 * AETH_NAK_*): PSN sequence error, invalid request, remote access error, remote operational error, invalid RD
 * request; codes 5..31 are reserved.
 */
public enum NakCode {
    PSN_SEQUENCE_ERROR(0),
    INVALID_REQUEST(1),
    REMOTE_ACCESS_ERROR(2),
    REMOTE_OPERATIONAL_ERROR(3),
    INVALID_RD_REQUEST(4),
    RESERVED(-1);

    private static final NakCode[] BY_CODE = {
        PSN_SEQUENCE_ERROR, INVALID_REQUEST, REMOTE_ACCESS_ERROR, REMOTE_OPERATIONAL_ERROR, INVALID_RD_REQUEST,
    };

    private final int code;

    NakCode(int code) {
        this.code = code;
    }

    /** The 5-bit code; for {@link #RESERVED}, which stands for several, there is none to write. */
    public int code() {
        if (this == RESERVED) {
            throw new IllegalStateException("RESERVED stands for NAK codes 5..31");
        }
        return code;
    }

    /** The NAK code for the low five bits of a syndrome. */
    public static NakCode of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : RESERVED;
    }
}
