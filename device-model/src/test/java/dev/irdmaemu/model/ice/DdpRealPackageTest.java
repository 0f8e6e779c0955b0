package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.DdpPackageFile;
import dev.irdmaemu.fw.aq.PkgBuffer;
import dev.irdmaemu.fw.aq.PkgInfoList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Debian trixie's ice-1.3 DDP package, the one the guest loads, sent to the model buffer by buffer exactly as
 * ice_ddp.c sends it, then checked the way ice_ddp.c checks what the firmware reports: ice_chk_pkg_compat (the
 * is_in_nvm entry against the ice segment's format version) and ice_get_pkg_info + ice_get_ddp_pkg_state (the
 * is_active entry's version and name against the file's metadata section). Only ICE_DDP_PKG_SUCCESS keeps ice out
 * of Safe Mode on a first load.
 */
class DdpRealPackageTest {
    /** ice_ddp.h ICE_PKG_CNT: get_pkg_info_list is sent with room for 4 entries. */
    private static final int ICE_PKG_CNT = 4;
    private static byte[] file;
    private static DdpPackageFile pkg;
    private static IcePackageFile.Metadata meta;
    private static List<IcePackageFile.Hunk> plan;

    @BeforeAll
    static void load() {
        file = IcePackageFile.load();
        pkg = new DdpPackageFile().wrap(BytesStore.wrap(file), 0, file.length);
        assertEquals(DdpPackageFile.Status.ACCEPTED, pkg.validate(), "ice_verify_pkg");
        meta = IcePackageFile.metadata(pkg);
        plan = IcePackageFile.downloadPlan(pkg);
    }

    @Test
    void thePackageIsWhatIceSupports() {
        // ice_chk_pkg_version: ICE_PKG_SUPP_VER_MAJ/MNR 1.3
        assertEquals(1, meta.version >>> 24);
        assertEquals(3, meta.version >>> 16 & 0xFF);
        assertTrue(new String(meta.name).startsWith("ICE OS Default Package"), new String(meta.name));
        // signing segment for E810/RSA2K: its 3 buffers and the 125 signed ice segment buffers (1.3.41.0).
        assertTrue(pkg.findSegment(DdpPackageFile.SEGMENT_TYPE_SIGNING) >= 0);
        long signed = 0;
        long own = 0;
        for (int i = 0; i < pkg.segmentCount(); i++) {
            long seg = pkg.segmentOffset(i);
            if (pkg.segmentType(seg) == DdpPackageFile.SEGMENT_TYPE_SIGNING
                    && pkg.signSegmentId(seg) == IcePackageFile.E810_SEGMENT
                    && pkg.signType(seg) == IcePackageFile.E810_SIGN_TYPE) {
                own += pkg.bufferCount(pkg.bufferTable(seg));
                signed += pkg.signedBufferCount(seg);
            }
        }
        assertEquals(own + signed, plan.size());
        assertEquals(1, plan.stream().filter(h -> h.last).count(), "one LAST flag");
        assertTrue(plan.get(plan.size() - 1).last, "on the final buffer");
    }

    @Test
    void downloadThenPackageInfoMatchesAsIceComparesIt() {
        AqBench bench = new AqBench();
        // Before the download the NVM package is the active one: not the file's.
        assertFalse(activeMatchesFile(bench));
        download(bench);
        assertTrue(bench.fw.ddp().packageDownloaded());
        assertEquals(plan.size(), bench.fw.ddp().buffersReceived());
        assertCompatibleAndActive(bench);
        // The package is global: a PF reset keeps it; ice reloading it (after rmmod/modprobe) gets the same answer.
        bench.fw.resetPf();
        assertCompatibleAndActive(bench);
        download(bench);
        assertCompatibleAndActive(bench);
    }

