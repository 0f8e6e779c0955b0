package dev.irdmaemu.model.iwarp;

/**
 * The tables of released iWARP engines, kept by the function for the next QP that comes up: Destroy QP (and ERROR
 * to IDLE) gives an engine's {@link QpEngineMemory} back here, Modify QP to RTS takes one of the sizes its context
 * asks for, or makes one when none is spare. A connection then costs its CQP ops and frames rather than some 60 kB
 * of tables and two CRC32c states allocated each time, the way the E810 works in state kept per function rather
 * than allocated per QP. At most {@link #CAPACITY} are kept; a function reset drops them.
 */
final class SpareEngineMemory {
    /** Spares kept at most: beyond this a released engine's tables are left to the collector. */
    static final int CAPACITY = 64;

    private final QpEngineMemory[] spares = new QpEngineMemory[CAPACITY];
    private int count;

    /** Tables for an engine of these sizes: a spare that fits, else new. */
    QpEngineMemory take(int sqQuanta, int ord, int ird) {
        for (int i = count - 1; i >= 0; i--) {
            QpEngineMemory m = spares[i];
            if (m.fits(sqQuanta, ord, ird)) {
                spares[i] = spares[count - 1];
                spares[--count] = null;
                return m;
            }
        }
        return QpEngineMemory.of(sqQuanta, ord, ird);
    }

    /** A released engine's tables, kept for the next engine while fewer than {@link #CAPACITY} are. */
    void give(QpEngineMemory m) {
        if (count < CAPACITY) {
            spares[count++] = m;
        }
    }

    /** Spares held. */
    int count() {
        return count;
    }

    /** Drops every spare (a function reset). */
    void clear() {
        for (int i = 0; i < count; i++) {
            spares[i] = null;
        }
        count = 0;
    }
}
