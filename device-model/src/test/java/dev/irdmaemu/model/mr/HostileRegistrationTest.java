package dev.irdmaemu.model.mr;

import static dev.irdmaemu.model.mr.MemoryRegions.LOCAL_WRITE;
import static dev.irdmaemu.model.mr.MemoryRegions.REMOTE_READ;
import static dev.irdmaemu.model.mr.MemoryRegions.REMOTE_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Named.named;

import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.StagFields;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.model.DriverNode;
import dev.irdmaemu.fw.cqp.CqpFault;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Registrations a hostile or broken driver could post: each is answered with a CQP error completion carrying the
 * model's error code, leaves no STag behind, and is counted under its reason.
 */
class HostileRegistrationTest {
    static final int PD = 9;
    static final int RW = LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE;

    private final StagOps d = new StagOps();

    @AfterEach
    void close() {
        d.close();
    }

    /** A case: builds the Register MR fields on a driver (after any set-up it needs). */
    record Case(BiFunction<StagOps, Integer, StagFields> fields, CqpFault fault, RegistrationFault reason) {
    }

    static Stream<Arguments> hostileRegistrations() {
        return Stream.of(
                Arguments.of(named("page list beyond the committed PBLE count", new Case((d, s) ->
                        StagOps.regFields(s, PD, 0x1000, 3 * 4096, RW, 1, d.pbleCount() - 2, 0),
                        CqpFault.INDEX_OUT_OF_RANGE, RegistrationFault.PBL_INDEX_OUT_OF_RANGE))),
                Arguments.of(named("first PBLE index beyond the count", new Case((d, s) ->
                        StagOps.regFields(s, PD, 0x1000, 4096, RW, 1, d.pbleCount(), 0),
                        CqpFault.INDEX_OUT_OF_RANGE, RegistrationFault.PBL_INDEX_OUT_OF_RANGE))),
                Arguments.of(named("two-level root beyond the count", new Case((d, s) ->
                        StagOps.regFields(s, PD, 0, 513L * 4096, RW, 3, d.pbleCount() - 1, 0),
                        CqpFault.INDEX_OUT_OF_RANGE, RegistrationFault.PBL_INDEX_OUT_OF_RANGE))),
                Arguments.of(named("PBLE page descriptor invalid", new Case((d, s) -> {
                    long first = d.level1(d.scatteredPages(2));
                    d.breakPbleBacking(first, 0);
                    return StagOps.regFields(s, PD, 0x1000, 2 * 4096, RW, 1, first, 0);
                }, CqpFault.HMC_NOT_READY, RegistrationFault.PBLE_NOT_RESOLVED))),
                Arguments.of(named("PBLE backing page not in host memory", new Case((d, s) -> {
                    long first = d.level1(d.scatteredPages(2));
                    d.breakPbleBacking(first, 0x7_0000_0000L);
                    return StagOps.regFields(s, PD, 0x1000, 2 * 4096, RW, 1, first, 0);
                }, CqpFault.HMC_NOT_READY, RegistrationFault.PBLE_NOT_RESOLVED))),
                Arguments.of(named("VA + length wraps past 2^64", new Case((d, s) ->
                        StagOps.regFields(s, PD, -4096L, 2 * 4096, RW, 1, d.level1(d.scatteredPages(2)), 0),
                        CqpFault.INVALID_FIELD, RegistrationFault.LENGTH_OVERFLOW))),
                Arguments.of(named("zero length with a PBL", new Case((d, s) ->
                        StagOps.regFields(s, PD, 0x1000, 0, RW, 1, d.level1(d.scatteredPages(1)), 0),
                        CqpFault.INVALID_FIELD, RegistrationFault.ZERO_LENGTH))),
                Arguments.of(named("remote write without local write", new Case((d, s) -> {
                    StagFields f = StagOps.regFields(s, PD, 0x1000, 4096, RW, 1, d.level1(d.scatteredPages(1)), 0);
                    f.accessRights = REMOTE_WRITE;
                    return f;
                }, CqpFault.INVALID_FIELD, RegistrationFault.BAD_RIGHTS))),
                Arguments.of(named("remote rights without REMACCENABLED", new Case((d, s) -> {
                    StagFields f = StagOps.regFields(s, PD, 0x1000, 4096, RW, 1, d.level1(d.scatteredPages(1)), 0);
                    f.remoteAccess = false;
                    return f;
                }, CqpFault.INVALID_FIELD, RegistrationFault.BAD_RIGHTS))),
                Arguments.of(named("zero-based first byte offset past the page", new Case((d, s) -> {
                    StagFields f = StagOps.regFields(s, PD, 0, 4096, RW | MemoryRegions.ZERO_BASED, 1,
                            d.level1(d.scatteredPages(2)), 0);
                    f.vaOrFbo = 4096;
                    return f;
                }, CqpFault.INVALID_FIELD, RegistrationFault.BAD_FIRST_BYTE_OFFSET))),
                Arguments.of(named("physical buffer outside host memory", new Case((d, s) ->
                        StagOps.regFields(s, PD, 0x1000, 4096, RW, 0, 0, 0x7_0000_0000L),
                        CqpFault.DMA_FAULT, RegistrationFault.BUFFER_NOT_MAPPED))));
    }

