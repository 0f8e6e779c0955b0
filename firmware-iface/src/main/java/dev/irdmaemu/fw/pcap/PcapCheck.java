package dev.irdmaemu.fw.pcap;

import dev.irdmaemu.fw.Check;

/** The rules {@link PcapReader} applies to a classic pcap file; the first constant is the accepted one. */
public enum PcapCheck implements Check {
    ACCEPTED("well-formed"),
    TRUNCATED_GLOBAL_HEADER("truncated global header"),
    UNKNOWN_MAGIC("not a classic pcap file (unknown magic number)"),
    UNSUPPORTED_VERSION("unsupported pcap version (only 2.4)"),
    NOT_ETHERNET("link type is not Ethernet (1)"),
    TRUNCATED_RECORD_HEADER("truncated record header"),
    TIMESTAMP_FRACTION_OUT_OF_RANGE("record timestamp fraction not below one second"),
    CAPTURED_LENGTH_OVER_LIMIT("record captured length above " + PcapReader.MAX_CAPTURED_LENGTH + " bytes"),
    CAPTURED_LENGTH_OVER_SNAPLEN("record captured length above the file's snaplen"),
    CAPTURED_LENGTH_OVER_ORIGINAL("record captured length above its original length"),
    TRUNCATED_RECORD_DATA("truncated record data");

    private final String description;

    PcapCheck(String description) {
        this.description = description;
    }

    @Override
    public String describe() {
        return description;
    }
}
