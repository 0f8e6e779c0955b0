package dev.irdmaemu.bridge.cli;

import java.util.LinkedHashMap;
import java.util.Map;

/** The exit codes of {@code irdma-emu}, from sysexits(3) so scripts can tell failures apart. */
public final class ExitCodes {
    /** Success. */
    public static final int OK = 0;
    /**
     * {@code boot}: the scenario did not pass (the guest or the node failed, a timeout, Ctrl-C); {@code trace
     * --before}: no event matched.
     */
    public static final int FAILED = 1;
    /** EX_USAGE: unknown option or subcommand, missing argument. */
    public static final int USAGE = 64;
    /** EX_DATAERR: the input is malformed (e.g. not a pcap file, truncated). */
    public static final int DATA_ERROR = 65;
    /** EX_NOINPUT: the input file does not exist. */
    public static final int NO_INPUT = 66;
    /** EX_SOFTWARE: an internal error (a bug: please report it with the output of -vv). */
    public static final int SOFTWARE = 70;
    /** EX_IOERR: the input exists but cannot be read (permissions, a directory, a read error). */
    public static final int IO_ERROR = 74;

    /** The list shown under "Exit codes:" in {@code --help}, in order. */
    static Map<String, String> helpList() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(Integer.toString(OK), "success");
        m.put(Integer.toString(FAILED), "boot: the scenario did not pass (or could not run); trace --before: no event matched");
        m.put(Integer.toString(USAGE), "usage error (unknown option, missing argument)");
        m.put(Integer.toString(DATA_ERROR), "malformed input (not a pcap file, truncated, bad record, a trace line that is not an event)");
        m.put(Integer.toString(NO_INPUT), "input file does not exist");
        m.put(Integer.toString(SOFTWARE), "internal error (a bug; rerun with -vv and report it)");
        m.put(Integer.toString(IO_ERROR), "input cannot be read (permissions, a directory, I/O error)");
        return m;
    }

    private ExitCodes() {
    }
}
