package dev.irdmaemu.bridge.kit;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One PCI function a vfio-user server serves on a UNIX socket, as QEMU 11.1.3's {@code vfio-user-pci} device
 * attaches it (QEMU is the client and connects when the device is realized, at start; it does not retry). Built
 * with {@link #socket(Path)}: {@code VfioUserDevice.socket(path).id("e810").messageTimeout(Duration.ofSeconds(10))
 * .build()}; {@link GuestLaunch#vfioUser(VfioUserDevice)} puts it behind its own PCIe root port.
 *
 * <p>The device's line is JSON: QEMU takes the socket only as a JSON object ({@code "socket":{"type":"unix",
 * "path":...}}; the dotted form {@code socket.type=} is refused), and only UNIX sockets (vfio-user-facts.md §3).
 * The device gets no option ROM ({@code rombar 0}: nothing to size, nothing for SeaBIOS to run).
 */
public final class VfioUserDevice {
    /** QEMU's own default for {@code x-msg-timeout}: how long it waits for each reply. */
    public static final Duration QEMU_DEFAULT_MESSAGE_TIMEOUT = Duration.ofMillis(5000);
    /** This launcher's default: a model under a loaded host answers slower than QEMU's 5 s assume. */
    public static final Duration DEFAULT_MESSAGE_TIMEOUT = Duration.ofSeconds(10);
    /** sockaddr_un's sun_path: 108 bytes with the terminating NUL (unix(7)). */
    static final int MAX_SOCKET_PATH_BYTES = 107;
    /** QEMU's id rule (qemu-options: "a letter, then letters, digits, '-', '.', '_'"), kept short. */
    private static final Pattern ID = Pattern.compile("[A-Za-z][A-Za-z0-9._-]{0,31}");

    private final Path socket;
    private final String id;
    private final Duration messageTimeout;
    private final boolean postedWrites;

    private VfioUserDevice(Builder b) {
        this.socket = b.socket;
        this.id = b.id;
        this.messageTimeout = b.messageTimeout;
        this.postedWrites = b.postedWrites;
    }

    /** A builder for the function the server listening on {@code socket} serves (made absolute). */
    public static Builder socket(Path socket) {
        return new Builder(socket);
    }

    /** The server's UNIX socket (absolute). */
    public Path socketPath() {
        return socket;
    }

    /** QEMU's id of the device, or "" when the launch numbers it ({@code e810-0}, {@code e810-1}, ...). */
    public String id() {
        return id;
    }

    /** QEMU's {@code x-msg-timeout}: how long it waits for each reply before the access fails (all-ones). */
    public Duration messageTimeout() {
        return messageTimeout;
    }

    /** Whether BAR writes are posted (no reply awaited); off is QEMU's {@code x-no-posted-writes}, for debugging. */
    public boolean postedWrites() {
        return postedWrites;
    }

    /**
     * The {@code -device} argument: this function at {@code addr} ("0.F") on the root port {@code bus}, with
     * {@code multifunction} set on function 0 of a port holding several.
     */
    String deviceJson(String effectiveId, String bus, String addr, boolean multifunction) {
        StringBuilder j = new StringBuilder(160).append('{');
        member(j, "driver").append(string("vfio-user-pci")).append(',');
        member(j, "id").append(string(effectiveId)).append(',');
        member(j, "bus").append(string(bus)).append(',');
        member(j, "addr").append(string(addr)).append(',');
        if (multifunction) {
            member(j, "multifunction").append("true").append(',');
        }
        member(j, "rombar").append('0').append(',');
        member(j, "socket").append('{');
        member(j, "type").append(string("unix")).append(',');
        member(j, "path").append(string(socket.toString())).append("},");
        member(j, "x-msg-timeout").append(messageTimeout.toMillis());
        if (!postedWrites) {
            j.append(',');
            member(j, "x-no-posted-writes").append("true");
        }
        return j.append('}').toString();
    }

    private static StringBuilder member(StringBuilder j, String name) {
        return j.append(string(name)).append(':');
    }

    /** A JSON string (RFC 8259 §7): quotation mark, reverse solidus and control characters escaped. */
    static String string(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    @Override
    public String toString() {
        return "vfio-user-pci[" + (id.isEmpty() ? "" : id + ", ") + socket + "]";
    }

    /** Settings of a {@link VfioUserDevice}; each refuses a bad value at once, leaving the builder as it was. */
    public static final class Builder {
        private final Path socket;
        private String id = "";
        private Duration messageTimeout = DEFAULT_MESSAGE_TIMEOUT;
        private boolean postedWrites = true;

        private Builder(Path socket) {
            Path abs = Objects.requireNonNull(socket, "socket").toAbsolutePath().normalize();
            int bytes = abs.toString().getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_SOCKET_PATH_BYTES) {
                throw new IllegalArgumentException("a UNIX socket path holds at most " + MAX_SOCKET_PATH_BYTES
                        + " bytes (sun_path), " + abs + " has " + bytes);
            }
            if (abs.toString().chars().anyMatch(c -> c < 0x20)) {
                throw new IllegalArgumentException("a control character in the socket path: " + abs);
            }
            this.socket = abs;
        }

        /** QEMU's id of the device: a letter, then letters, digits, '.', '-', '_' (at most 32). */
        public Builder id(String name) {
            this.id = CommandLineWord.require(ID, name, "a device id is [A-Za-z][A-Za-z0-9._-]{0,31}");
            return this;
        }

        /** How long QEMU waits for each reply ({@code x-msg-timeout}): 1 ms to 10 minutes. */
        public Builder messageTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.toMillis() < 1 || timeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("the message timeout must be 1 ms .. 10 min: " + timeout);
            }
            this.messageTimeout = timeout;
            return this;
        }

        /** BAR writes wait for the server's reply ({@code x-no-posted-writes}): slower, shows write errors. */
        public Builder noPostedWrites() {
            this.postedWrites = false;
            return this;
        }

        public VfioUserDevice build() {
            return new VfioUserDevice(this);
        }
    }
}