    @ParameterizedTest
    @MethodSource("hostileRegistrations")
    void refusedWithAnErrorCompletion(Case c) {
        int stag = d.stag(33, 0x1, 0x5);
        StagFields f = c.fields().apply(d, stag);
        long before = d.mrs.failures(c.reason());
        DriverNode.Completion r = d.register(f);
        assertTrue(r.error());
        assertEquals(c.fault().major(), r.major());
        assertEquals(c.fault().minor(), r.minor());
        assertEquals(before + 1, d.mrs.failures(c.reason()));
        assertFalse(d.mrs.inUse(33));
        assertEquals(0, d.mrs.liveCount());
        assertEquals(AeCode.AMP_UNALLOCATED_STAG.code(), d.mrs.check(stag, 0x1000, 1, REMOTE_READ, PD),
                "no STag was left behind");
    }

    @Test
    void codesTheWqeCheckRefuses() {
        int stag = d.stag(34, 0, 1);
        StagFields f = StagOps.regFields(stag, PD, 0x1000, 4096, RW, 1, d.level1(d.scatteredPages(1)), 0);
        f.pageSize = 3; // no enum irdma_page_size
        DriverNode.Completion r = d.register(f);
        assertEquals(CqpFault.INVALID_FIELD.minor(), r.minor());
        f.pageSize = 0;
        f.pblChunkSize = 2; // irdma_hwreg_mr writes 1 or 3
        r = d.register(f);
        assertEquals(CqpFault.INVALID_FIELD.minor(), r.minor());
        assertFalse(d.mrs.inUse(34));
    }

    @Test
    void aStagIndexBeyondTheCommittedMrCountIsOutOfRange() {
        d.recommitMrs(256);
        // beyond the committed MR count (256): the HMC MR object does not resolve
        DriverNode.Completion r = d.registerPhysical(d.stag(256, 0, 1), PD, d.alloc(4096), 4096, 0, RW);
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(), r.minor());
        assertFalse(d.mrs.registered(0));
    }

    @Test
    void stagIndexChecks() {
        long[] pages = d.scatteredPages(1);
        DriverNode.Completion r;
        int stag = d.stag(35, 0x7, 1);
        assertFalse(d.registerLevel1(stag, PD, 0, 4096, RW, pages).error());
        // the same index under another driver key is in use
        r = d.registerLevel1(d.stag(35, 0x8, 2), PD, 0, 4096, RW, pages);
        assertEquals(CqpFault.OBJECT_IN_USE.minor(), r.minor());
        assertEquals(CqpFault.OBJECT_IN_USE.minor(), d.allocStag(d.stag(35, 0x7, 1), PD, 4096).minor());
        assertEquals(2, d.mrs.failures(RegistrationFault.IN_USE));
    }

    @Test
    void deallocateChecks() {
        int stag = d.stag(36, 0x7, 1);
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), d.dealloc(stag, PD, true).minor());
        assertFalse(d.registerLevel1(stag, PD, 0, 4096, RW, d.scatteredPages(1)).error());
        assertEquals(CqpFault.NO_SUCH_OBJECT.minor(), d.dealloc(d.stag(36, 0x6, 1), PD, true).minor());
        assertEquals(CqpFault.INVALID_FIELD.minor(), d.dealloc(stag, PD + 1, true).minor());
        assertEquals(RegistrationFault.PD_MISMATCH, d.mrs.lastRegistrationFault());
        assertEquals(CqpFault.INVALID_FIELD.minor(), d.dealloc(stag, PD, false).minor());
        assertEquals(RegistrationFault.KIND_MISMATCH, d.mrs.lastRegistrationFault());
        assertTrue(d.mrs.registered(36));
        assertFalse(d.dealloc(stag, PD, true).error());
        int mw = d.stag(37, 0, 0);
        assertFalse(d.allocWindow(mw, PD, true).error());
        assertEquals(CqpFault.INVALID_FIELD.minor(), d.dealloc(mw, PD, true).minor());
        assertFalse(d.dealloc(mw, PD, false).error());
        assertEquals(0, d.mrs.liveCount());
    }

    @Test
    void allocStagChecks() {
        // ctrl.c irdma_sc_alloc_stag refuses a zero length (all_memory is never set for it)
        assertEquals(CqpFault.INVALID_FIELD.minor(), d.allocStag(d.stag(38, 0, 0), PD, 0).minor());
        assertEquals(RegistrationFault.ZERO_LENGTH, d.mrs.lastRegistrationFault());
        StagFields f = new StagFields();
        f.stagIndex = d.stag(38, 0, 0) >>> 8;
        f.pdId = PD;
        f.length = 8192;
        f.pblChunkSize = 1;
        f.firstPmPblIndex = (int) d.pbleCount();
        assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(),
                d.op((o, v) -> CqpWqeWriter.allocStag(d.store(), o, f, v)).minor());
        assertEquals(0, d.mrs.liveCount());
    }
}
