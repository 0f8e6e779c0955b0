package dev.irdmaemu.bridge.e810;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.e810.RdmaCoreTestResults.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * unittest's verbose output as run_tests.py prints it on irdma, parsed and classified: plain and docstring test
 * lines, subprocess output between a test's id and its outcome, failure reports; a failure or skip no category
 * explains stays unclassified.
 */
class RdmaCoreTestResultsTest {
    private static final List<String> OUTPUT = List.of(
            "test_create_cq (tests.test_cq.CQAPITest.test_create_cq) ... ok",
            "test_create_cq_bad_flow (tests.test_cq.CQAPITest.test_create_cq_bad_flow)",
            "Test ibv_create_cq() with wrong comp_vector / number of cqes ... FAIL",
            "test_rdmacm_async_udp_traffic (tests.test_rdmacm.CMTestCase.test_rdmacm_async_udp_traffic) ... Player"
                    + " active got: Failed to Create QP. Errno: 95, Operation not supported",
            "ERROR",
            "test_rdmacm_sync_traffic (tests.test_rdmacm.CMTestCase.test_rdmacm_sync_traffic) ... ok",
            "test_tm_rndv (tests.test_tag_matching.TMTest.test_tm_rndv)",
            "Test rendezvous Tag Matching traffic, ... skipped 'Extended CQ is not supported'",
            "test_odd (tests.test_x.X.test_odd) ... skipped \"No supported port is up, can't run traffic\"",
            "test_new_thing (tests.test_x.X.test_new_thing) ... skipped 'Something nobody explained'",
            "test_surprise (tests.test_x.X.test_surprise) ... FAIL",
            "",
            "======================================================================",
            "FAIL: test_create_cq_bad_flow (tests.test_cq.CQAPITest.test_create_cq_bad_flow)",
            "----------------------------------------------------------------------",
            "Traceback (most recent call last):",
            "AssertionError: 5 != 22",
            "",
            "======================================================================",
            "FAIL: test_surprise (tests.test_x.X.test_surprise)",
            "AssertionError: 1 != 2",
            "----------------------------------------------------------------------",
            "Ran 8 tests in 1.234s");

    @Test
    void everyOutcomeIsParsedWhateverPrintsBetweenTheIdAndIt() {
        RdmaCoreTestResults r = RdmaCoreTestResults.parse(OUTPUT);
        assertEquals(8, r.ran());
        assertEquals(8, r.results().size(), r.results()::toString);
        assertEquals(Map.of(Outcome.OK, 2, Outcome.FAIL, 2, Outcome.ERROR, 1, Outcome.SKIPPED, 3), r.counts());
        assertEquals(Outcome.ERROR, r.outcomeOf("test_rdmacm_async_udp_traffic").orElseThrow());
        assertEquals(Outcome.OK, r.outcomeOf("test_rdmacm_sync_traffic").orElseThrow());
    }

    @Test
    void knownFailuresAndSkipsAreClassifiedTheRestIsNot() {
        RdmaCoreTestResults r = RdmaCoreTestResults.parse(OUTPUT);
        assertEquals(List.of("test_new_thing", "test_surprise"),
                r.unclassified().stream().map(RdmaCoreTestResults.Result::name).toList());
        assertEquals(Map.of("iwarp-gid", 1, "iwarp-no-ud", 1, "libirdma-cq-size", 1, "irdma-gen2-feature", 1),
                r.byCategory());
    }

    @Test
    void aKnownTestThatFailsForAnotherReasonIsNotExplainedByItsCategory() {
        RdmaCoreTestResults r = RdmaCoreTestResults.parse(List.of(
                "test_query_rc_qp (tests.test_qp.QPTest.test_query_rc_qp) ... FAIL",
                "FAIL: test_query_rc_qp (tests.test_qp.QPTest.test_query_rc_qp)",
                "AssertionError: something else entirely",
                "Ran 1 test in 0.1s"));
        assertEquals(1, r.unclassified().size());
        assertTrue(r.byCategory().isEmpty());
    }
}
