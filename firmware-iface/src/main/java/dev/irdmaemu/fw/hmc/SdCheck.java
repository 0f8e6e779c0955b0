package dev.irdmaemu.fw.hmc;

import dev.irdmaemu.fw.Check;

/** Checks of one segment-descriptor update entry (hmc.c irdma_set_sd_entry / irdma_clr_sd_entry). */
public enum SdCheck implements Check {
    ACCEPTED("well-formed SD entry"),
    NOT_A_WRITE("command lacks IRDMA_PFHMC_SDCMD_PMSDWR (bit 31)"),
    RESERVED_COMMAND_BITS("command bits 30:16 are set (the driver writes index | BIT(15) | PMSDWR)"),
    BAD_BP_COUNT("IRDMA_PFHMC_SDDATALOW_PMSDBPCOUNT is 0 or above 512 (IRDMA_HMC_MAX_BP_COUNT)"),
    MISALIGNED_PAGE("backing address not 4 KiB aligned (paged) or 2 MiB aligned (direct, IRDMA_HMC_DIRECT_BP_SIZE)"),
    ADDRESS_ON_CLEAR("a clear entry (valid 0) carries a backing address");

    private final String text;

    SdCheck(String text) {
        this.text = text;
    }

    @Override
    public String describe() {
        return text;
    }
}
