package dev.irdmaemu.fw.cqp;

import static dev.irdmaemu.fw.cqp.Wqes.assertQwords;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** The CQP opcodes, the CQP host context, the CCQ completion and the error codes. */
class CqpControlStructuresTest {

    /** defs.h IRDMA_CQP_OP_* (all of them; 0x13 and 0x22 appear twice there). */
    @Test
    void opcodesAreDefsH() {
        Object[][] defs = {
            {"CREATE_QP", 0x00}, {"MODIFY_QP", 0x01}, {"DESTROY_QP", 0x02}, {"CREATE_CQ", 0x03}, {"MODIFY_CQ", 0x04},
            {"DESTROY_CQ", 0x05}, {"CREATE_SRQ", 0x06}, {"MODIFY_SRQ", 0x07}, {"DESTROY_SRQ", 0x08},
            {"ALLOC_STAG", 0x09}, {"REG_MR", 0x0a}, {"QUERY_STAG", 0x0b}, {"REG_SMR", 0x0c}, {"DEALLOC_STAG", 0x0d},
            {"MANAGE_LOC_MAC_TABLE", 0x0e}, {"MANAGE_ARP", 0x0f}, {"MANAGE_VF_PBLE_BP", 0x10},
            {"MANAGE_PUSH_PAGES", 0x11}, {"QUERY_RDMA_FEATURES", 0x12}, {"UPLOAD_CONTEXT", 0x13},
            {"ALLOCATE_LOC_MAC_TABLE_ENTRY", 0x14}, {"MANAGE_HMC_PM_FUNC_TABLE", 0x15}, {"CREATE_CEQ", 0x16},
            {"DESTROY_CEQ", 0x18}, {"CREATE_AEQ", 0x19}, {"DESTROY_AEQ", 0x1b}, {"CREATE_ADDR_HANDLE", 0x1c},
            {"MODIFY_ADDR_HANDLE", 0x1d}, {"DESTROY_ADDR_HANDLE", 0x1e}, {"UPDATE_PE_SDS", 0x1f},
            {"QUERY_FPM_VAL", 0x20}, {"COMMIT_FPM_VAL", 0x21}, {"FLUSH_WQES", 0x22}, {"MANAGE_APBVT", 0x23},
            {"NOP", 0x24}, {"MANAGE_QUAD_HASH_TABLE_ENTRY", 0x25}, {"CREATE_MCAST_GRP", 0x26},
            {"MODIFY_MCAST_GRP", 0x27}, {"DESTROY_MCAST_GRP", 0x28}, {"SUSPEND_QP", 0x29}, {"RESUME_QP", 0x2a},
            {"SHMC_PAGES_ALLOCATED", 0x2b}, {"WORK_SCHED_NODE", 0x2c}, {"MANAGE_STATS", 0x2d},
            {"GATHER_STATS", 0x2e}, {"UP_MAP", 0x2f},
        };
        assertEquals(defs.length, CqpOpcode.values().length);
        for (Object[] d : defs) {
            CqpOpcode op = CqpOpcode.of((Integer) d[1]);
            assertNotNull(op, d[0].toString());
            assertEquals(d[0], op.name());
        }
        assertSame(CqpOpcode.FLUSH_WQES, CqpOpcode.GEN_AE);
        assertNull(CqpOpcode.of(0x17));
        assertNull(CqpOpcode.of(0x1a));
        assertNull(CqpOpcode.of(0x30));
        assertNull(CqpOpcode.of(-1));
        assertNull(CqpOpcode.of(64));
    }

    private static CqpHostContext.Fields probeFields() {
        CqpHostContext.Fields f = new CqpHostContext.Fields();
        f.sqEntries = 2048; // hw.c irdma_create_cqp: IRDMA_CQP_SW_SQSIZE_2048
        f.protocolUsed = 1; // IRDMA_IWARP_PROTOCOL_ONLY
        f.sqBase = 0x0000_0001_0000_0200L;
        f.hmcProfile = 1; // IRDMA_HMC_PROFILE_DEFAULT
        f.completionContext = 0xffff_8881_0000_1000L;
        f.hwMajorVersion = CqpHostContext.HW_MAJVER_GEN_2;
        return f;
    }

