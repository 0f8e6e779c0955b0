package dev.irdmaemu.fw.iwarp;

import dev.irdmaemu.fw.Check;

/** Codec-level checks of an MPA Request/Reply frame (RFC 5044 §7.1, RFC 6581 §5; irdma cm.c irdma_parse_mpa). */
public enum MpaCheck implements Check {
    ACCEPTED("well-formed MPA request/reply frame"),
    TOO_SHORT("fewer than the 20 bytes of key, flags, revision and PD_Length (irdma cm.h IETF_MPA_FRAME_SIZE)"),
    BAD_KEY("key is neither \"MPA ID Req Frame\" nor \"MPA ID Rep Frame\" (RFC 5044 §7.1)"),
    BAD_REVISION("revision is 0 or above 2 (irdma supports IETF_MPA_V1 and IETF_MPA_V2)"),
    PRIVATE_DATA_TOO_LONG("PD_Length above 512 (RFC 5044 §7.1; irdma cm.h IETF_MAX_PRIV_DATA_LEN)"),
    PRIVATE_DATA_BEYOND_BUFFER("PD_Length announces more private data than the buffer holds"),
    OVER_MAX_CM_BUF("buffer longer than IRDMA_MAX_CM_BUF (544) bytes (irdma cm.h)"),
    RTR_MISSING("enhanced (rev 2, H bit) frame whose PD_Length is below the 4-byte RTR message (RFC 6581 §5)");

    private final String text;

    MpaCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
