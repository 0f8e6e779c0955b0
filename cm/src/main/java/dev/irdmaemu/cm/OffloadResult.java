package dev.irdmaemu.cm;

import java.util.Objects;

/**
 * The device's answer to handing a connection to a QP (irdma_cm_init_tsa_conn, then irdma_modify_qp to RTS, as
 * cm.c irdma_accept and irdma_cm_event_connected do): the QP that owns the connection now, or why none does.
 */
public sealed interface OffloadResult {
    /** QP {@code qpn} took the connection over. */
    record Offloaded(int qpn) implements OffloadResult {
        public Offloaded {
            if (qpn < 0) {
                throw new IllegalArgumentException("QP number " + qpn);
            }
        }
    }

    /** No QP took the connection ({@code reason} says why: no such QP, it has a connection, the device refused). */
    record Refused(String reason) implements OffloadResult {
        public Refused {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
