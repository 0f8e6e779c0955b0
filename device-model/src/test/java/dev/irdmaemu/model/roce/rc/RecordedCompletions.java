package dev.irdmaemu.model.roce.rc;

import dev.irdmaemu.fw.queue.AeCode;
import java.util.ArrayList;
import java.util.List;

/** Completions and AEs of one engine as the tests look at them. */
final class RecordedCompletions implements RcCompletions, RcEvents {
    record Send(long wrId, SendOpcode opcode, RcStatus status, long bytes) {
    }

    record Receive(long wrId, RcStatus status, long bytes, boolean hasImmediate, int immediate, boolean rdmaWrite,
                   boolean hasInvalidated, int invalidatedKey) {
    }

    final List<Send> sends = new ArrayList<>();
    final List<Receive> receives = new ArrayList<>();
    final List<AeCode> events = new ArrayList<>();

    @Override
    public void sendCompleted(SendCompletion c) {
        sends.add(new Send(c.workRequestId(), c.opcode(), c.status(), c.byteLength()));
    }

    @Override
    public void receiveCompleted(ReceiveCompletion c) {
        receives.add(new Receive(c.workRequestId(), c.status(), c.byteLength(), c.hasImmediate(), c.immediate(),
                c.rdmaWrite(), c.hasInvalidated(), c.invalidatedKey()));
    }

    @Override
    public void queuePairError(AeCode event) {
        events.add(event);
    }
}
