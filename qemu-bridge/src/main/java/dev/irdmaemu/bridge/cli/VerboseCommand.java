package dev.irdmaemu.bridge.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What the irdma-emu command and its subcommands have in common: the {@code -v} options ({@link Verbosity}), the
 * command's picocli spec (the command line's out and err writers) and the progress line a long run prints, "NAME:
 * what happened", flushed at once. picocli reads a superclass's annotated fields as the command's own (picocli's
 * user manual, "Inheritance"), so each command declares only its own options.
 */
abstract class VerboseCommand implements Callable<Integer> {
    @Mixin
    Verbosity verbosity;

    @Spec
    CommandSpec spec;

    /** The command line's standard output (the result, the summary). */
    final PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** The command line's standard error (progress, warnings). */
    final PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /** Prints each progress line on {@code to} after the command's name, flushed at once so it shows while running. */
    final Consumer<String> progress(PrintWriter to) {
        String name = spec.name();
        return line -> {
            to.println(name + ": " + line);
            to.flush();
        };
    }
}
