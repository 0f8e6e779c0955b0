package dev.irdmaemu.bridge.kit;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a QEMU binary offers a vfio-user server: its version ({@code --version}) and whether it has the
 * {@code vfio-user-pci} device ({@code -device help}). The device arrived in QEMU 10.1 (libvfio-user's
 * docs/qemu.md asks for 10.1.1 or later); the kit's 11.1.3 is the one the project tests.
 */
public record QemuCapabilities(String version, boolean vfioUserPci) {
    /** The device's line in {@code -device help}: {@code name "vfio-user-pci", bus PCI, ...}. */
    private static final Pattern VFIO_USER_PCI = Pattern.compile("^name \"vfio-user-pci\"", Pattern.MULTILINE);
    private static final Pattern VERSION = Pattern.compile("QEMU emulator version (\\S+)");

    /**
     * Runs {@code qemu} (its argument list: a binary, or the kit's loader form) twice, each at most
     * {@code timeout}. Fails when it does not run or does not answer like QEMU.
     */
    public static QemuCapabilities probe(List<String> qemu, Duration timeout) throws IOException, InterruptedException {
        String version = run(qemu, "--version", timeout);
        Matcher m = VERSION.matcher(version);
        if (!m.find()) {
            throw new IOException(String.join(" ", qemu) + " --version does not name a QEMU version: "
                    + firstLine(version));
        }
        String devices = run(qemu, "-device", "help", timeout);
        return new QemuCapabilities(m.group(1), VFIO_USER_PCI.matcher(devices).find());
    }

    /** Whether the output of {@code -device help} lists vfio-user-pci. */
    static boolean listsVfioUserPci(String deviceHelp) {
        return VFIO_USER_PCI.matcher(deviceHelp).find();
    }

    private static String run(List<String> qemu, String arg, Duration timeout) throws IOException, InterruptedException {
        return run(qemu, new String[] {arg}, timeout);
    }

    private static String run(List<String> qemu, String a, String b, Duration timeout)
            throws IOException, InterruptedException {
        return run(qemu, new String[] {a, b}, timeout);
    }

    private static String run(List<String> qemu, String[] args, Duration timeout) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(qemu);
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> {
            try (InputStream in = p.getInputStream()) {
                in.transferTo(out);
            } catch (IOException e) {
                // the process ended; what came is what we have
            }
        }, "qemu-probe");
        reader.setDaemon(true);
        reader.start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " did not answer within " + timeout.toSeconds() + " s");
        }
        reader.join(timeout.toMillis());
        String text;
        synchronized (out) {
            text = out.toString(StandardCharsets.UTF_8);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (exit " + p.exitValue() + "): " + firstLine(text));
        }
        return text;
    }

    private static String firstLine(String s) {
        String t = s.strip();
        int nl = t.indexOf('\n');
        return t.isEmpty() ? "(no output)" : nl < 0 ? t : t.substring(0, nl);
    }
}
