package dev.irdmaemu.fw.iwarp;

import dev.irdmaemu.fw.Check;

/** Checks of an MPA FPDU (RFC 5044 §4). */
public enum FpduCheck implements Check {
    ACCEPTED("complete FPDU, CRC good (or not in use)"),
    TOO_SHORT("fewer than the 2 bytes of ULPDU_Length"),
    ULPDU_TOO_SHORT("ULPDU_Length below the smallest DDP header (14 bytes, RFC 5041 §5.2)"),
    INCOMPLETE("not all bytes of this FPDU are present yet; totalLength() says how many are needed"),
    CRC_MISMATCH("CRC32c trailer does not match header + ULPDU + pad (RFC 5044 §4.1)"),
    MARKERS_NOT_SUPPORTED("MPA markers (RFC 5044 §5) were negotiated; this codec frames without markers only");

    private final String text;

    FpduCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