    /**
     * The package's own profile tables reach the firmware's {@link FlowProfiles} (ice_fill_tbl reads the same
     * sections): the RSS block puts IPv4/TCP, IPv4/UDP and IPv6/TCP in packet type groups of their own, which is
     * what ice's RSS profiles (update_pkg) key their TCAM entries on.
     */
    @Test
    void theDownloadFillsTheProfileTablesFromThePackage() {
        AqBench bench = new AqBench();
        FlowProfiles profiles = bench.fw.ddp().profiles();
        download(bench);
        int rss = dev.irdmaemu.fw.aq.ProfileTableSection.BLK_RSS;
        assertTrue(profiles.sectionsApplied(rss) > 0, "RSS tables in the package");
        int tcp4 = profiles.ptypeGroup(rss, dev.irdmaemu.fw.lan.RxPacketType.IPV4_TCP);
        int udp4 = profiles.ptypeGroup(rss, dev.irdmaemu.fw.lan.RxPacketType.IPV4_UDP);
        int tcp6 = profiles.ptypeGroup(rss, dev.irdmaemu.fw.lan.RxPacketType.IPV6_TCP);
        assertTrue(tcp4 != 0 && udp4 != 0 && tcp6 != 0, tcp4 + " " + udp4 + " " + tcp6);
        assertTrue(tcp4 != udp4 && tcp4 != tcp6, tcp4 + " " + udp4 + " " + tcp6);
        // the package's own TCAM entries are not matched: before ice's update_pkg, ice's default input sets
        assertEquals(FlowProfiles.NO_PROFILE, profiles.rssInputSet(0, dev.irdmaemu.fw.lan.RxPacketType.IPV4_TCP));
        // ice's entry for its VSI's group (ice_flow.c: the last IP header, ICE_PROT_IPV4_IL) selects the addresses
        PackageUpdates updates = new PackageUpdates(profiles);
        java.util.Map<Integer, AqCommandHandler> aq = new java.util.HashMap<>();
        updates.install(aq::put);
        byte[] b = new UpdatePkgBuffer().fieldVector(rss, 1, new int[][] {{33, 18}, {33, 16}, {33, 14}, {33, 12}})
                .tcam(rss, 0, tcp4, 5, 1).xlt2(rss, 0, 5).build();
        dev.irdmaemu.fw.aq.AqDescriptor desc = new dev.irdmaemu.fw.aq.AqDescriptor()
                .wrap(BytesStore.wrap(new byte[dev.irdmaemu.fw.aq.AqDescriptor.SIZE]), 0);
        desc.opcode(AqOpcode.UPDATE_PKG).datalen(b.length);
        Bytes<?> buf = Bytes.wrapForWrite(b);
        buf.writeLimit(b.length);
        assertEquals(AqError.OK, aq.get(AqOpcode.UPDATE_PKG).handle(desc, buf));
        assertEquals(FlowProfiles.SRC_ADDR | FlowProfiles.DST_ADDR,
                profiles.rssInputSet(0, dev.irdmaemu.fw.lan.RxPacketType.IPV4_TCP));
        assertEquals(FlowProfiles.NO_PROFILE, profiles.rssInputSet(0, dev.irdmaemu.fw.lan.RxPacketType.IPV4_UDP));
    }

    @Test
    void aGarbageBufferMidwayFailsTheDownloadAndAFullRetrySucceeds() {
        AqBench bench = new AqBench();
        for (int i = 0; i < 5; i++) {
            assertEquals(AqError.OK, sendHunk(bench, plan.get(i).offset, false));
        }
        Bytes<?> garbage = AqBench.buffer(PkgBuffer.SIZE);
        Random rnd = new Random(42);
        for (int i = 0; i < PkgBuffer.SIZE; i++) {
            garbage.writeByte(i, (byte) rnd.nextInt());
        }
        assertEquals(AqError.EINVAL, bench.send(AqOpcode.DOWNLOAD_PKG, garbage));
        assertEquals(8, bench.desc.datalen(), "struct ice_aqc_download_pkg_resp in the buffer");
        assertFalse(bench.fw.ddp().packageDownloaded());
        download(bench);
        assertCompatibleAndActive(bench);
    }

