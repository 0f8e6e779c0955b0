package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.DdpPackageFile;
import dev.irdmaemu.fw.aq.PkgBuffer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The guest's real DDP package (Debian trixie firmware-intel-misc, intel/ice/ddp/ice-1.3.*.pkg), fetched once into
 * the repository's .cache/ddp by scripts/fetch-ice-ddp (the lead's test command can call the same script), and the
 * driver's side of sending it: {@link #downloadPlan} splits it into 4 KB buffers exactly as ice_ddp.c
 * ice_download_pkg does.
 */
final class IcePackageFile {
    /** ice_type.h / ice_ddp.c: E810 is ICE_MAC_E810, segment id SEGMENT_TYPE_ICE_E810, RSA2K signing. */
    static final long E810_SEGMENT = DdpPackageFile.SEGMENT_TYPE_ICE_E810;
    static final long E810_SIGN_TYPE = DdpPackageFile.SIGN_TYPE_RSA2K;

    private IcePackageFile() {
    }

    /** One download_pkg: the file offset of the 4 KB buffer and whether it carries ICE_AQC_DOWNLOAD_PKG_LAST_BUF. */
    static final class Hunk {
        final long offset;
        final boolean last;

        Hunk(long offset, boolean last) {
            this.offset = offset;
            this.last = last;
        }
    }

    /** The package's bytes; fetches it first when the cache is empty; fails with the reason when it cannot. */
    static byte[] load() {
        Path pkg = fetch();
        try {
            return Files.readAllBytes(pkg);
        } catch (IOException e) {
            throw new AssertionError("cannot read the DDP package " + pkg + ": " + e, e);
        }
    }

    static Path fetch() {
        Path script = repositoryRoot().resolve("scripts/fetch-ice-ddp");
        ProcessBuilder pb = new ProcessBuilder(script.toString()).redirectErrorStream(true);
        try {
            Process p = pb.start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(5, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new AssertionError(script + " did not finish within 5 minutes");
            }
            String text = new String(out, StandardCharsets.UTF_8).trim();
            if (p.exitValue() != 0) {
                throw new AssertionError("cannot fetch Debian's ice DDP package (firmware-intel-misc, trixie "
                        + "non-free-firmware) with " + script + ", exit " + p.exitValue() + ":\n" + text);
            }
            String[] lines = text.split("\n");
            Path pkg = Paths.get(lines[lines.length - 1].trim());
            if (!Files.isRegularFile(pkg)) {
                throw new AssertionError(script + " printed " + pkg + ", which is not a file:\n" + text);
            }
            return pkg;
        } catch (IOException e) {
            throw new AssertionError("cannot run " + script + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while fetching the DDP package", e);
        }
    }

    private static Path repositoryRoot() {
        Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isExecutable(d.resolve("scripts/fetch-ice-ddp"))) {
                return d;
            }
        }
        throw new AssertionError("no scripts/fetch-ice-ddp above " + dir);
    }

    /**
     * The buffers ice_ddp.c sends, in order: with a signing segment (ice_download_pkg_with_sig_seg), for each signing
     * segment of the E810 segment id and RSA2K type, its own buffers, then buffers [signed_buf_start, +count) of the
     * ice segment it signs, each run stopping at the first metadata buffer (ice_dwnld_cfg_bufs_no_lock), and the
     * LAST flag on the hunk still pending when a segment says it is the last (ice_is_last_sign_seg). Without one
     * (ice_download_pkg_without_sig_seg), the ice segment's buffers up to the first metadata buffer, the last one
     * LAST. ice_ddp_send_hunk always sends the previous hunk, so the flag lands on the final buffer sent.
     */
    static List<Hunk> downloadPlan(DdpPackageFile pkg) {
        List<Hunk> out = new ArrayList<>();
        long[] pending = {-1};
        PkgBuffer b = new PkgBuffer();
        BytesStore<?, ?> s = pkg.store();
        if (pkg.findSegment(DdpPackageFile.SEGMENT_TYPE_SIGNING) >= 0) {
            for (int i = 0; i < pkg.segmentCount(); i++) {
                long seg = pkg.segmentOffset(i);
                if (pkg.segmentType(seg) != DdpPackageFile.SEGMENT_TYPE_SIGNING
                        || pkg.signSegmentId(seg) != E810_SEGMENT || pkg.signType(seg) != E810_SIGN_TYPE) {
                    continue;
                }
                long table = pkg.bufferTable(seg);
                sendRun(pkg, b, s, table, 0, pkg.bufferCount(table), out, pending);
                long count = pkg.signedBufferCount(seg);
                if (count == 0) {
                    continue;
                }
                long conf = pkg.segmentOffset((int) pkg.signedSegmentIndex(seg));
                long confTable = pkg.bufferTable(conf);
                sendRun(pkg, b, s, confTable, pkg.signedBufferStart(seg), count, out, pending);
                long flags = pkg.signFlags(seg);
                if ((flags & DdpPackageFile.SIGN_SEG_FLAGS_VALID) == 0
                        || (flags & DdpPackageFile.SIGN_SEG_FLAGS_LAST) != 0) {
                    flush(out, pending, true);
                }
            }
        } else {
            long seg = pkg.segmentOffset(pkg.findSegment(E810_SEGMENT));
            long table = pkg.bufferTable(seg);
            sendRun(pkg, b, s, table, 0, pkg.bufferCount(table), out, pending);
            flush(out, pending, true);
        }
        return out;
    }

    private static void sendRun(DdpPackageFile pkg, PkgBuffer b, BytesStore<?, ?> s, long table, long start,
            long count, List<Hunk> out, long[] pending) {
        for (long i = start; i < start + count; i++) {
            long off = pkg.buffer(table, i);
            b.wrap(s, pkg.absolute(off), PkgBuffer.SIZE);
            if (b.isMetadataBuffer()) {
                break;
            }
            flush(out, pending, false);
            pending[0] = off;
        }
    }

    private static void flush(List<Hunk> out, long[] pending, boolean last) {
        if (pending[0] >= 0) {
            out.add(new Hunk(pending[0], last));
            pending[0] = -1;
        }
    }

    /** The metadata section of the E810 ice segment, found as ice_pkg_enum_section finds it (ice_init_pkg_info). */
    static final class Metadata {
        int version;
        final byte[] name = new byte[PkgBuffer.META_NAME_SIZE];
        int segmentFormat;
    }

    static Metadata metadata(DdpPackageFile pkg) {
        long seg = pkg.segmentOffset(pkg.findSegment(E810_SEGMENT));
        long table = pkg.bufferTable(seg);
        PkgBuffer b = new PkgBuffer();
        for (long i = 0; i < pkg.bufferCount(table); i++) {
            b.wrap(pkg.store(), pkg.absolute(pkg.buffer(table, i)), PkgBuffer.SIZE);
            if (!b.validate().accepted()) {
                break;
            }
            for (int k = 0; k < b.sectionCount(); k++) {
                if (b.sectionType(k) == PkgBuffer.SID_METADATA) {
                    Metadata m = new Metadata();
                    m.version = b.metaVersion(k);
                    b.metaName(k, m.name);
                    m.segmentFormat = pkg.segmentFormatVersion(seg);
                    return m;
                }
            }
        }
        throw new AssertionError("no metadata section in the ice segment");
    }
}
