package dev.irdmaemu.bridge.lan;

import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.model.port.LanSink;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The LAN side of one NIC with several netdevs on it: the untagged one and VLAN netdevs (Linux net/8021q's
 * vlan_core.c vlan_do_receive hands a tagged frame to the VLAN netdev of its id, the rest to the NIC's own). Each
 * frame goes to the {@link LanResponder} whose {@link LanTag} it matches; a frame of a VLAN no netdev has is counted
 * and dropped, as Linux drops it. Runs on the model's thread; nothing allocated per frame.
 */
public final class LanNetdevs implements LanSink {
    private final LanResponder[] netdevs;
    private final LanTag[] tags;
    private final EthernetFrame ethernet = new EthernetFrame();
    private long unclaimed;

    /** {@code netdevs} with their tags, in the same order; at most one per tag. */
    public LanNetdevs(List<LanResponder> netdevs, List<LanTag> tags) {
        if (netdevs.isEmpty() || netdevs.size() != tags.size() || tags.stream().distinct().count() != tags.size()) {
            throw new IllegalArgumentException("one responder per tag, each tag once");
        }
        this.netdevs = netdevs.toArray(LanResponder[]::new);
        this.tags = tags.toArray(LanTag[]::new);
    }

    @Override
    public void frame(BytesStore<?, ?> store, long offset, int length) {
        ethernet.wrap(store, offset, length);
        if (ethernet.validate().accepted()) {
            for (int i = 0; i < tags.length; i++) {
                if (tags[i].matches(ethernet)) {
                    netdevs[i].frame(store, offset, length);
                    return;
                }
            }
            unclaimed++;
            return;
        }
        // malformed: the untagged netdev's responder counts it (as it did before there were VLANs)
        netdevs[0].frame(store, offset, length);
    }

    /** Well-formed frames no netdev took (a VLAN none is configured for, or untagged with no untagged netdev). */
    public long unclaimed() {
        return unclaimed;
    }
}