    @Test
    void thePlanWithoutItsLastBufferLeavesNoPackage() {
        AqBench bench = new AqBench();
        for (int i = 0; i < plan.size() - 1; i++) {
            assertEquals(AqError.OK, sendHunk(bench, plan.get(i).offset, plan.get(i).last));
        }
        assertFalse(bench.fw.ddp().packageDownloaded());
        assertFalse(activeMatchesFile(bench));
    }

    // ---- the driver's side

    private static void download(AqBench bench) {
        for (int i = 0; i < plan.size(); i++) {
            IcePackageFile.Hunk h = plan.get(i);
            assertEquals(AqError.OK, sendHunk(bench, h.offset, h.last), "buffer " + i + " at file offset " + h.offset);
        }
    }

    private static int sendHunk(AqBench bench, long offset, boolean last) {
        Bytes<?> buf = AqBench.buffer(PkgBuffer.SIZE);
        for (int i = 0; i < PkgBuffer.SIZE; i++) {
            buf.writeByte(i, file[(int) offset + i]);
        }
        return bench.send(AqOpcode.DOWNLOAD_PKG, d -> d.paramU8(0, last ? DdpPackageLoader.LAST_BUF : 0), buf);
    }

    private static PkgInfoList infoList(AqBench bench) {
        Bytes<?> buf = AqBench.buffer(PkgInfoList.sizeFor(ICE_PKG_CNT));
        assertEquals(AqError.OK, bench.send(AqOpcode.GET_PKG_INFO_LIST, buf));
        return new PkgInfoList().wrap(buf, 0, buf.writeLimit());
    }

    /** ice_chk_pkg_compat, then ice_get_pkg_info + ice_get_ddp_pkg_state's first branch (ICE_DDP_PKG_SUCCESS). */
    private static void assertCompatibleAndActive(AqBench bench) {
        PkgInfoList list = infoList(bench);
        long count = list.count();
        assertTrue(count >= 1 && count <= ICE_PKG_CNT, "count " + count);
        boolean sawNvm = false;
        for (int i = 0; i < count; i++) {
            if (list.inNvm(i)) {
                int nvm = list.version(i);
                assertEquals(meta.segmentFormat >>> 24, nvm >>> 24, "NVM package major vs ice segment format");
                assertTrue((meta.segmentFormat >>> 16 & 0xFF) <= (nvm >>> 16 & 0xFF), "format minor <= NVM minor");
                sawNvm = true;
                break;
            }
        }
        assertTrue(sawNvm, "an is_in_nvm entry");
        assertTrue(activeMatchesFile(bench), "the is_active entry is the downloaded package");
    }

    private static boolean activeMatchesFile(AqBench bench) {
        PkgInfoList list = infoList(bench);
        byte[] activeName = new byte[32];
        int activeVersion = 0;
        boolean any = false;
        for (int i = 0; i < list.count(); i++) {
            if (list.active(i)) {
                byte[] n = new byte[PkgInfoList.NAME_SIZE];
                list.name(i, n);
                Arrays.fill(activeName, (byte) 0);
                System.arraycopy(n, 0, activeName, 0, n.length);
                activeVersion = list.version(i);
                any = true;
            }
        }
        // hw->pkg_name / active_pkg_name are 32 bytes (ICE_PKG_NAME_SIZE), each filled from 28 and compared whole.
        byte[] fileName = Arrays.copyOf(meta.name, 32);
        return any && activeVersion == meta.version && Arrays.equals(fileName, activeName);
    }

    @Test
    void activeNameIsTheMetadataNameByteForByte() {
        AqBench bench = new AqBench();
        download(bench);
        PkgInfoList list = infoList(bench);
        for (int i = 0; i < list.count(); i++) {
            if (list.active(i)) {
                byte[] n = new byte[PkgInfoList.NAME_SIZE];
                list.name(i, n);
                assertArrayEquals(meta.name, n);
                assertEquals(meta.version, list.version(i));
            }
        }
    }
}
