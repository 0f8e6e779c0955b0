package dev.irdmaemu.cm.mpa;

import java.util.Objects;

/**
 * What the receive rules made of one MPA request or reply (irdma cm.c irdma_parse_mpa and its caller
 * irdma_handle_rcv_mpa): the {@link MpaRejection rule} that refused it, or {@link MpaRejection#ACCEPTED}, and for an
 * accepted reply whether the peer set the R flag (an MPA reject: the connection is refused, not the frame).
 *
 * <p>Every verdict there can be is made once: {@link #accepted} and {@link #refused} hand out shared instances, so
 * judging a frame allocates nothing.
 */
public record MpaVerdict(MpaRejection rule, boolean peerRejected) {
    private static final MpaVerdict ACCEPTED = new MpaVerdict(MpaRejection.ACCEPTED, false);
    private static final MpaVerdict ACCEPTED_PEER_REJECTED = new MpaVerdict(MpaRejection.ACCEPTED, true);
    private static final MpaVerdict[] REFUSED = refusals();

    public MpaVerdict {
        Objects.requireNonNull(rule, "rule");
        if (peerRejected && !rule.accepted()) {
            throw new IllegalArgumentException("a refused frame carries no reject flag: " + rule);
        }
    }

    /** The frame passed every rule; {@code peerRejected}: its R flag was set. */
    public static MpaVerdict accepted(boolean peerRejected) {
        return peerRejected ? ACCEPTED_PEER_REJECTED : ACCEPTED;
    }

    /** The frame broke {@code rule} (not {@link MpaRejection#ACCEPTED}). */
    public static MpaVerdict refused(MpaRejection rule) {
        if (rule.accepted()) {
            throw new IllegalArgumentException("not a refusal: " + rule);
        }
        return REFUSED[rule.ordinal()];
    }

    /** True when the frame passed every rule (the peer may still have rejected the connection). */
    public boolean accepted() {
        return rule.accepted();
    }

    private static MpaVerdict[] refusals() {
        MpaRejection[] rules = MpaRejection.values();
        MpaVerdict[] v = new MpaVerdict[rules.length];
        for (MpaRejection r : rules) {
            v[r.ordinal()] = r.accepted() ? null : new MpaVerdict(r, false);
        }
        return v;
    }
}
