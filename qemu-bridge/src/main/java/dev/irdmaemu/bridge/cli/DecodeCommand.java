package dev.irdmaemu.bridge.cli;

import dev.irdmaemu.bridge.decode.FrameSummarizer;
import dev.irdmaemu.bridge.decode.SampleTrace;
import dev.irdmaemu.fw.pcap.PcapFormatException;
import dev.irdmaemu.fw.pcap.PcapReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code irdma-emu decode FILE.pcap}: one line per frame, like tshark's summary: frame number, time in seconds
 * since the first frame (6 decimals for a microsecond file, 9 for a nanosecond one), then the frame's summary.
 */
@Command(name = "decode", mixinStandardHelpOptions = true,
        description = {"Print one line per frame of a classic pcap file, like tshark's summary: number, seconds "
                + "since the first frame, source → destination, protocol, length, then TCP (relative Seq/Ack), "
                + "MPA Request/Reply, FPDU (CRC ok/BAD/off), DDP and RDMAP; RoCEv2 (UDP 4791): opcode, DestQP, PSN, "
                + "BTH flags, extension headers, payload length, ICRC ok/BAD.",
            "Without FILE, decodes the built-in sample trace (what `irdma-emu sample` writes).",
            "A frame cut by the capture's snaplen ends with [captured N of M]."})
final class DecodeCommand implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(DecodeCommand.class);

    @Mixin
    Verbosity verbosity;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE.pcap", arity = "0..1",
            description = "A classic pcap file (Ethernet, µs or ns timestamps); default: the built-in sample.")
    Path file;

    @Override
    public Integer call() throws CliFailure {
        PrintWriter out = spec.commandLine().getOut();
        FrameSummarizer summarizer = new FrameSummarizer();
        StringBuilder line = new StringBuilder(256);
        String name = file == null ? "(built-in sample)" : file.toString();
        try (PcapReader pcap = file == null
                ? new PcapReader(new ByteArrayInputStream(SampleTrace.pcapBytes()))
                : PcapReader.open(file)) {
            LOG.info("{}: {} timestamps, {} byte order, snaplen {}", name, pcap.resolution(), pcap.byteOrder(),
                    pcap.snaplen());
            int digits = pcap.resolution().fractionDigits();
            long first = 0;
            while (pcap.next()) {
                if (pcap.frameNumber() == 1) {
                    first = pcap.timeNanos();
                }
                line.setLength(0);
                appendFrameNumber(pcap.frameNumber(), line);
                line.append(' ');
                appendSeconds(pcap.timeNanos() - first, digits, line);
                line.append(' ');
                summarizer.summarize(pcap.frame(), 0, pcap.capturedLength(), line);
                if (pcap.capturedLength() < pcap.originalLength()) {
                    line.append(" [captured ").append(pcap.capturedLength()).append(" of ")
                            .append(pcap.originalLength()).append(']');
                }
                line.append('\n');
                out.append(line);
            }
            LOG.debug("{}: {} frames", name, pcap.frameNumber());
            return ExitCodes.OK;
        } catch (NoSuchFileException e) {
            throw new CliFailure(ExitCodes.NO_INPUT, "decode: " + name + ": no such file", e);
        } catch (AccessDeniedException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "decode: " + name + ": permission denied", e);
        } catch (PcapFormatException e) {
            throw new CliFailure(ExitCodes.DATA_ERROR, "decode: " + name + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new CliFailure(ExitCodes.IO_ERROR, "decode: " + name + ": cannot read: " + e.getMessage(), e);
        } finally {
            out.flush();
        }
    }

    /** Right-aligned in 5 columns, as tshark does for captures under 100,000 frames. */
    static void appendFrameNumber(long number, StringBuilder out) {
        for (long limit = 10_000; limit > 1 && number < limit; limit /= 10) {
            out.append(' ');
        }
        out.append(number);
    }

    /** {@code nanos} as seconds with {@code digits} decimals (6: truncated to the microsecond), e.g. 1.000001. */
    static void appendSeconds(long nanos, int digits, StringBuilder out) {
        if (nanos < 0) { // a capture whose clock went backwards
            out.append('-');
            nanos = -nanos;
        }
        out.append(nanos / 1_000_000_000L).append('.');
        long fraction = nanos % 1_000_000_000L;
        for (int i = digits; i < 9; i++) {
            fraction /= 10;
        }
        for (long d = pow10(digits - 1); d > 0; d /= 10) {
            out.append((char) ('0' + fraction / d % 10));
        }
    }

    private static long pow10(int n) {
        long p = 1;
        for (int i = 0; i < n; i++) {
            p *= 10;
        }
        return p;
    }
}
