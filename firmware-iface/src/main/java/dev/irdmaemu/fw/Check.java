package dev.irdmaemu.fw;

/**
 * One named validation rule of a codec. Every flyweight's {@code validate()} answers one of its own
 * {@code Check} constants: {@link #accepted()} for a well-formed input, otherwise the rule that failed.
 * The flyweight also reports where ({@code failedAt()}, a byte offset into the wrapped bytes), so a
 * caller can log "TCP: data offset 3 below 5 at byte 46" without any exception or allocation.
 */
public interface Check {
    /** True for the constant that means "every rule passed". */
    boolean accepted();

    /** A short human-readable description of the rule, for logs and the decoder. */
    String describe();
}
