package dev.irdmaemu.bridge.fleet;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What one scenario of a fleet came to: its verdict, how long its container ran, the failure summary (empty when it
 * passed), the run's folder on this side (copied out of its container) and the container's report (what
 * {@code irdma-emu boot} printed, the summary of its run).
 *
 * @param scenario the scenario's word
 * @param verdict  passed, failed (the scenario ran and did not pass) or error (it could not run or finish)
 * @param time     from the container's creation to its removal
 * @param failure  the failure summary, one or more lines; empty when passed
 * @param folder   the run's folder here: report.txt, boot.log and the run folder out of the container (run/)
 * @param report   the report the container printed; empty when it printed none
 */
public record ScenarioRun(String scenario, Verdict verdict, Duration time, String failure, Path folder, String report) {
    /** A scenario's verdict, as JUnit tells a failure (an assertion) from an error (could not run). */
    public enum Verdict { PASSED, FAILED, ERROR }

    public boolean passed() {
        return verdict == Verdict.PASSED;
    }

    /** The failure's first line ("" when passed). */
    public String headline() {
        return failure.lines().findFirst().orElse("");
    }
}
