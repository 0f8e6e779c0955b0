package dev.irdmaemu.bridge.trace;

import java.util.Locale;

/**
 * The families {@code irdma-emu trace --kind} selects, each a set of the model's event names
 * ({@code dev.irdmaemu.model.trace.TraceKind} wire names): a driver's view of the device rather than the model's.
 */
public enum EventKind {
    /** BAR0 accesses: reg_read, reg_write, reg_unknown, reg_read_only, doorbell, refused BAR accesses. */
    MMIO,
    /** Admin queue commands, events, ring faults and PF resets (aq). */
    AQ,
    /** The control QP: cqp_create, cqp_op, cqp_error, and a CQP completion the host withheld (fault_injected). */
    CQP,
    /** Asynchronous events (aeqe) and completions the device could not write (completion_lost). */
    AE,
    /** Completion event queue entries (ceqe). */
    CEQ,
    /** MSI-X messages sent (msix), vector causes (irq) and messages dropped (pci_bar msix_dropped). */
    MSIX,
    /** Frames on the wire (frame_rx, frame_tx). */
    FRAME,
    /** PCI configuration-space writes (pci_config) and function resets. */
    CFG,
    /** Everything else: HMC, QP state, CQEs, quad hash, classification, PUDA, iWARP data path, LAN, CM. */
    OTHER;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The kind of an event named {@code ev} ({@code r} for the events whose kind depends on a field). */
    public static EventKind of(String ev, TraceRecord r) {
        if (ev == null) {
            return OTHER;
        }
        return switch (ev) {
            case "reg_read", "reg_write", "reg_unknown", "reg_read_only", "doorbell" -> MMIO;
            case "pci_bar" -> "msix_dropped".equals(r == null ? null : r.get("action")) ? MSIX : MMIO;
            case "aq" -> AQ;
            case "cqp_create", "cqp_op", "cqp_error" -> CQP;
            case "fault_injected" -> "withheld_completion".equals(r == null ? null : r.get("fault")) ? CQP : OTHER;
            case "aeqe", "completion_lost" -> AE;
            case "ceqe" -> CEQ;
            case "msix", "irq" -> MSIX;
            case "frame_rx", "frame_tx" -> FRAME;
            case "pci_config", "function_reset" -> CFG;
            default -> OTHER;
        };
    }

    /** The kind called {@code label} (case-insensitive), or null. */
    public static EventKind byLabel(String label) {
        for (EventKind k : values()) {
            if (k.label().equalsIgnoreCase(label)) {
                return k;
            }
        }
        return null;
    }
}
