package dev.irdmaemu.fw.pcap;

import java.io.IOException;

/**
 * A pcap file broke one of {@link PcapCheck}'s rules. Its message is one line: the rule, the byte offset in the
 * file of the field that failed, and the detail (e.g. {@code "truncated record data at byte 40 (frame 1): 12 of
 * 60 bytes"}).
 */
public final class PcapFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    private final PcapCheck check;
    private final long fileOffset;

    public PcapFormatException(PcapCheck check, long fileOffset, String detail) {
        super(check.describe() + " at byte " + fileOffset + (detail.isEmpty() ? "" : ": " + detail));
        if (check.accepted()) {
            throw new IllegalArgumentException("a format exception needs a failed check");
        }
        this.check = check;
        this.fileOffset = fileOffset;
    }

    /** The rule that failed. */
    public PcapCheck check() {
        return check;
    }

    /** Byte offset in the file of the field that failed. */
    public long fileOffset() {
        return fileOffset;
    }
}
