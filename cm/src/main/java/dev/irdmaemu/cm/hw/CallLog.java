package dev.irdmaemu.cm.hw;

import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The in-memory device's record of every call the CM made of it (quad hash, accelerated ports, address handles,
 * offloads, QP events), stamped with simulated time, so tests can see them; {@link #quiet} stops it for long runs.
 */
final class CallLog {
    private final SimScheduler scheduler;
    private final List<String> lines = new ArrayList<>();
    private boolean recording = true;

    CallLog(SimScheduler scheduler) {
        this.scheduler = scheduler;
    }

    void record(String line) {
        if (recording) {
            lines.add(scheduler.now() / 1000 + "us " + line);
        }
    }

    /** False once quiet: nothing more is kept, the call log nor any other history of the device. */
    boolean recording() {
        return recording;
    }

    void quiet() {
        recording = false;
    }

    List<String> lines() {
        return Collections.unmodifiableList(lines);
    }
}
