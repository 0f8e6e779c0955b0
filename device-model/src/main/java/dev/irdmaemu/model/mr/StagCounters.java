package dev.irdmaemu.model.mr;

import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;

/**
 * What the STag table counts: refusals by reason ({@link AccessFault} for the data path, Fast Register and
 * invalidation, answered as AE codes; {@link RegistrationFault} for the CQP STag ops), each traced with the STag,
 * and the successful Register MR, Fast Register and invalidation operations. Several access faults share an AE
 * code; here they are counted apart.
 */
final class StagCounters {
    private final Trace trace;
    private final long[] accessFailures = new long[AccessFault.values().length];
    private final long[] registrationFailures = new long[RegistrationFault.values().length];
    private AccessFault lastAccessFault = AccessFault.NONE;
    private RegistrationFault lastRegistrationFault = RegistrationFault.NONE;
    long registrations;
    long fastRegistrations;
    long invalidations;

    StagCounters(Trace trace) {
        this.trace = trace;
    }

    /** Counts and traces a refused access, Fast Register or invalidation; answers the AE code. */
    int refuse(AccessFault f, int stag, long to, long len) {
        accessFailures[f.ordinal()]++;
        lastAccessFault = f;
        TraceEvent t = trace.start(TraceKind.MR);
        if (t != null) {
            t.text("action", "refused").text("reason", f.name()).hex("ae", f.code()).hex("stag", stag & 0xffff_ffffL)
                    .hex("to", to).num("len", len).emit();
        }
        return f.code();
    }

    /** Counts and traces a refused CQP STag op; answers {@code f}. */
    RegistrationFault refuse(RegistrationFault f, String op, int field, int pdId) {
        registrationFailures[f.ordinal()]++;
        lastRegistrationFault = f;
        TraceEvent t = trace.start(TraceKind.MR);
        if (t != null) {
            t.text("action", op).text("result", f.name()).hex("stag_index", field).num("pd", pdId).emit();
        }
        return f;
    }

    /** Refusals of data-path accesses, Fast Registers and invalidations for {@code f}. */
    long failures(AccessFault f) {
        return accessFailures[f.ordinal()];
    }

    /** Refused CQP STag ops for {@code f}. */
    long failures(RegistrationFault f) {
        return registrationFailures[f.ordinal()];
    }

    /** All refused accesses, Fast Registers and invalidations. */
    long accessFailures() {
        long n = 0;
        for (long c : accessFailures) {
            n += c;
        }
        return n;
    }

    AccessFault lastAccessFault() {
        return lastAccessFault;
    }

    RegistrationFault lastRegistrationFault() {
        return lastRegistrationFault;
    }

    /** Successful Register MR ops. */
    long registrations() {
        return registrations;
    }

    long fastRegistrations() {
        return fastRegistrations;
    }

    long invalidations() {
        return invalidations;
    }
}