    /** irdma_sc_cqp_create, gen2: SQSIZE 11:8 = encoded 2048 (10), PROTOCOL_USED 4:3, sq_pa at 8, HMC_PROFILE 2:0 at
     * 16, the cqp pointer at 24, HW_MAJVER 31:16 at 32, DCQCN words at 48 / 56. */
    @Test
    void hostContextKnownBytes() {
        BytesStore<?, ?> s = Wqes.heap(128);
        CqpHostContext.Fields f = probeFields();
        f.ceqsPerVf = 2;
        f.minRate = 3;
        f.dcqcnT = 0x1234;
        f.raiFactor = 0x10;
        f.haiFactor = 0x20;
        f.dcqcnB = 0x1ffffff;
        f.dcqcnF = 5;
        f.ccConfigValid = true;
        f.rreduceMperiod = 0x5000;
        CqpHostContext.write(s, 8, f);
        assertQwords(new long[] {10L << 8 | 1L << 3 | 2L << 32, 0x0000_0001_0000_0200L, 1L, 0xffff_8881_0000_1000L,
            1L << 16 | 3L << 48, 0, 0x1234L | 0x10L << 48 | 0x20L << 32,
            0x1ffffffL | 5L << 25 | 1L << 31 | 0x5000L << 32}, s, 8);
        CqpHostContext c = new CqpHostContext().wrap(s, 8);
        assertEquals(CqpHostContextCheck.ACCEPTED, c.validate());
        assertEquals(2048, c.sqEntries());
        assertEquals(0xffff_8881_0000_1000L, c.completionContext());
        Wqes.assertSameFields(f, new CqpHostContext.Fields().readFrom(c));
    }

    /** irdma_get_encoded_wqe_size(IRDMA_QUEUE_TYPE_CQP): 4 -> 1 ... 2048 -> 10. */
    @Test
    void sqSizeEncoding() {
        assertEquals(1, CqpHostContext.encodeSqSize(4));
        assertEquals(2, CqpHostContext.encodeSqSize(8));
        assertEquals(10, CqpHostContext.encodeSqSize(2048));
        assertThrows(IllegalArgumentException.class, () -> CqpHostContext.encodeSqSize(6));
        assertThrows(IllegalArgumentException.class, () -> CqpHostContext.encodeSqSize(4096));
    }

    @Test
    void hostContextChecks() {
        BytesStore<?, ?> s = Wqes.heap(64);
        CqpHostContext c = new CqpHostContext();
        CqpHostContext.write(s, 0, probeFields());
        s.writeLong(0, s.readLong(0) | 1L); // EN_FINE_GRAINED_TIMERS: gen3 only
        assertEquals(CqpHostContextCheck.RESERVED_BITS_SET, c.wrap(s, 0).validate());
        assertEquals(0, c.failedAt());
        CqpHostContext.write(s, 0, probeFields());
        s.writeLong(0, s.readLong(0) & ~(0xfL << 8) | 11L << 8);
        assertEquals(CqpHostContextCheck.BAD_SQ_SIZE, c.wrap(s, 0).validate());
        CqpHostContext.Fields f = probeFields();
        f.sqBase = 0x1100;
        CqpHostContext.write(s, 0, f);
        assertEquals(CqpHostContextCheck.MISALIGNED_SQ, c.wrap(s, 0).validate());
        f = probeFields();
        f.hwMajorVersion = 2;
        CqpHostContext.write(s, 0, f);
        assertEquals(CqpHostContextCheck.BAD_HW_VERSION, c.wrap(s, 0).validate());
        f = probeFields();
        f.hmcProfile = 0;
        CqpHostContext.write(s, 0, f);
        assertEquals(CqpHostContextCheck.BAD_HMC_PROFILE, c.wrap(s, 0).validate());
        f = probeFields();
        f.protocolUsed = 3;
        CqpHostContext.write(s, 0, f);
        assertEquals(CqpHostContextCheck.BAD_PROTOCOL, c.wrap(s, 0).validate());
        assertEquals(CqpHostContextCheck.TRUNCATED, c.wrap(s, 8).validate());
    }

