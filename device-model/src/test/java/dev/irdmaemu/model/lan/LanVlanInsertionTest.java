package dev.irdmaemu.model.lan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.lan.TxDescriptor;
import java.util.Arrays;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * ice's hardware VLAN insertion on the LAN Tx rings (ice_txrx.c ice_tx_prepare_vlan_flags, ice_tx_map): the 802.1Q
 * tag control information of the skb in the data descriptor's L2TAG1 (single VLAN mode) or in the context
 * descriptor's L2TAG2 (double VLAN mode) leaves on the wire as a tag after the MAC addresses, on every TSO segment.
 */
class LanVlanInsertionTest {
    static final int TXQ = 0;
    static final int TX_VECTOR = 2;
    /** VLAN 100, priority 5 (what the rdma-paths scenario's VLAN netdev sends with). */
    static final int TCI = 5 << 13 | 100;

    final LanRig rig = new LanRig();
    final IceLanDriver d = rig.driver;

    /** ice_tx_map: one buffer, EOP|RS, the driver's offload fields and L2TAG1. */
    private void queue(byte[] frame, int cmd, int l2tag1) {
        long buf = rig.ram.allocate(frame.length);
        rig.ram.memory().copyIn(buf, LanRig.store(frame), 0, frame.length);
        d.txEop.add(d.txNtu);
        d.putTx(buf, TxDescriptor.dataQw1(cmd | TxDescriptor.CMD_EOP | TxDescriptor.CMD_RS, 14, 20, 20,
                frame.length, l2tag1));
    }

    private static byte[] tagged(byte[] untagged, int tci) {
        byte[] t = new byte[untagged.length + 4];
        System.arraycopy(untagged, 0, t, 0, 12);
        t[12] = (byte) 0x81;
        t[13] = 0x00;
        t[14] = (byte) (tci >>> 8);
        t[15] = (byte) tci;
        System.arraycopy(untagged, 12, t, 16, untagged.length - 12);
        return t;
    }

    @Test
    void singleVlanModeInsertsTheDataDescriptorsL2Tag1() {
        d.setupTx(TXQ, 64, TX_VECTOR);
        byte[] arp = LanRig.arpRequest();
        queue(arp, TxDescriptor.CMD_IL2TAG1, TCI);
        d.ringTx();
        assertEquals(1, rig.wire.size());
        byte[] out = rig.wire.get(0);
        assertArrayEquals(tagged(arp, TCI), out);
        EthernetFrame e = new EthernetFrame().wrap(LanRig.store(out), 0, out.length);
        assertEquals(EthernetFrame.Status.ACCEPTED, e.validate());
        assertEquals(100, e.vlanId());
        assertEquals(5, e.pcp());
        assertEquals(EthernetFrame.ETHERTYPE_ARP, e.etherType());
        assertEquals(1, d.cleanTx());
    }

    @Test
    void withoutTheIl2Tag1CommandTheL2Tag1FieldIsNotInserted() {
        d.setupTx(TXQ, 64, TX_VECTOR);
        byte[] arp = LanRig.arpRequest();
        queue(arp, 0, TCI);
        d.ringTx();
        assertArrayEquals(arp, rig.wire.get(0), "L2TAG1 without CMD IL2TAG1 is ignored");
    }

    @Test
    void doubleVlanModeInsertsTheContextDescriptorsL2Tag2() {
        d.setupTx(TXQ, 64, TX_VECTOR);
        byte[] arp = LanRig.arpRequest();
        // struct ice_tx_ctx_desc: l2tag2 in bytes 4..5, ICE_TX_CTX_DESC_IL2TAG2 in the command
        d.putTx((long) TCI << 32, TxDescriptor.DTYPE_CTX | (long) TxPath.CTX_CMD_IL2TAG2 << 4);
        queue(arp, 0, 0);
        d.ringTx();
        assertArrayEquals(tagged(arp, TCI), rig.wire.get(0));
        assertEquals(1, d.cleanTx());
    }

    @Test
    void everyTsoSegmentIsTaggedAndItsChecksumsVerify() {
        d.setupTx(TXQ, 64, TX_VECTOR);
        int payload = 6000;
        int mss = 1448;
        byte[] f = LanRig.tcp(false, TcpHeader.ACK | TcpHeader.PSH, 1000, payload);
        int cmd = TxDescriptor.CMD_IIPT_IPV4_CSUM | TxDescriptor.CMD_L4T_TCP | TxDescriptor.CMD_IL2TAG1;
        d.putTx(0, TxDescriptor.tsoContextQw1(payload, mss));
        queue(f, cmd, TCI);
        d.ringTx();
        int segments = (payload + mss - 1) / mss;
        assertEquals(segments, rig.wire.size());
        byte[] joined = new byte[payload];
        int at = 0;
        for (byte[] out : rig.wire) {
            TcpPacket p = new TcpPacket().wrap(LanRig.store(out), 0, out.length);
            assertEquals(TcpPacket.Status.ACCEPTED, p.validate(), "a tagged segment with good checksums");
            assertEquals(100, p.vlanId());
            int len = (int) p.tcpPayloadLength();
            System.arraycopy(out, 18 + 40, joined, at, len);
            at += len;
        }
        assertArrayEquals(Arrays.copyOfRange(f, 54, f.length), joined);
    }

    @Test
    void aJumboFrameLeavesWhole() {
        d.setupTx(TXQ, 64, TX_VECTOR);
        byte[] f = LanRig.tcp(false, TcpHeader.ACK, 1, 8960);
        queue(f, TxDescriptor.CMD_IL2TAG1, TCI);
        d.ringTx();
        assertEquals(1, rig.wire.size());
        assertEquals(f.length + 4, rig.wire.get(0).length, "9014 bytes and the tag");
        BytesStore<?, ?> s = LanRig.store(rig.wire.get(0));
        assertTrue(new TcpPacket().wrap(s, 0, f.length + 4).validate().accepted());
    }
}
