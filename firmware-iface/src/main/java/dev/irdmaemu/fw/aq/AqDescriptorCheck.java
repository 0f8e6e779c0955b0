package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Check;

/** Checks of one command descriptor fetched from the ATQ (libie adminq.h, ice_controlq.c ice_sq_send_cmd). */
public enum AqDescriptorCheck implements Check {
    ACCEPTED("well-formed AQ command descriptor"),
    TRUNCATED("fewer than 32 bytes (sizeof(struct libie_aq_desc)) readable"),
    RESERVED_FLAGS("a reserved flag bit (4..8) is set"),
    VF_FLAGS("VFE or VFC set on a PF admin queue command"),
    FIRMWARE_FLAGS("DD, CMP or ERR set by the driver: the firmware owns them"),
    BUFFER_WITHOUT_LENGTH("BUF set with datalen 0 (ice_sq_send_cmd refuses a buffer of size 0)"),
    BUFFER_TOO_LARGE("datalen above LIBIE_AQ_MAX_BUF_LEN (4096)"),
    LENGTH_WITHOUT_BUFFER("datalen set without BUF");

    private final String text;

    AqDescriptorCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
