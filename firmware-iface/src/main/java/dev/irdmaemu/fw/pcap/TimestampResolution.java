package dev.irdmaemu.fw.pcap;

/** The resolution of a classic pcap file's record timestamps, told by the global header's magic number. */
public enum TimestampResolution {
    /** pcap-savefile(5): magic 0xa1b2c3d4, the second field of a record timestamp counts microseconds. */
    MICROSECONDS(0xa1b2c3d4, 1_000, 6),
    /** pcap-savefile(5): magic 0xa1b23c4d, the second field of a record timestamp counts nanoseconds. */
    NANOSECONDS(0xa1b23c4d, 1, 9);

    private final int magic;
    private final int nanosPerTick;
    private final int fractionDigits;

    TimestampResolution(int magic, int nanosPerTick, int fractionDigits) {
        this.magic = magic;
        this.nanosPerTick = nanosPerTick;
        this.fractionDigits = fractionDigits;
    }

    /** The global header's magic number for this resolution, as a value (the file holds it in its byte order). */
    public int magic() {
        return magic;
    }

    /** Nanoseconds per unit of the record's fraction field: 1000 or 1. */
    public int nanosPerTick() {
        return nanosPerTick;
    }

    /** Ticks in one second: 1,000,000 or 1,000,000,000; a record's fraction field must be below it. */
    public int ticksPerSecond() {
        return 1_000_000_000 / nanosPerTick;
    }

    /** Decimal digits of a second this resolution carries: 6 or 9. */
    public int fractionDigits() {
        return fractionDigits;
    }

    /** The resolution whose magic is {@code value}, or null. */
    static TimestampResolution ofMagic(int value) {
        for (TimestampResolution r : values()) {
            if (r.magic == value) {
                return r;
            }
        }
        return null;
    }
}
