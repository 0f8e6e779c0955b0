package dev.irdmaemu.fw.iwarp;

import dev.irdmaemu.fw.Check;

/** Checks of a DDP segment header with its RDMAP control byte (RFC 5041 §5, RFC 5040 §4). */
public enum DdpCheck implements Check {
    ACCEPTED("well-formed DDP/RDMAP header"),
    TRUNCATED("shorter than the DDP header its T bit announces (2, 14 tagged or 18 untagged bytes)"),
    BAD_DDP_VERSION("DDP version (DV) is not 1 (RFC 5041 §5.1)"),
    BAD_RDMAP_VERSION("RDMAP version (RV) is not 1 (RFC 5040 §4.1)"),
    UNKNOWN_OPCODE("RDMAP opcode 8..15 is not defined (RFC 5040 §4.2)"),
    TAGGED_MISMATCH("T bit disagrees with the opcode: only RDMA Write and Read Response are tagged (RFC 5040 §4.2)");

    private final String text;

    DdpCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
