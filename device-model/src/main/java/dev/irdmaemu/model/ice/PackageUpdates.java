package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.PkgBuffer;
import dev.irdmaemu.fw.aq.ProfileTableSection;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * update_pkg (0x0C42): ice changing the flexible pipeline at run time, one package buffer per command (ice_ddp.c
 * ice_update_pkg_no_lock; ice_aq_update_pkg sends the buffer's {@code data_end} bytes with the RD flag, and the LAST
 * flag on the final buffer of a batch). ice sends two kinds of sections:
 * <ul>
 *   <li>profile tables (ice_flex_pipe.c ice_upd_prof_hw: the field vector, profile TCAM, XLT1 and XLT2 sections of
 *       one block, for every RSS configuration ice_add_rss_cfg makes and every flow director profile ice_fdir adds),
 *       written into {@link FlowProfiles};</li>
 *   <li>the Rx/Tx parser boost TCAM (ICE_SID_RXPARSER_BOOST_TCAM / ICE_SID_TXPARSER_BOOST_TCAM: tunnel ports, the
 *       double-VLAN boost entries, ice_flex_pipe.c ice_create_tunnel / ice_set_dvm_boost_entries): accepted and
 *       counted; the model's parser does not decode tunnels.</li>
 * </ul>
 * Every buffer is checked whole before anything is applied ({@link PkgBuffer#validateUpdate()}, then every section
 * with {@link ProfileTableSection#validate()}); a bad buffer changes nothing and is answered EINVAL with struct
 * ice_aqc_download_pkg_resp over the buffer (error_offset: the byte that failed; error_info: {@link #ERROR_BUFFER},
 * {@link #ERROR_SECTION} or {@link #ERROR_UNKNOWN_SECTION}), which ice_aq_update_pkg reads back on -EIO. A metadata
 * buffer or a section id the firmware does not take at run time (metadata, labels, parser tables other than the
 * boost TCAM) is refused the same way.
 */
public final class PackageUpdates {
    /** Where refused commands are reported: the function's, shared by its command handlers (AqRefusals). */
    private AqRefusals refusals = new AqRefusals();

    /** ice_ddp.h ICE_SID_RXPARSER_BOOST_TCAM, ICE_SID_TXPARSER_BOOST_TCAM. */
    public static final int SID_RXPARSER_BOOST_TCAM = 56;
    public static final int SID_TXPARSER_BOOST_TCAM = 66;
    /** error_info values (firmware-private; ice only logs them). */
    public static final int ERROR_BUFFER = 1;
    public static final int ERROR_SECTION = 2;
    public static final int ERROR_UNKNOWN_SECTION = 3;

    private final FlowProfiles profiles;
    private final PkgBuffer buffer = new PkgBuffer();
    private final ProfileTableSection section = new ProfileTableSection();
    private long updates;
    private long refused;
    private long boostSections;

    public PackageUpdates(FlowProfiles profiles) {
        this.profiles = profiles;
    }

    public void install(BiConsumer<Integer, AqCommandHandler> register) {
        register.accept(AqOpcode.UPDATE_PKG, this::update);
    }

    /** update_pkg commands applied. */
    public long updates() {
        return updates;
    }

    public long refused() {
        return refused;
    }

    public long boostSections() {
        return boostSections;
    }

    private int update(AqDescriptor desc, Bytes<?> buf) {
        long len = CommandBuffer.length(desc, buf);
        if (buf == null || len == 0) {
            refused++;
            return refusals.refuse("update_pkg", "no buffer", AqError.EINVAL);
        }
        long at = CommandBuffer.start(buf);
        buffer.wrap(buf, at, len);
        PkgBuffer.Status s = buffer.validateUpdate();
        if (!s.accepted()) {
            return refuse(desc, buf, buffer.failedAt(), ERROR_BUFFER, s.describe());
        }
        if (buffer.isMetadataBuffer()) {
            return refuse(desc, buf, PkgBuffer.HEADER, ERROR_UNKNOWN_SECTION, "a metadata buffer");
        }
        int count = buffer.sectionCount();
        for (int i = 0; i < count; i++) {
            long sid = buffer.sectionType(i);
            int entry = PkgBuffer.HEADER + i * PkgBuffer.ENTRY_SIZE;
            if (sid == SID_RXPARSER_BOOST_TCAM || sid == SID_TXPARSER_BOOST_TCAM) {
                continue;
            }
            if (ProfileTableSection.blockOf(sid) < 0) {
                return refuse(desc, buf, entry, ERROR_UNKNOWN_SECTION, "section " + i + " has id " + sid
                        + ", not one the firmware updates at run time");
            }
            section.wrap(sid, buf, at + buffer.sectionOffset(i), buffer.sectionSize(i));
            ProfileTableSection.Status ss = section.validate();
            if (!ss.accepted()) {
                return refuse(desc, buf, buffer.sectionOffset(i) + Math.max(0, section.failedAt()), ERROR_SECTION,
                        "section " + i + " (id " + sid + "): " + ss.describe());
            }
        }
        for (int i = 0; i < count; i++) {
            long sid = buffer.sectionType(i);
            if (sid == SID_RXPARSER_BOOST_TCAM || sid == SID_TXPARSER_BOOST_TCAM) {
                boostSections++;
                continue;
            }
            profiles.apply(section.wrap(sid, buf, at + buffer.sectionOffset(i), buffer.sectionSize(i)));
        }
        updates++;
        return AqError.OK;
    }

    private int refuse(AqDescriptor desc, Bytes<?> buf, long offset, int info, String why) {
        refused++;
        refusals.refuse("update_pkg", why + " at +" + offset, AqError.EINVAL);
        if (CommandBuffer.length(desc, buf) >= 8) {
            long at = CommandBuffer.start(buf);
            buf.writeInt(at, (int) offset);
            buf.writeInt(at + 4, info);
            desc.datalen(8);
        }
        return AqError.EINVAL;
    }

    /** Reports refused commands to {@code r} (the function's shared {@link AqRefusals}). */
    void reportRefusalsTo(AqRefusals r) {
        this.refusals = r;
    }
}
