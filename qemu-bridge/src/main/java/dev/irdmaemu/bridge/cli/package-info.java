/**
 * The {@code irdma-emu} command line (picocli). Exit codes follow sysexits(3), see {@link
 * dev.irdmaemu.bridge.cli.ExitCodes}; errors are one line on stderr, never a stack trace (run with {@code -vv} to
 * log it).
 */
package dev.irdmaemu.bridge.cli;
