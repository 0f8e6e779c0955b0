package dev.irdmaemu.bridge.lan;

import dev.irdmaemu.fw.frame.EthernetFrame;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Which of the host's netdevs on one NIC a {@link LanResponder} plays: the untagged one, or a VLAN netdev on it
 * (IEEE 802.1Q; Linux net/8021q, {@code ip link add link DEV type vlan id N}), which takes the frames tagged with
 * its VLAN id and tags what it sends with that id and the priority its egress map gives (vlan_dev.c
 * vlan_dev_hard_header).
 */
public sealed interface LanTag {
    /**
     * The untagged netdev: takes untagged frames and priority-tagged ones (VLAN id 0, IEEE 802.1Q §9.6: a priority
     * only, which Linux's __netif_receive_skb_core clears and delivers to the NIC's own netdev); a frame of another
     * VLAN is for that VLAN's netdev, or for nobody.
     */
    LanTag UNTAGGED = new Untagged();

    /** True when the frame is this netdev's. */
    boolean matches(EthernetFrame frame);

    /** Writes the Ethernet header (tagged or not) at offset 0; answers its length. */
    int write(BytesStore<?, ?> store, long destination, long source, int etherType);

    /** The length of the headers {@link #write} writes. */
    int headerLength();

    /** The untagged netdev. */
    record Untagged() implements LanTag {
        @Override
        public boolean matches(EthernetFrame frame) {
            return !frame.hasVlanTag() || frame.vlanId() == 0;
        }

        @Override
        public int write(BytesStore<?, ?> store, long destination, long source, int etherType) {
            return EthernetFrame.write(store, 0, destination, source, etherType);
        }

        @Override
        public int headerLength() {
            return EthernetFrame.HEADER_LENGTH;
        }
    }

    /**
     * A VLAN netdev: VLAN {@code id} (1..4094; 0 is a priority tag and 4095 reserved, IEEE 802.1Q Table 9-2), its
     * frames sent with priority code point {@code pcp}.
     */
    record Vlan(int id, int pcp) implements LanTag {
        public Vlan {
            if (id < 1 || id > 4094 || pcp < 0 || pcp > 7) {
                throw new IllegalArgumentException("a VLAN netdev has a VLAN id 1..4094 and a priority 0..7");
            }
        }

        @Override
        public boolean matches(EthernetFrame frame) {
            return frame.hasVlanTag() && frame.vlanId() == id;
        }

        @Override
        public int write(BytesStore<?, ?> store, long destination, long source, int etherType) {
            return EthernetFrame.writeTagged(store, 0, destination, source, pcp, false, id, etherType);
        }

        @Override
        public int headerLength() {
            return EthernetFrame.TAGGED_HEADER_LENGTH;
        }
    }
}
