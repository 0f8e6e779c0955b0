package dev.irdmaemu.bridge.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** The project version, from {@code build.properties} which the build fills in from the pom. */
public final class BuildInfo implements IVersionProvider {
    static final String RESOURCE = "build.properties";

    /** The project version, e.g. "0.1.0-SNAPSHOT", or "unknown" when run from unfiltered sources. */
    public static String version() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // fall through to the manifest
        }
        String v = p.getProperty("version", "");
        if (v.isEmpty() || v.startsWith("${")) {
            v = BuildInfo.class.getPackage().getImplementationVersion();
        }
        return v == null || v.isEmpty() ? "unknown" : v;
    }

    /** "Java 17.0.15 (Debian, OpenJDK 64-Bit Server VM 17.0.15+6-Debian-1deb12u1)". */
    public static String java() {
        return "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.vendor") + ", "
                + System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version") + ")";
    }

    @Override
    public String[] getVersion() {
        return new String[] {"irdma-emu " + version(), java()};
    }
}