    /** irdma_sc_ccq_get_cqe_info: context at 8, OPRETVAL 31:0 at 16, MINERR 15:0 / MAJERR 31:16 / WQEIDX 46:32 /
     * ERROR 55 / VALID 63 at 24. */
    @Test
    void completionKnownBytes() {
        BytesStore<?, ?> s = Wqes.heap(64);
        CqpCompletion.write(s, 32, 0xffff_8881_0000_1000L, 0x55, 0x7ff, true, 0xffff, 0x8002, true);
        assertQwords(new long[] {0, 0xffff_8881_0000_1000L, 0x55, 0x8002L | 0xffffL << 16 | 0x7ffL << 32 | 1L << 55
                | 1L << 63}, s, 32);
        CqpCompletion c = new CqpCompletion().wrap(s, 32);
        assertEquals(CqpCompletionCheck.ACCEPTED, c.validate());
        assertTrue(c.error());
        assertEquals(0xffff, c.driverMajorCode());
        assertEquals(0x8002, c.minorCode());
        assertEquals(0x7ff, c.wqeIndex());
        CqpCompletion.write(s, 32, 1, 0, 3, false, 0xffff, 0, false);
        assertEquals(0, c.majorCode(), "no major code without the error bit");
        assertFalse(c.valid());
        s.writeLong(56, s.readLong(56) | 0x1234L << 16);
        assertEquals(CqpCompletionCheck.MAJOR_WITHOUT_ERROR, c.validate());
        assertEquals(CqpErrorCode.MAJ_NO_ERROR, c.driverMajorCode(), "the driver ignores it");
        assertEquals(CqpCompletionCheck.TRUNCATED, c.wrap(s, 40).validate());
    }

    /** Polarity: the CQP SQ's first pass carries valid 1 (polarity flipped from 0 at index 0), the CCQ's too. */
    @Test
    void ringPolarity() {
        assertTrue(CqpWqe.expectedValid(0, 4));
        assertTrue(CqpWqe.expectedValid(3, 4));
        assertFalse(CqpWqe.expectedValid(4, 4));
        assertTrue(CqpWqe.expectedValid(8, 4));
        assertFalse(CqpWqe.expectedValid(-1, 4));
        assertFalse(CqpWqe.expectedValid(0, 0));
        assertTrue(CqpCompletion.expectedValid(2047, 2048));
        assertFalse(CqpCompletion.expectedValid(2048, 2048));
    }

    @Test
    void errorPairs() {
        assertEquals(0xffff, CqpFault.INVALID_STATE.major());
        assertEquals(0x8002, CqpFault.INVALID_STATE.minor());
        assertTrue(CqpFault.LLP_CLOSED.nonCritical());
        assertFalse(CqpFault.FATAL_RESET.nonCritical());
        assertEquals(0x8029, CqpFault.FATAL_RESET.minor());
        assertTrue(CqpFault.FATAL_RESET.is(0xffff, 0x8029));
        assertFalse(CqpFault.FATAL_RESET.is(0xffff, 0x8002));
    }

    /** One table: no two faults share a major/minor pair, and only NONE has major 0. */
    @Test
    void everyFaultIsItsOwnPair() {
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (CqpFault f : CqpFault.values()) {
            assertTrue(seen.add(f.errCodes()), () -> f + " repeats the pair of another fault");
            assertEquals(f == CqpFault.NONE, f.major() == CqpErrorCode.MAJ_NO_ERROR, f::toString);
            assertEquals(f.isError(), f != CqpFault.NONE);
        }
    }

