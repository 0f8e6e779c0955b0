package dev.irdmaemu.fw.cqp;

import static dev.irdmaemu.fw.reg.Bits.bit;
import static dev.irdmaemu.fw.reg.Bits.genmask;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.reg.Bits;
import dev.irdmaemu.fw.reg.QuadwordView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over the CQP host context: 64 bytes (IRDMA_CQP_CTX_SIZE quadwords) the driver fills in host memory
 * and hands over by writing its address to PFPE_CCQPHIGH then PFPE_CCQPLOW (ctrl.c irdma_sc_cqp_create, masks
 * IRDMA_CQPHC_* of defs.h). Gen2 layout:
 * <pre>
 *  byte  0  DISABLE_PFPDUS (1), ROCEV2_RTO_POLICY (2), PROTOCOL_USED (4:3), SQSIZE (11:8), SVER (31:24),
 *           CEQPERVF (39:32)
 *  byte  8  the SQ base (IRDMA_CQPHC_SQBASE 63:9: IRDMA_CQP_ALIGNMENT, 512 bytes)
 *  byte 16  HMC_PROFILE (2:0), ENABLED_VFS (37:32)
 *  byte 24  the completion context: echoed in quadword 1 of every CCQ completion
 *  byte 32  HW_MINVER (15:0), HW_MAJVER (31:16), MIN_RATE (51:48), MIN_DEC_FACTOR (59:56)
 *  byte 40  0
 *  byte 48  DCQCN_T (15:0), HAI_FACTOR (47:32), RAI_FACTOR (63:48)
 *  byte 56  DCQCN_B (24:0), DCQCN_F (27:25), CC_CFG_VALID (31), RREDUCE_MPERIOD (63:32)
 * </pre>
 * SQSIZE is irdma_get_encoded_wqe_size(sq_size, IRDMA_QUEUE_TYPE_CQP): 1 for 4 WQEs up to 10 for 2048, so the ring
 * holds {@code 2^(SQSIZE+1)} WQEs ({@link #sqEntries()}). hw.c irdma_create_cqp sends 2048 WQEs, HW_MAJVER_GEN_2,
 * rf->rsrc_profile and rf->protocol_used; struct_ver is left 0.
 */
public final class CqpHostContext extends QuadwordView implements Flyweight<CqpHostContext> {
    public static final int SIZE = 64;

    public static final long DISABLE_PFPDUS = bit(1);
    public static final long ROCEV2_RTO_POLICY = bit(2);
    public static final long PROTOCOL_USED = genmask(4, 3);
    public static final long SQSIZE = genmask(11, 8);
    public static final long SVER = genmask(31, 24);
    public static final long CEQPERVF = genmask(39, 32);
    public static final long SQBASE = genmask(63, 9);
    public static final long HMC_PROFILE = genmask(2, 0);
    public static final long ENABLED_VFS = genmask(37, 32);
    public static final long HW_MINVER = genmask(15, 0);
    public static final long HW_MAJVER = genmask(31, 16);
    public static final long MIN_RATE = genmask(51, 48);
    public static final long MIN_DEC_FACTOR = genmask(59, 56);
    public static final long DCQCN_T = genmask(15, 0);
    public static final long HAI_FACTOR = genmask(47, 32);
    public static final long RAI_FACTOR = genmask(63, 48);
    public static final long DCQCN_B = genmask(24, 0);
    public static final long DCQCN_F = genmask(27, 25);
    public static final long CC_CFG_VALID = bit(31);
    public static final long RREDUCE_MPERIOD = genmask(63, 32);

    /** IRDMA_CQPHC_HW_MAJVER_GEN_2. */
    public static final int HW_MAJVER_GEN_2 = 1;
    /** IRDMA_CQP_ALIGNMENT. */
    public static final int SQ_ALIGNMENT = 0x200;

    private static final long[] USED_GEN2 = {
        DISABLE_PFPDUS | ROCEV2_RTO_POLICY | PROTOCOL_USED | SQSIZE | SVER | CEQPERVF,
        -1L,
        HMC_PROFILE | ENABLED_VFS,
        -1L,
        HW_MINVER | HW_MAJVER | MIN_RATE | MIN_DEC_FACTOR,
        0L,
        DCQCN_T | HAI_FACTOR | RAI_FACTOR,
        DCQCN_B | DCQCN_F | CC_CFG_VALID | RREDUCE_MPERIOD,
    };

    public CqpHostContext wrap(BytesStore<?, ?> store, long offset) {
        return wrap(store, offset, SIZE);
    }

    public CqpHostContextCheck validate() {
        if (!beginValidation(SIZE)) {
            return fail(CqpHostContextCheck.TRUNCATED, length);
        }
        for (int i = 0; i < USED_GEN2.length; i++) {
            long stray = qword(i * 8L) & ~USED_GEN2[i];
            if (stray != 0) {
                return fail(CqpHostContextCheck.RESERVED_BITS_SET, i * 8L + Long.numberOfTrailingZeros(stray) / 8);
            }
        }
        if (sqSizeEncoded() < 1 || sqSizeEncoded() > 10) {
            return fail(CqpHostContextCheck.BAD_SQ_SIZE, 1);
        }
        if (sqBase() == 0 || (sqBase() & (SQ_ALIGNMENT - 1)) != 0) {
            return fail(CqpHostContextCheck.MISALIGNED_SQ, 8);
        }
        if (hwMajorVersion() != HW_MAJVER_GEN_2) {
            return fail(CqpHostContextCheck.BAD_HW_VERSION, 34);
        }
        if (protocolUsed() == 3) {
            return fail(CqpHostContextCheck.BAD_PROTOCOL, 0);
        }
        if (hmcProfile() < 1 || hmcProfile() > 3) {
            return fail(CqpHostContextCheck.BAD_HMC_PROFILE, 16);
        }
        return CqpHostContextCheck.ACCEPTED;
    }

    public int sqSizeEncoded() {
        return Bits.getInt(qword(0), SQSIZE);
    }

    /** Number of SQ WQEs the encoded size stands for (meaningful for 1..10). */
    public int sqEntries() {
        int e = sqSizeEncoded();
        return e >= 1 && e <= 10 ? 1 << (e + 1) : 0;
    }

    /** irdma_get_encoded_wqe_size for the CQP: log2(entries) - 1, for a power of two 4..2048. */
    public static int encodeSqSize(int entries) {
        if (entries < 4 || entries > 2048 || Integer.bitCount(entries) != 1) {
            throw new IllegalArgumentException("CQP SQ size " + entries);
        }
        return Integer.numberOfTrailingZeros(entries) - 1;
    }

    public int structVersion() {
        return Bits.getInt(qword(0), SVER);
    }

    public boolean disablePackedPdus() {
        return Bits.flag(qword(0), DISABLE_PFPDUS);
    }

    public boolean rocev2RtoPolicy() {
        return Bits.flag(qword(0), ROCEV2_RTO_POLICY);
    }

    /** enum irdma_protocol_used: 0 any, 1 iWARP only, 2 RoCE only. */
    public int protocolUsed() {
        return Bits.getInt(qword(0), PROTOCOL_USED);
    }

    public int ceqsPerVf() {
        return Bits.getInt(qword(0), CEQPERVF);
    }

    public long sqBase() {
        return qword(8);
    }

    public int hmcProfile() {
        return Bits.getInt(qword(16), HMC_PROFILE);
    }

    public int enabledVfs() {
        return Bits.getInt(qword(16), ENABLED_VFS);
    }

    /** The value the device echoes as the completion context of every CCQ completion. */
    public long completionContext() {
        return qword(24);
    }

    public int hwMajorVersion() {
        return Bits.getInt(qword(32), HW_MAJVER);
    }

    public int hwMinorVersion() {
        return Bits.getInt(qword(32), HW_MINVER);
    }

    public int dcqcnMinRate() {
        return Bits.getInt(qword(32), MIN_RATE);
    }

    public int dcqcnMinDecFactor() {
        return Bits.getInt(qword(32), MIN_DEC_FACTOR);
    }

    public int dcqcnT() {
        return Bits.getInt(qword(48), DCQCN_T);
    }

    public int dcqcnHaiFactor() {
        return Bits.getInt(qword(48), HAI_FACTOR);
    }

    public int dcqcnRaiFactor() {
        return Bits.getInt(qword(48), RAI_FACTOR);
    }

    public int dcqcnB() {
        return Bits.getInt(qword(56), DCQCN_B);
    }

    public int dcqcnF() {
        return Bits.getInt(qword(56), DCQCN_F);
    }

    public boolean ccConfigValid() {
        return Bits.flag(qword(56), CC_CFG_VALID);
    }

    public long rreduceMperiod() {
        return Bits.get(qword(56), RREDUCE_MPERIOD);
    }

    /** The driver's inputs (struct irdma_cqp_init_info and its dcqcn_params) for {@link #write}. Reusable. */
    public static final class Fields {
        public int sqEntries;
        public int structVersion;
        public boolean disablePackedPdus;
        public int ceqsPerVf;
        public boolean rocev2RtoPolicy;
        public int protocolUsed;
        public long sqBase;
        public int enabledVfs;
        public int hmcProfile;
        public long completionContext;
        public int hwMajorVersion;
        public int hwMinorVersion;
        public int minRate;
        public int minDecFactor;
        public int dcqcnT;
        public int raiFactor;
        public int haiFactor;
        public int dcqcnB;
        public int dcqcnF;
        public boolean ccConfigValid;
        public long rreduceMperiod;

        public Fields readFrom(CqpHostContext c) {
            sqEntries = c.sqEntries();
            structVersion = c.structVersion();
            disablePackedPdus = c.disablePackedPdus();
            ceqsPerVf = c.ceqsPerVf();
            rocev2RtoPolicy = c.rocev2RtoPolicy();
            protocolUsed = c.protocolUsed();
            sqBase = c.sqBase();
            enabledVfs = c.enabledVfs();
            hmcProfile = c.hmcProfile();
            completionContext = c.completionContext();
            hwMajorVersion = c.hwMajorVersion();
            hwMinorVersion = c.hwMinorVersion();
            minRate = c.dcqcnMinRate();
            minDecFactor = c.dcqcnMinDecFactor();
            dcqcnT = c.dcqcnT();
            raiFactor = c.dcqcnRaiFactor();
            haiFactor = c.dcqcnHaiFactor();
            dcqcnB = c.dcqcnB();
            dcqcnF = c.dcqcnF();
            ccConfigValid = c.ccConfigValid();
            rreduceMperiod = c.rreduceMperiod();
            return this;
        }
    }

    /** Writes the 64 bytes irdma_sc_cqp_create writes for a gen2 device at absolute {@code offset}. */
    public static void write(BytesStore<?, ?> dst, long offset, Fields f) {
        requireRoom(dst, offset, SIZE, "CQP host context");
        dst.writeLong(offset, Bits.prep(SQSIZE, encodeSqSize(f.sqEntries)) | Bits.prep(SVER, f.structVersion)
                | Bits.prep(DISABLE_PFPDUS, f.disablePackedPdus) | Bits.prep(CEQPERVF, f.ceqsPerVf)
                | Bits.prep(ROCEV2_RTO_POLICY, f.rocev2RtoPolicy) | Bits.prep(PROTOCOL_USED, f.protocolUsed));
        dst.writeLong(offset + 8, f.sqBase);
        dst.writeLong(offset + 16, Bits.prep(ENABLED_VFS, f.enabledVfs) | Bits.prep(HMC_PROFILE, f.hmcProfile));
        dst.writeLong(offset + 24, f.completionContext);
        dst.writeLong(offset + 32, Bits.prep(HW_MAJVER, f.hwMajorVersion) | Bits.prep(HW_MINVER, f.hwMinorVersion)
                | Bits.prep(MIN_RATE, f.minRate) | Bits.prep(MIN_DEC_FACTOR, f.minDecFactor));
        dst.writeLong(offset + 40, 0L);
        dst.writeLong(offset + 48, Bits.prep(DCQCN_T, f.dcqcnT) | Bits.prep(RAI_FACTOR, f.raiFactor)
                | Bits.prep(HAI_FACTOR, f.haiFactor));
        dst.writeLong(offset + 56, Bits.prep(DCQCN_B, f.dcqcnB) | Bits.prep(DCQCN_F, f.dcqcnF)
                | Bits.prep(CC_CFG_VALID, f.ccConfigValid) | Bits.prep(RREDUCE_MPERIOD, f.rreduceMperiod));
    }
}
