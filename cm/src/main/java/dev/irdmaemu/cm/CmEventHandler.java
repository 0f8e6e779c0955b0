package dev.irdmaemu.cm;

/**
 * The consumer of CM upcalls (the iw_cm {@code cm_id->event_handler}). Called on the scheduler's thread after
 * the CM finished the work that caused the event, so it may call back into the {@link ConnectionManager}
 * (accept, reject, disconnect) directly.
 */
@FunctionalInterface
public interface CmEventHandler {
    void onEvent(CmEvent event);
}
