package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.bridge.kit.GuestBootException;
import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import dev.irdmaemu.bridge.kit.GuestResult;
import dev.irdmaemu.bridge.kit.QemuProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Where a {@code run.BootRun}'s QEMU runs: {@link #LOCAL}, a {@link QemuProcess} on this machine (what
 * {@code irdma-emu boot} does), or anywhere else that shares this machine's files and UNIX sockets, such as a
 * container (the container tests run a boot's guest in one, with everything else of the boot unchanged).
 */
public interface QemuHost {
    /** QEMU as a child process of this JVM. */
    QemuHost LOCAL = new QemuHost() {
        @Override
        public GuestLaunch launch(GuestKit kit) {
            return kit.launch();
        }

        @Override
        public Running start(GuestLaunch launch, Path console, Path shared) throws GuestBootException {
            return running(QemuProcess.start(launch, console));
        }

        /** The console's input is QEMU's stdin, a pipe from this JVM. */
        @Override
        public Running startInteractive(GuestLaunch launch, Path console, Path shared, Consumer<String> lines)
                throws GuestBootException {
            return running(QemuProcess.startInteractive(launch, console, lines));
        }
    };

    private static Running running(QemuProcess qemu) {
        return new Running() {
            @Override
            public CompletionStage<GuestResult> result() {
                return qemu.result();
            }

            @Override
            public OptionalInt awaitExit(Duration timeout) throws InterruptedException {
                return qemu.awaitExit(timeout);
            }

            @Override
            public void typeLine(String line) throws IOException {
                qemu.typeLine(line);
            }

            @Override
            public String where() {
                return "pid " + qemu.pid();
            }

            @Override
            public void close() {
                qemu.close();
            }
        };
    }

    /**
     * A launch of {@code kit} for this host to configure, its paths as QEMU will see them (the kit's own folder
     * here; elsewhere wherever that host holds the kit).
     */
    GuestLaunch launch(GuestKit kit);

    /**
     * Starts QEMU for {@code launch} (one {@link #launch} made), its console streamed to {@code console}. QEMU must
     * see {@code shared} (the vhost-user socket, the initramfs with the scenarios) at the same path.
     */
    Running start(GuestLaunch launch, Path console, Path shared) throws GuestBootException, IOException;

    /**
     * Starts QEMU as {@link #start} does, with the guest's serial input open to the caller ({@link
     * Running#typeLine}) and every console line (terminal control removed) handed to {@code lines}, in order and
     * before the result line is looked for, on the thread that reads the console: a host and a guest scenario can
     * hold a dialogue (the guest prints a marker and reads the host's answer). {@code lines} may take its time (the
     * console waits, QEMU does not).
     */
    Running startInteractive(GuestLaunch launch, Path console, Path shared, Consumer<String> lines)
            throws GuestBootException, IOException;

    /** A started QEMU. */
    interface Running extends AutoCloseable {
        /**
         * The guest's result line as it comes in; completes exceptionally when QEMU ends first (a
         * {@link GuestBootException} for a local QEMU).
         */
        CompletionStage<GuestResult> result();

        /**
         * Waits up to {@code nanos} for {@link #result()}: a {@link TimeoutException} "no result line from GUEST
         * (where) LATE" when it is late; QEMU's own failure (a {@link GuestBootException} for a local QEMU) when it
         * ended first, any other failure an {@link IOException} naming {@code guest}.
         */
        default GuestResult awaitResult(String guest, long nanos, String late)
                throws GuestBootException, IOException, InterruptedException, TimeoutException {
            try {
                return result().toCompletableFuture().get(nanos, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new TimeoutException("no result line from " + guest + " (" + where() + ") " + late);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof GuestBootException g) {
                    throw g;
                }
                throw new IOException(guest + " (" + where() + "): " + e.getCause().getMessage(), e.getCause());
            }
        }

        /** Waits for QEMU to end by itself (the guest powers off after its result line): its exit code, if it did. */
        OptionalInt awaitExit(Duration timeout) throws InterruptedException;

        /**
         * Types {@code line} and a newline on the guest's serial input; only for a QEMU {@linkplain
         * #startInteractive started interactive} (an {@link IllegalStateException} otherwise). An ended QEMU is an
         * {@link IOException}.
         */
        void typeLine(String line) throws IOException;

        /** Where it runs, for the progress line ("pid 27073"). */
        String where();

        /** Ends QEMU and whatever it ran in. Idempotent. */
        @Override
        void close();
    }
}