    @Property(tries = 300)
    void completionRoundTrip(@ForAll long ctx, @ForAll int ret, @ForAll @IntRange(max = 0x7fff) int idx,
                             @ForAll boolean error, @ForAll @IntRange(max = 0xffff) int major,
                             @ForAll @IntRange(max = 0xffff) int minor, @ForAll boolean valid) {
        BytesStore<?, ?> s = Wqes.heap(32);
        CqpCompletion.write(s, 0, ctx, ret & 0xffff_ffffL, idx, error, major, minor, valid);
        CqpCompletion c = new CqpCompletion().wrap(s, 0);
        assertEquals(CqpCompletionCheck.ACCEPTED, c.validate());
        assertEquals(ctx, c.completionContext());
        assertEquals(ret & 0xffff_ffffL, c.opReturnValue());
        assertEquals(idx, c.wqeIndex());
        assertEquals(error, c.error());
        assertEquals(error ? major : 0, c.driverMajorCode());
        assertEquals(minor, c.minorCode());
        assertEquals(valid, c.valid());
    }

    @Property(tries = 300)
    void hostContextRoundTrip(@ForAll @IntRange(max = 9) int sqEntriesLog2,
                              @ForAll @IntRange(max = 0xff) int structVersion, @ForAll boolean disablePackedPdus,
                              @ForAll @IntRange(max = 0xff) int ceqsPerVf, @ForAll boolean rocev2RtoPolicy,
                              @ForAll @IntRange(max = 2) int protocolUsed, @ForAll long sqBase,
                              @ForAll @IntRange(max = 63) int enabledVfs,
                              @ForAll @IntRange(min = 1, max = 3) int hmcProfile, @ForAll long completionContext,
                              @ForAll @IntRange(max = 0xffff) int hwMinorVersion,
                              @ForAll @IntRange(max = 15) int minRate, @ForAll @IntRange(max = 15) int minDecFactor,
                              @ForAll @IntRange(max = 0xffff) int dcqcnT,
                              @ForAll @IntRange(max = 0xffff) int raiFactor,
                              @ForAll @IntRange(max = 0xffff) int haiFactor,
                              @ForAll @IntRange(max = (1 << 25) - 1) int dcqcnB, @ForAll @IntRange(max = 7) int dcqcnF,
                              @ForAll boolean ccConfigValid,
                              @ForAll @LongRange(max = 0xffff_ffffL) long rreduceMperiod) {
        CqpHostContext.Fields f = new CqpHostContext.Fields();
        f.sqEntries = 4 << sqEntriesLog2;
        f.structVersion = structVersion;
        f.disablePackedPdus = disablePackedPdus;
        f.ceqsPerVf = ceqsPerVf;
        f.rocev2RtoPolicy = rocev2RtoPolicy;
        f.protocolUsed = protocolUsed;
        f.sqBase = sqBase & ~0x1ffL | 0x200;
        f.enabledVfs = enabledVfs;
        f.hmcProfile = hmcProfile;
        f.completionContext = completionContext;
        f.hwMajorVersion = 1;
        f.hwMinorVersion = hwMinorVersion;
        f.minRate = minRate;
        f.minDecFactor = minDecFactor;
        f.dcqcnT = dcqcnT;
        f.raiFactor = raiFactor;
        f.haiFactor = haiFactor;
        f.dcqcnB = dcqcnB;
        f.dcqcnF = dcqcnF;
        f.ccConfigValid = ccConfigValid;
        f.rreduceMperiod = rreduceMperiod;
        BytesStore<?, ?> s = Wqes.heap(64);
        CqpHostContext.write(s, 0, f);
        CqpHostContext c = new CqpHostContext().wrap(s, 0);
        assertEquals(CqpHostContextCheck.ACCEPTED, c.validate());
        Wqes.assertSameFields(f, new CqpHostContext.Fields().readFrom(c));
    }

    @Property(tries = 500)
    void randomBytesNeverThrow(@ForAll @Size(max = 100) byte[] bytes, @ForAll @IntRange(min = -4, max = 120) int off,
                               @ForAll @IntRange(min = -4, max = 200) int len) {
        BytesStore<?, ?> s = BytesStore.wrap(bytes);
        CqpHostContext h = new CqpHostContext().wrap(s, off, len);
        assertNotNull(h.validate());
        new CqpHostContext.Fields().readFrom(h);
        CqpCompletion c = new CqpCompletion().wrap(s, off, len);
        assertNotNull(c.validate());
        c.completionContext();
        c.opReturnValue();
        c.deferredInfo();
        c.driverMajorCode();
        c.wqeIndex();
        c.outOfOrder();
    }
}
