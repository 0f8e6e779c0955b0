package dev.irdmaemu.fw.iwarp;

import dev.irdmaemu.fw.Check;

/** Checks of an RDMAP Terminate message (RFC 5040 §4.8). */
public enum TerminateCheck implements Check {
    ACCEPTED("complete Terminate message"),
    TRUNCATED("fewer than the 4-byte Terminate Control"),
    MISSING_DDP_SEGMENT_LENGTH("M bit set but the 2-byte DDP Segment Length is not present"),
    MISSING_DDP_HEADER("D bit set but the terminated DDP header (14 or 18 bytes, by its T bit) is not present"),
    MISSING_RDMA_HEADER("R bit set but the 28-byte terminated RDMA Read Request header is not present");

    private final String text;

    TerminateCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
