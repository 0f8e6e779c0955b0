package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.kit.GuestKit;
import dev.irdmaemu.bridge.kit.GuestLaunch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * What {@link GuestExtension} hands a {@link GuestModel} to boot a test's guest with.
 *
 * @param test      the test's name ({@code Class.method}), for file names
 * @param spec      the test's {@link GuestTest}
 * @param kit       the guest kit (the host's copy; the container holds it at {@link QemuGuestContainer#KIT_IN_IMAGE})
 * @param container the guest's container, configured from {@code spec}, not started
 * @param folder    a private, short-named folder for sockets (a UNIX socket path is at most 107 bytes), shared with
 *                  the container and removed after the test
 * @param files     where the test's files go (its console log, a run folder)
 */
public record GuestBoot(String test, GuestTest spec, GuestKit kit, QemuGuestContainer container, Path folder,
                        Path files) {
    /** The siw build the test names, if it names one ({@link GuestTest#siw()} takes at most one). */
    public Optional<GuestLaunch.Siw> siw() {
        GuestLaunch.Siw[] s = spec.siw();
        if (s.length > 1) {
            throw new IllegalArgumentException(test + ": @GuestTest(siw = ...) takes at most one siw build");
        }
        return s.length == 0 ? Optional.empty() : Optional.of(s[0]);
    }

    public Duration resultTimeout() {
        return Duration.ofSeconds(spec.resultTimeoutSeconds());
    }
}
