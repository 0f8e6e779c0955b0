package dev.irdmaemu.bridge.kit;

import java.util.regex.Pattern;

/**
 * A name the launch splices into QEMU's command line or the guest kernel's (a scenario's name for init, a device's
 * id for {@code -device}): it must match its pattern whole, so that no comma, space or equals sign can start an
 * option of its own (QEMU's qemu-options.hx splits a device's properties at commas).
 */
final class CommandLineWord {
    private CommandLineWord() {
    }

    /** {@code word} when {@code pattern} matches it whole; else an IllegalArgumentException saying {@code rule}. */
    static String require(Pattern pattern, String word, String rule) {
        if (word == null || !pattern.matcher(word).matches()) {
            throw new IllegalArgumentException(rule + ": " + word);
        }
        return word;
    }
}
