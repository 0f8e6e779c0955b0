package dev.irdmaemu.fw.iwarp;

import dev.irdmaemu.fw.Check;

/** Checks of an RDMA Read Request header (RFC 5040 §4.4). */
public enum RdmaReadRequestCheck implements Check {
    ACCEPTED("complete RDMA Read Request header"),
    TRUNCATED("fewer than the 28 bytes of an RDMA Read Request header (RFC 5040 §4.4)");

    private final String text;

    RdmaReadRequestCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
