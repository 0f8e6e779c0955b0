package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.PkgBuffer;
import dev.irdmaemu.fw.aq.PkgInfoList;
import dev.irdmaemu.fw.aq.ProfileTableSection;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The firmware side of the DDP package: download_pkg (0x0C40), upload_section (0x0C41) and get_pkg_info_list
 * (0x0C43).
 *
 * <p>ice_ddp.c ice_download_pkg sends the package as 4 KB buffers (the signing segment's buffers, then the signed
 * buffers of the ice segment, or, without a signing segment, the ice segment's buffers up to the first metadata
 * buffer), one download_pkg each, with ICE_AQC_DOWNLOAD_PKG_LAST_BUF on the final one. The model checks each buffer
 * the way ice_ddp.c checks one ({@link PkgBuffer#validate()}), remembers the metadata section (ICE_SID_METADATA: the
 * package version and name) when one goes by, and on the last buffer makes that package the active one. Signatures
 * are not checked (ice never checks them; only real firmware does, and the guest's package is Intel's own). A
 * malformed buffer is answered EINVAL with its offending offset in error_offset (struct ice_aqc_download_pkg_resp,
 * written over the buffer as the firmware does) and ends the download; a download whose buffers carried no metadata
 * section is refused at its last buffer. ice maps both to ICE_DDP_PKG_ERR and enters Safe Mode, as it should for a
 * broken package; a good package never gets EBADMAN/EBADBUF.
 *
 * <p>get_pkg_info_list lists the package in NVM (is_in_nvm, active at boot; version {@link #NVM_VERSION}, whose
 * major/minor ice_chk_pkg_compat compares with the file's ice segment format 1.0) and, once a download completed,
 * the downloaded package as is_active with the metadata section's exact version and 28 name bytes, which
 * ice_get_ddp_pkg_state compares with the file's. Before any download the NVM package is the active one. The active
 * package survives a PF reset (it is global to the device); a download in progress does not.
 *
 * <p>The profile tables the package carries (the XLT1, XLT2, profile TCAM and field vector sections of each block)
 * are written into {@link FlowProfiles} as their buffers arrive ({@link FlowProfiles#load}: one after the other, as
 * ice_flex_pipe.c ice_fill_tbl reads them), the tables cleared at a download's first buffer; a
 * section that does not pass {@link ProfileTableSection#validate()} is skipped (logged once per download), not
 * refused: the rest of the package is still good for ice.
 */
public final class DdpPackageLoader {
    /** Where refused commands are reported: the function's, shared by its command handlers (AqRefusals). */
    private AqRefusals refusals = new AqRefusals();
    private static final Logger LOG = LoggerFactory.getLogger(DdpPackageLoader.class);

    /** struct ice_aqc_download_pkg flags (params 0): ICE_AQC_DOWNLOAD_PKG_LAST_BUF. */
    public static final int LAST_BUF = 0x01;
    private static final int PARAM_FLAGS = 0;
    /** The package the NVM holds: format-compatible with the 1.0 ice segment of every 1.3 package. */
    public static final int NVM_VERSION = 0x01030000;
    private static final byte[] NVM_NAME = name("ICE OS Default Package");
    /** error_info values the model writes (firmware-private; ice only logs them). */
    public static final int ERROR_INFO_BAD_BUFFER = 1;
    public static final int ERROR_INFO_NO_METADATA = 2;
    public static final int ERROR_INFO_METADATA_BUFFER = 3;

    private final PkgBuffer pkgBuffer = new PkgBuffer();
    private final PkgInfoList infoList = new PkgInfoList();
    private final ProfileTableSection tableSection = new ProfileTableSection();
    private final FlowProfiles profiles;
    private boolean warnedSection;
    private final byte[] pendingName = new byte[PkgBuffer.META_NAME_SIZE];
    private final byte[] activeName = new byte[PkgBuffer.META_NAME_SIZE];
    private boolean downloading;
    private int buffersReceived;
    private boolean pendingMeta;
    private int pendingVersion;
    private long pendingTrackId;
    private boolean downloaded;
    private int activeVersion;
    private long activeTrackId;

    public DdpPackageLoader() {
        this(new FlowProfiles());
    }

    /** A loader writing the package's profile tables into {@code profiles}. */
    public DdpPackageLoader(FlowProfiles profiles) {
        this.profiles = profiles;
    }

    public FlowProfiles profiles() {
        return profiles;
    }

    public void install(BiConsumer<Integer, AqCommandHandler> register) {
        register.accept(AqOpcode.DOWNLOAD_PKG, this::download);
        register.accept(AqOpcode.UPLOAD_SECTION, this::uploadSection);
        register.accept(AqOpcode.GET_PKG_INFO_LIST, this::getPackageInfoList);
    }

    /** PF reset: a download in progress is abandoned; the active package stays. */
    public void reset() {
        abandon();
    }

    /** Power-on: back to the NVM package. */
    public void powerOn() {
        abandon();
        profiles.clear();
        downloaded = false;
        activeVersion = 0;
        activeTrackId = 0;
        Arrays.fill(activeName, (byte) 0);
    }

    public boolean packageDownloaded() {
        return downloaded;
    }

    /** The downloaded package's version, major in bits 31..24 (0 before a download). */
    public int activeVersion() {
        return downloaded ? activeVersion : 0;
    }

    /** The downloaded package's name up to its first NUL ("" before a download). */
    public String activeName() {
        if (!downloaded) {
            return "";
        }
        int n = 0;
        while (n < activeName.length && activeName[n] != 0) {
            n++;
        }
        return new String(activeName, 0, n, StandardCharsets.ISO_8859_1);
    }

    public int buffersReceived() {
        return buffersReceived;
    }

    // ---- 0x0C40

    private int download(AqDescriptor desc, Bytes<?> buf) {
        boolean last = (desc.paramU8(PARAM_FLAGS) & LAST_BUF) != 0;
        long len = CommandBuffer.length(desc, buf);
        long at = CommandBuffer.start(buf);
        if (buf == null || len != PkgBuffer.SIZE) {
            abandon();
            return refusals.refuse("download_pkg", "buffer of " + len + " bytes, not " + PkgBuffer.SIZE, AqError.EINVAL);
        }
        pkgBuffer.wrap(buf, at, len);
        PkgBuffer.Status s = pkgBuffer.validate();
        if (!s.accepted()) {
            int offset = pkgBuffer.failedAt();
            abandon();
            errorReply(desc, buf, offset, ERROR_INFO_BAD_BUFFER);
            return refusals.refuse("download_pkg", "buffer " + buffersReceived + ": " + s.describe() + " at +" + offset,
                    AqError.EINVAL);
        }
        if (pkgBuffer.isMetadataBuffer()) {
            abandon();
            errorReply(desc, buf, 4, ERROR_INFO_METADATA_BUFFER);
            return refusals.refuse("download_pkg", "a metadata buffer is not downloaded", AqError.EINVAL);
        }
        if (!downloading) {
            downloading = true;
            buffersReceived = 0;
            pendingMeta = false;
            warnedSection = false;
            profiles.clear();
        }
        for (int i = 0; i < pkgBuffer.sectionCount(); i++) {
            long type = pkgBuffer.sectionType(i);
            if (ProfileTableSection.blockOf(type) >= 0) {
                tableSection.wrap(type, buf, at + pkgBuffer.sectionOffset(i), pkgBuffer.sectionSize(i));
                ProfileTableSection.Status ts = tableSection.validateLayout();
                if (ts.accepted()) {
                    profiles.load(tableSection);
                } else if (!warnedSection) {
                    warnedSection = true;
                    LOG.warn("DDP package buffer {}: section {} (id {}) skipped: {}", buffersReceived, i, type,
                            ts.describe());
                }
            }
            if (type == PkgBuffer.SID_METADATA) {
                pendingMeta = true;
                pendingVersion = pkgBuffer.metaVersion(i);
                pkgBuffer.metaName(i, pendingName);
                pendingTrackId = pkgBuffer.metaTrackId(i);
            }
        }
        buffersReceived++;
        if (last) {
            if (!pendingMeta) {
                int received = buffersReceived;
                abandon();
                errorReply(desc, buf, 0, ERROR_INFO_NO_METADATA);
                return refusals.refuse("download_pkg", "last of " + received + " buffers, and none carried a metadata section",
                        AqError.EINVAL);
            }
            downloaded = true;
            activeVersion = pendingVersion;
            activeTrackId = pendingTrackId;
            System.arraycopy(pendingName, 0, activeName, 0, activeName.length);
            downloading = false;
            LOG.info("DDP package {} {}.{}.{}.{} active after {} buffers", activeName(), activeVersion >>> 24,
                    activeVersion >>> 16 & 0xFF, activeVersion >>> 8 & 0xFF, activeVersion & 0xFF, buffersReceived);
        }
        return AqError.OK;
    }

    // ---- 0x0C41: section upload is not modelled; ice_pkg_supports_dvm then answers "no DVM" (soft)

    private int uploadSection(AqDescriptor desc, Bytes<?> buf) {
        return refusals.refuse("upload_section", "section upload is not modelled", AqError.ENOSYS);
    }

    // ---- 0x0C43

    private int getPackageInfoList(AqDescriptor desc, Bytes<?> buf) {
        int entries = downloaded ? 2 : 1;
        long len = CommandBuffer.length(desc, buf);
        int need = PkgInfoList.sizeFor(entries);
        if (buf == null || len < need) {
            return refusals.refuse("get_pkg_info_list", "reply buffer of " + len + " bytes, needs " + need, AqError.ENOMEM);
        }
        infoList.wrap(buf, CommandBuffer.start(buf), len).count(entries);
        infoList.entry(0, NVM_VERSION, NVM_NAME, 0, true, !downloaded, true, false);
        if (downloaded) {
            infoList.entry(1, activeVersion, activeName, activeTrackId, false, true, false, false);
        }
        desc.datalen(need);
        return AqError.OK;
    }

    // ---- plumbing

    private void abandon() {
        downloading = false;
        pendingMeta = false;
        buffersReceived = 0;
    }

    /** struct ice_aqc_download_pkg_resp over the first 8 bytes of the buffer (ice_aq_download_pkg reads it there). */
    private static void errorReply(AqDescriptor desc, Bytes<?> buf, int offset, int info) {
        long at = CommandBuffer.start(buf);
        buf.writeInt(at, offset);
        buf.writeInt(at + 4, info);
        desc.datalen(8);
    }

    private static byte[] name(String s) {
        byte[] b = new byte[PkgBuffer.META_NAME_SIZE];
        byte[] src = s.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(src, 0, b, 0, Math.min(src.length, b.length));
        return b;
    }


    /** Reports refused commands to {@code r} (the function's shared {@link AqRefusals}). */
    void reportRefusalsTo(AqRefusals r) {
        this.refusals = r;
    }
}
