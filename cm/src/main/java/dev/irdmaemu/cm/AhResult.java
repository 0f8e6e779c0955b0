package dev.irdmaemu.cm;

import java.util.Objects;

/**
 * The device's answer to an address handle create (cm.c irdma_cm_create_ah, uda.c irdma_sc_access_ah with
 * CREATE_ADDR_HANDLE): the handle's index, or why there is none.
 */
public sealed interface AhResult {
    /** The address handle at {@code index} (valid on return when waited for; not yet when only posted). */
    record Created(int index) implements AhResult {
        public Created {
            if (index < 0) {
                throw new IllegalArgumentException("AH index " + index);
            }
        }
    }

    /** No address handle: the device refused it, or none could be posted ({@code reason} says which). */
    record Refused(String reason) implements AhResult {
        public Refused {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
