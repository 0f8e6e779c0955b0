package dev.irdmaemu.model.hmc;

/** Why an HMC object index did not resolve to a host address. */
public enum HmcFault {
    NONE("resolved"),
    NOT_COMMITTED("the object type has no committed count (Commit FPM Values not done or count 0)"),
    INDEX_OUT_OF_RANGE("object index at or beyond the committed count"),
    SD_INVALID("the segment descriptor covering the object is not valid (Update PE SDs)"),
    PD_INVALID("the page descriptor covering the object is not valid"),
    DMA_FAULT("the SD's PD page or backing page is outside mapped host memory");

    private final String text;

    HmcFault(String text) {
        this.text = text;
    }

    public String describe() {
        return text;
    }
}
