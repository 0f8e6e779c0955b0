package dev.irdmaemu.fw.hmc;

/**
 * The HMC object types, {@code enum irdma_hmc_rsrc_type} (hmc.h) in order: {@link #ordinal()} is the kernel value.
 * Each carries where its quadword sits in the Query FPM buffer (irdma_sc_parse_fpm_query_buf) and the Commit FPM
 * buffer (irdma_sc_cfg_iw_fpm / irdma_sc_parse_fpm_commit_buf), how the query quadword is encoded, and how gen2
 * uses it.
 */
public enum HmcObjectType {
    QP(8, 0, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.USED),
    CQ(16, 8, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.USED),
    /** cfg_fpm_value / irdma_cfg_fpm_val commit 0 SRQs below gen3 ("Reserved"). */
    SRQ(24, 16, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.GEN3_ONLY),
    HTE(32, 24, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.USED),
    ARP(40, 32, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.USED),
    /** Not in the query buffer: the gen2 driver assumes 1 object of 8192 bytes; commits 0 ("RSVD"), parses count 1. */
    APBVT_ENTRY(-1, 40, QueryEncoding.DRIVER_FIXED, Gen2Use.USED),
    MR(48, 48, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.USED),
    XF(56, 56, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.USED),
    XFFL(64, 64, QueryEncoding.FREE_LIST, Gen2Use.USED),
    Q1(72, 72, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.USED),
    Q1FL(80, 80, QueryEncoding.FREE_LIST, Gen2Use.USED),
    TIMER(88, 88, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.USED),
    FSIMC(96, 96, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.USED),
    FSIAV(104, 104, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.USED),
    PBLE(112, 112, QueryEncoding.COUNT_ONLY, Gen2Use.USED),
    RRF(128, 128, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.USED),
    RRFFL(136, 136, QueryEncoding.FREE_LIST, Gen2Use.USED),
    HDR(144, 144, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.USED),
    MD(152, 152, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.USED),
    /** Parsed only when the CQP was created with protocol_used == IRDMA_IWARP_PROTOCOL_ONLY. */
    OOISC(160, 160, QueryEncoding.COUNT_AND_LOG2_SIZE, Gen2Use.IWARP_ONLY),
    OOISCFFL(168, 168, QueryEncoding.FREE_LIST, Gen2Use.IWARP_ONLY);

    /** How irdma_sc_parse_fpm_query_buf decodes an object's query quadword. */
    public enum QueryEncoding {
        /** irdma_sc_decode_fpm_query: max count in 31:0, log2 of the object size in 63:32. */
        COUNT_AND_LOG2_SIZE,
        /** Free lists: max count in 31:0, a block size in 63:32 (XFBLOCKSIZE, Q1BLOCKSIZE, ...); objects are 4 bytes. */
        FREE_LIST,
        /** PBLE: max count in 31:0; objects are 8 bytes. */
        COUNT_ONLY,
        /** APBVT: nothing in the buffer. */
        DRIVER_FIXED
    }

    public enum Gen2Use {
        USED,
        IWARP_ONLY,
        GEN3_ONLY
    }

    private static final HmcObjectType[] VALUES = values();

    private final int queryOffset;
    private final int commitOffset;
    private final QueryEncoding encoding;
    private final Gen2Use gen2;

    HmcObjectType(int queryOffset, int commitOffset, QueryEncoding encoding, Gen2Use gen2) {
        this.queryOffset = queryOffset;
        this.commitOffset = commitOffset;
        this.encoding = encoding;
        this.gen2 = gen2;
    }

    /** Byte offset of this type's quadword in the Query FPM buffer; -1 for APBVT. */
    public int queryOffset() {
        return queryOffset;
    }

    /** Byte offset of this type's quadword in the Commit FPM buffer. */
    public int commitOffset() {
        return commitOffset;
    }

    public QueryEncoding queryEncoding() {
        return encoding;
    }

    public Gen2Use gen2Use() {
        return gen2;
    }

    /** The kernel's IRDMA_HMC_IW_* value. */
    public int kernelValue() {
        return ordinal();
    }

    /** The type with kernel value {@code v}, null outside 0..20. */
    public static HmcObjectType of(int v) {
        return v >= 0 && v < VALUES.length ? VALUES[v] : null;
    }
}
