package dev.irdmaemu.fw;

/**
 * One named validation rule of a codec. Every flyweight's {@code validate()} answers one of its own
 * {@code Check} constants: {@link #accepted()} for a well-formed input, otherwise the rule that failed.
 * The flyweight also reports where ({@code failedAt()}, a byte offset into the wrapped bytes), so a
 * caller can log "TCP: data offset 3 below 5 at byte 46" without any exception or allocation.
 *
 * <p>Every {@code Check} is an enum whose first constant, {@code ACCEPTED}, means "every rule passed"; the
 * rules that can fail follow it. That convention is what {@link #accepted()} reads, so an enum states it once,
 * by the order of its constants.
 */
public interface Check {
    /** True for the constant that means "every rule passed": the enum's first, {@code ACCEPTED}. */
    default boolean accepted() {
        return ordinal() == 0;
    }

    /** A short human-readable description of the rule, for logs and the decoder. */
    String describe();

    /** The constant's position in its enum ({@link Enum#ordinal()}: every {@code Check} is an enum constant). */
    int ordinal();
}
