package dev.irdmaemu.fw.queue;

import dev.irdmaemu.fw.Check;

/** Checks of a PUDA receive completion against its buffer (irdma_puda_get_tcpip_info's assumptions). */
public enum PudaCheck implements Check {
    ACCEPTED("payload length covers the headers and fits the buffer"),
    SHORTER_THAN_HEADERS("payload length below 40 + TCP header (puda.h IRDMA_TCP_OFFSET), or TCP data offset < 5"),
    LONGER_THAN_BUFFER("payload length exceeds the posted receive buffer");

    private final String text;

    PudaCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
