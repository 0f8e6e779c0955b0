package dev.irdmaemu.model.lan;

import dev.irdmaemu.fw.aq.RssCommand;
import dev.irdmaemu.fw.aq.VsiCommand;
import dev.irdmaemu.fw.lan.RxPacketType;
import dev.irdmaemu.model.ice.FlowProfiles;
import dev.irdmaemu.model.ice.VsiTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.OptionalInt;

/**
 * The RSS state of the firmware's {@link VsiTable} as the Rx engine reads it: the VSI whose queue map (its kept
 * add_vsi / update_vsi context) holds the queue, its key, the LUT its q_opt_rss selects and TC 0's queue region.
 * Only the Toeplitz hash is modelled (ice_lib.c ice_set_rss_vsi_ctx always asks for ICE_AQ_VSI_Q_OPT_RSS_HASH_TPLZ
 * unless the user picks the symmetric one through ethtool); a VSI asking for another hashes nothing (logged once).
 * With the firmware's {@link FlowProfiles}, each packet type the Rx engine tells apart hashes the input set the
 * RSS block's profile for the VSI selects (what ice_add_rss_cfg programmed through update_pkg); a packet type no
 * profile covers keeps ice's default input set. Runs only when the tables' generation moved, never per frame.
 */
public final class VsiRssSteering implements RxSteering {
    private static final Logger LOG = LoggerFactory.getLogger(VsiRssSteering.class);

    /** The packet types whose input set a profile may change. */
    private static final int[] HASHED_PTYPES = {RxPacketType.IPV4_FRAG, RxPacketType.IPV4, RxPacketType.IPV4_UDP,
        RxPacketType.IPV4_TCP, RxPacketType.IPV4_ICMP, RxPacketType.IPV6_FRAG, RxPacketType.IPV6,
        RxPacketType.IPV6_UDP, RxPacketType.IPV6_TCP, RxPacketType.IPV6_ICMP};

    private final VsiTable vsis;
    private final FlowProfiles profiles;
    private final byte[] key = new byte[RssCommand.EXTENDED_KEY_SIZE];
    private boolean warnedHash;

    /** Steering by the VSI table alone: ice's default input sets for every packet type. */
    public VsiRssSteering(VsiTable vsis) {
        this(vsis, null);
    }

    public VsiRssSteering(VsiTable vsis, FlowProfiles profiles) {
        this.vsis = vsis;
        this.profiles = profiles;
    }

    @Override
    public long generation() {
        // both only grow: their sum moves whenever either does
        return profiles == null ? vsis.generation() : vsis.generation() + profiles.generation();
    }

    @Override
    public boolean lookup(int queue, RssView out) {
        OptionalInt owner = owner(queue);
        if (owner.isEmpty()) {
            return false;
        }
        int vsi = owner.getAsInt();
        int options = vsis.rssOptions(vsi);
        int entries = vsis.rssLutEntries(vsi);
        if (entries == 0 || Integer.bitCount(entries) != 1 || !vsis.rssKey(vsi, key)) {
            return false;
        }
        if ((options >>> VsiCommand.RSS_HASH_S & 0x3) != VsiCommand.RSS_HASH_TPLZ) {
            if (!warnedHash) {
                warnedHash = true;
                LOG.warn("VSI {} asks for RSS hash function {} (q_opt_rss {}); only Toeplitz is modelled, its frames "
                        + "go to its first queue", vsi, options >>> VsiCommand.RSS_HASH_S & 0x3, options);
            }
            return false;
        }
        out.key(key, RssCommand.EXTENDED_KEY_SIZE).lutEntries(Math.min(entries, 2048));
        for (int i = 0; i < Math.min(entries, 2048); i++) {
            out.lutEntry(i, vsis.rssLutEntry(vsi, i));
        }
        fillQueueMap(vsi, out);
        out.defaultInputSets();
        if (profiles != null) {
            for (int ptype : HASHED_PTYPES) {
                out.inputSet(ptype, profiles.rssInputSet(vsi, ptype));
            }
            if (LOG.isDebugEnabled()) {
                StringBuilder b = new StringBuilder();
                for (int ptype : HASHED_PTYPES) {
                    OptionalInt p = profiles.rssProfile(vsi, ptype);
                    b.append(' ').append(ptype).append(":profile ")
                            .append(p.isPresent() ? Integer.toString(p.getAsInt()) : "none")
                            .append(" set ").append(out.inputSet(ptype));
                    if (p.isPresent()) {
                        b.append(" [").append(profiles.describe(dev.irdmaemu.fw.aq.ProfileTableSection.BLK_RSS,
                                p.getAsInt())).append(']');
                    }
                }
                LOG.debug("VSI {} RSS input sets by ptype (set bits: 1 src, 2 dst, 4 sport, 8 dport; -1 ice's default):"
                        + "{}", vsi, b);
            }
        }
        int tc0 = vsis.contextU16(vsi, VsiCommand.TC_MAPPING);
        out.tc0(tc0 & VsiCommand.TC_Q_OFFSET_M, tc0 >>> VsiCommand.TC_Q_NUM_S & VsiCommand.TC_Q_NUM_M);
        return out.queueCount() > 0;
    }

    /** The lowest-numbered VSI whose queue map holds {@code queue} (looked up after a change, not per frame). */
    private OptionalInt owner(int queue) {
        for (int vsi = 0; vsi < vsis.capacity(); vsi++) {
            if (!vsis.exists(vsi)) {
                continue;
            }
            int flags = vsis.contextU16(vsi, VsiCommand.MAPPING_FLAGS);
            if ((flags & VsiCommand.Q_MAP_NONCONTIG) == 0) {
                int first = vsis.contextU16(vsi, VsiCommand.Q_MAPPING);
                int count = vsis.contextU16(vsi, VsiCommand.Q_MAPPING + 2);
                if (queue >= first && queue < first + count) {
                    return OptionalInt.of(vsi);
                }
            } else {
                for (int i = 0; i < VsiCommand.Q_MAPPINGS; i++) {
                    if (vsis.contextU16(vsi, VsiCommand.Q_MAPPING + 2 * i) == queue) {
                        return OptionalInt.of(vsi);
                    }
                }
            }
        }
        return OptionalInt.empty();
    }

    private void fillQueueMap(int vsi, RssView out) {
        out.clearQueues();
        int flags = vsis.contextU16(vsi, VsiCommand.MAPPING_FLAGS);
        if ((flags & VsiCommand.Q_MAP_NONCONTIG) == 0) {
            out.contiguousQueues(vsis.contextU16(vsi, VsiCommand.Q_MAPPING),
                    vsis.contextU16(vsi, VsiCommand.Q_MAPPING + 2));
        } else {
            for (int i = 0; i < VsiCommand.Q_MAPPINGS; i++) {
                out.scatteredQueue(i, vsis.contextU16(vsi, VsiCommand.Q_MAPPING + 2 * i));
            }
        }
    }
}
