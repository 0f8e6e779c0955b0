package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.driver.ResetCause;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.bus.Mmio;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A CQP request whose completion never comes, as irdma 7.3 handles it (utils.c irdma_wait_event,
 * ctrl.c irdma_check_cqp_progress): after CQP_TIMEOUT_THRESHOLD (500) steps of CQP_COMPL_WAIT_TIME_MS (10 ms) of
 * simulated time without progress the request fails with a timeout, rf->reset is set, request_reset is called once,
 * and every later op is refused (irdma_handle_cqp_op's -EBUSY). The model stays correct: a test-side interposer on
 * BAR0 swallows one write of PFPE_CQPDB, so the device never sees the WQE.
 */
class CqpTimeoutIntegrationTest {
    private static final long MAC = 0x02_00_00_00_00_0cL;
    private static final long STEP = IrdmaDriver.CQP_COMPL_WAIT_NANOS;
    private static final long THRESHOLD_NANOS = IrdmaDriver.CQP_TIMEOUT_THRESHOLD * STEP;

    /** BAR0 between the driver and the device; {@link #withholdNextDoorbell()} drops the next PFPE_CQPDB write. */
    static final class DoorbellInterposer implements Mmio {
        private final Mmio device;
        private boolean withhold;
        int withheld;
        int doorbells;

        DoorbellInterposer(Mmio device) {
            this.device = device;
        }

        void withholdNextDoorbell() {
            withhold = true;
        }

        @Override
        public int read32(long offset) {
            return device.read32(offset);
        }

        @Override
        public void write32(long offset, int value) {
            if (offset == Gen2Register.CQPDB.offset()) {
                doorbells++;
                if (withhold) {
                    withhold = false;
                    withheld++;
                    return;
                }
            }
            device.write32(offset, value);
        }
    }

    private SimScheduler s;
    private HostRam ram;
    private E810RdmaFunction device;
    private IrdmaDriver driver;
    private DoorbellInterposer bar;
    private final RecordingTraceSink sink = new RecordingTraceSink();
    private final List<ResetCause> resetRequests = new ArrayList<>();

    @BeforeEach
    void up() {
        s = new SimScheduler(11);
        HostMemory memory = new HostMemory();
        ram = new HostRam(memory, 0x4000_0000L, 64L << 20);
        driver = new IrdmaDriver(ram, s);
        device = new E810RdmaFunction(s, memory, driver.interruptSink(), new Trace(s).enableAll(sink),
                new LatencyTable());
        bar = new DoorbellInterposer(device);
        driver.bind(bar);
        device.attach(new Link(s), MAC, FaultProfile.NONE);
        driver.onResetRequest(resetRequests::add);
        driver.bringUp();
        assertTrue(driver.isUp());
    }

    @AfterEach
    void down() {
        driver.tearDown();
        ram.close();
    }

    private IrdmaDriver.WqeWriter nop() {
        return (o, v) -> CqpWqeWriter.nop(driver.store(), o, v);
    }

    @Test
    void aWaitedOpWhoseCompletionNeverComesTimesOutAfterFiveSimulatedSecondsAndRequestsAReset() {
        long before = s.now();
        long completed = device.cqp().completedOps();
        bar.withholdNextDoorbell();
        CqpException e = assertThrows(CqpException.class, driver.cqp()::nop);
        assertEquals(CqpException.Kind.TIMEOUT, e.kind());
        assertEquals("NOP", e.op());
        assertEquals(1, bar.withheld);
        // 500 steps of 10 ms without progress, not one more (irdma_wait_event's count starts at the wait)
        assertEquals(THRESHOLD_NANOS, s.now() - before, "the wait lasted exactly the threshold");
        assertEquals(completed, device.cqp().completedOps(), "the device never saw the WQE");
        assertTrue(driver.resets().requested());
        assertEquals(1, driver.resets().requests());
        assertEquals(1, resetRequests.size(), "request_reset called once");
        assertEquals(ResetCause.Reason.CQP_TIMEOUT, resetRequests.get(0).reason());
        assertEquals("NOP", resetRequests.get(0).op());
        assertEquals(resetRequests.get(0), driver.resets().cause());
        assertEquals(1, driver.cqp().timeouts());

        // irdma_handle_cqp_op: with rf->reset set every op is refused before anything is posted
        int doorbells = bar.doorbells;
        long posted = driver.cqp().opsPosted();
        CqpException refused = assertThrows(CqpException.class, () -> driver.cqp().manageApbvt(4791, true));
        assertEquals(CqpException.Kind.RESET_REQUESTED, refused.kind());
        assertThrows(CqpException.class, () -> driver.cqp().post("NOP", nop(), (err, ma, mi, ret) -> { }));
        assertEquals(doorbells, bar.doorbells, "nothing rang the doorbell");
        assertEquals(posted, driver.cqp().opsPosted());
        assertEquals(1, resetRequests.size(), "still one request: rf->reset was already set");

        // the stats timer keeps running; its Gather Stats is refused and counted, nothing escapes the scheduler
        long failures = driver.statistics().failures();
        s.runFor(61_000_000_000L);
        assertEquals(failures + 1, driver.statistics().failures());
    }

    @Test
    void aPostedRequestWhoseCompletionNeverComesFailsItsCallbackWithTheTimeout() {
        List<CqpException> failed = new ArrayList<>();
        List<Boolean> completions = new ArrayList<>();
        IrdmaDriver.CqpCallback callback = new IrdmaDriver.CqpCallback() {
            @Override
            public void completed(boolean error, int major, int minor, long ret) {
                completions.add(error);
            }

            @Override
            public void failed(CqpException cause) {
                failed.add(cause);
            }
        };
        long before = s.now();
        bar.withholdNextDoorbell();
        driver.cqp().post("NOP", nop(), callback);
        assertEquals(1, driver.cqp().requestsPending());
        // no waiter: the driver's progress check over posted requests counts the same steps
        s.runUntil(before + THRESHOLD_NANOS - STEP);
        assertFalse(driver.resets().requested(), "499 steps are not yet the threshold");
        assertTrue(failed.isEmpty());
        s.runUntil(before + THRESHOLD_NANOS);
        assertTrue(driver.resets().requested(), "the 500th step is");
        s.runFor(1);
        assertEquals(1, failed.size(), "the callback was failed, from the interrupt handler");
        assertTrue(completions.isEmpty(), "and never completed");
        assertEquals(CqpException.Kind.TIMEOUT, failed.get(0).kind());
        assertEquals("NOP", failed.get(0).op());
        assertEquals(0, driver.cqp().requestsPending());
        assertEquals(1, resetRequests.size());
        assertEquals(ResetCause.Reason.CQP_TIMEOUT, resetRequests.get(0).reason());
        assertEquals(failed.get(0).op(), resetRequests.get(0).op(), "the reset request names the same op");
    }

    @Test
    void aPassiveAddressHandleCreateThatNeverCompletesIsReportedRefused() {
        List<String> answers = new ArrayList<>();
        bar.withholdNextDoorbell();
        int ah = driver.addressHandles().create(0x02_00_00_00_00_0dL, 0, 0, false, 0, 64, true, false,
                new int[] {0xc000_0202}, new int[] {0xc000_0201}, (index, valid) -> answers.add(index + ":" + valid));
        s.runFor(THRESHOLD_NANOS + STEP);
        assertEquals(List.of(ah + ":false"), answers, "irdma_ilq_ah_cb sees an error completion");
        assertFalse(driver.addressHandles().valid(ah));
        assertTrue(driver.resets().requested());
    }

    @Test
    void postedRequestsThatCompleteLeaveNoWatchdogArmedAndRequestNoReset() {
        int background = s.pendingBackgroundTimers();
        List<Boolean> completions = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            driver.cqp().post("NOP", nop(), (err, ma, mi, ret) -> completions.add(err));
        }
        assertEquals(background + 1, s.pendingBackgroundTimers(), "the progress check runs while they are out");
        s.runFor(THRESHOLD_NANOS * 2);
        assertEquals(List.of(false, false, false), completions);
        assertEquals(background, s.pendingBackgroundTimers(), "and stops with the last completion");
        assertFalse(driver.resets().requested());
        assertEquals(0, driver.cqp().timeouts());
        assertTrue(resetRequests.isEmpty());
    }

    @Test
    void aLaterDoorbellThatHandsTheDeviceTheWithheldWqeCountsAsProgress() {
        // the count only grows while nothing completes: a waited op 4 s later rings the doorbell with the new head,
        // the device runs both WQEs, the posted one's callback completes and no reset is requested
        List<Boolean> completions = new ArrayList<>();
        bar.withholdNextDoorbell();
        driver.cqp().post("NOP", nop(), (err, ma, mi, ret) -> completions.add(err));
        s.runFor(4_000_000_000L);
        assertTrue(completions.isEmpty());
        driver.cqp().nop();
        s.runFor(THRESHOLD_NANOS * 2);
        assertEquals(List.of(false), completions);
        assertFalse(driver.resets().requested());
        assertEquals(0, driver.cqp().requestsPending());
    }

    @Test
    void aTeardownAfterTheResetRequestIssuesNoOpButStillDestroysTheCqp() {
        bar.withholdNextDoorbell();
        assertThrows(CqpException.class, driver.cqp()::nop);
        sink.clear();
        driver.tearDown();
        assertEquals(0, sink.of(TraceKind.CQP_OP).size(), "hw.c: every destroy op is skipped when rf->reset is set");
        var destroy = sink.of(TraceKind.CQP_CREATE);
        assertEquals(1, destroy.size());
        assertEquals("destroy", destroy.get(0).get("action"));
        assertFalse(device.cqp().created());
        assertNotNull(resetRequests.get(0));
    }
}
