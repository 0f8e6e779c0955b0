package dev.irdmaemu.bridge.e810;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The ice and irdma kernel messages of warning level or above that the e810-probe scenario lists in its
 * {@code dmesg-warn} block ({@code dmesg -r}, levels 0..4), checked against the lines a real E810 with the same DDP
 * package prints as well (docs/e810.md keeps the same list): any other line is one the model caused.
 */
final class ProbeWarnings {
    /**
     * The lines of warning level or above a real E810 prints as well, each with why: none remain. Lines below
     * warning level are not checked here; those that remain are listed in docs/e810.md with why (Debian's
     * "firmware: failed to load intel/ice/ddp/ice-DSN.pkg (-2)", printed on real hosts too, is not a warning; the
     * QinQ line is info level and stays until double-VLAN mode is modelled). A line the model makes ice print and a
     * real card does not (the old "FW logging is not supported", "Error initializing DCB -95", "DCB init failed")
     * must not come back, and a new one fails the boot test until it is fixed or added here with its reason.
     */
    static final List<Pattern> ALLOWED = List.of();

    private static final Pattern LINE = Pattern.compile("^<([0-4])>(\\[[^]]*\\] ?)?(.*)$");

    private ProbeWarnings() {
    }

    /** The lines of the console's dmesg-warn block; fails when the block is missing. */
    static List<String> block(String console) {
        int a = console.indexOf("IRDMA-EMU-BEGIN dmesg-warn");
        int b = console.indexOf("IRDMA-EMU-END dmesg-warn", Math.max(a, 0));
        if (a < 0 || b < 0) {
            throw new AssertionError("no dmesg-warn block in the console");
        }
        List<String> lines = new ArrayList<>();
        for (String l : console.substring(a, b).split("\r?\n")) {
            if (LINE.matcher(l.strip()).matches()) {
                lines.add(l.strip());
            }
        }
        return lines;
    }

    /** The block's lines that no {@link #ALLOWED} pattern matches, with their level prefix. */
    static List<String> unexpected(String console) {
        List<String> bad = new ArrayList<>();
        for (String l : block(console)) {
            var m = LINE.matcher(l);
            if (m.matches() && ALLOWED.stream().noneMatch(p -> p.matcher(m.group(3).strip()).matches())) {
                bad.add(l);
            }
        }
        return bad;
    }
}
