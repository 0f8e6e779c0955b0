package dev.irdmaemu.model.lan;

import static dev.irdmaemu.fw.lan.LanRegister.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.RssCommand;
import dev.irdmaemu.fw.aq.VsiCommand;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.lan.RxFlexDescriptor;
import dev.irdmaemu.fw.lan.RxPacketType;
import dev.irdmaemu.model.ice.AqCommandHandler;
import dev.irdmaemu.model.ice.VsiTable;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Receive-side scaling on the LAN rings, configured the way ice does it (ice_lib.c ice_vsi_init: the PF VSI's
 * context with a contiguous queue map, TC 0's power-of-two region and q_opt_rss naming the PF LUT and Toeplitz;
 * ice_vsi_cfg_rss_lut_key: set_rss_key with 52 bytes and set_rss_lut of the PF's 2048 entries, lut[i] = i % rss_size).
 * The hashes are the Microsoft verification suite's (key and flows as in fw.lan.ToeplitzHashTest); each lands on
 * queue lut[hash & 2047] and in the descriptor's rss_hash with RSS_VALID.
 */
class LanRssTest {
    static final byte[] MS_KEY = {
            0x6d, 0x5a, 0x56, (byte) 0xda, 0x25, 0x5b, 0x0e, (byte) 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, (byte) 0xa3,
            (byte) 0x8f, (byte) 0xb0, (byte) 0xd0, (byte) 0xca, 0x2b, (byte) 0xcb, (byte) 0xae, 0x7b, 0x30,
            (byte) 0xb4, 0x77, (byte) 0xcb, 0x2d, (byte) 0xa3, (byte) 0x80, 0x30, (byte) 0xf2, 0x0c, 0x6a, 0x42,
            (byte) 0xb7, 0x3b, (byte) 0xbe, (byte) 0xac, 0x01, (byte) 0xfa};
    static final int QUEUES = 4;

    LanRig rig;
    VsiTable vsis;
    final Map<Integer, AqCommandHandler> aq = new HashMap<>();
    final AqDescriptor desc = new AqDescriptor();
    final IceLanDriver[] rx = new IceLanDriver[QUEUES];
    int vsi;

    @BeforeEach
    void setUp() {
        rig = new LanRig();
        vsis = new VsiTable();
        vsis.install(aq::put);
        rig.lan.rxSteering(new VsiRssSteering(vsis));
        for (int q = 0; q < QUEUES; q++) {
            rx[q] = new IceLanDriver(rig.ram, rig.lan);
            assertTrue(rx[q].setupRx(q, 64, 2048, q + 1));
            rx[q].postRx(63);
        }
        vsi = addPfVsi(0, QUEUES, 2, VsiCommand.RSS_LUT_PF);
    }

    int send(int opcode, Consumer<AqDescriptor> params, Bytes<?> buf) {
        BytesStore<?, ?> d = BytesStore.wrap(new byte[AqDescriptor.SIZE]);
        desc.wrap(d, 0);
        desc.opcode(opcode);
        if (buf != null) {
            desc.flags(AqDescriptor.BUF | AqDescriptor.RD | (buf.writeLimit() > AqDescriptor.LG_BUF ? AqDescriptor.LB : 0));
            desc.datalen((int) buf.writeLimit());
        }
        params.accept(desc);
        return aq.get(opcode).handle(desc, buf);
    }

    /** add_vsi as ice_vsi_init sends it: contiguous map of {@code count} queues from {@code first}, TC 0 on them. */
    int addPfVsi(int first, int count, int log2, int lutType) {
        Bytes<?> ctx = Bytes.wrapForWrite(new byte[VsiCommand.PROPS_SIZE]);
        ctx.writeShort(0, (short) (VsiCommand.PROP_RXQ_MAP_VALID | VsiCommand.PROP_Q_OPT_VALID));
        ctx.writeShort(VsiCommand.MAPPING_FLAGS, (short) 0);
        ctx.writeShort(VsiCommand.Q_MAPPING, (short) first);
        ctx.writeShort(VsiCommand.Q_MAPPING + 2, (short) count);
        ctx.writeShort(VsiCommand.TC_MAPPING, (short) (log2 << VsiCommand.TC_Q_NUM_S));
        ctx.writeByte(VsiCommand.Q_OPT_RSS, (byte) lutType);
        assertEquals(AqError.OK, send(AqOpcode.ADD_VSI, d -> d.paramU16(VsiCommand.PARAM_VSI_FLAGS,
                VsiCommand.TYPE_PF), ctx));
        return desc.paramU16(VsiCommand.RESP_VSI_NUM);
    }

    void setKey(byte[] key) {
        Bytes<?> b = Bytes.wrapForWrite(new byte[RssCommand.EXTENDED_KEY_SIZE]);
        for (int i = 0; i < key.length; i++) {
            b.writeByte(i, key[i]);
        }
        assertEquals(AqError.OK, send(AqOpcode.SET_RSS_KEY,
                d -> d.paramU16(RssCommand.PARAM_VSI_ID, vsi | RssCommand.VSI_VALID), b));
    }

    /** ice_fill_rss_lut: lut[i] = i % rssSize, the PF's 2K table. */
    void setPfLut(int rssSize) {
        Bytes<?> b = Bytes.wrapForWrite(new byte[RssCommand.LUT_PF_SIZE]);
        for (int i = 0; i < RssCommand.LUT_PF_SIZE; i++) {
            b.writeByte(i, (byte) (i % rssSize));
        }
        assertEquals(AqError.OK, send(AqOpcode.SET_RSS_LUT, d -> d.paramU16(RssCommand.PARAM_VSI_ID,
                vsi | RssCommand.VSI_VALID).paramU16(RssCommand.PARAM_LUT_FLAGS,
                VsiTable.LUT_TYPE_PF | RssCommand.LUT_SIZE_2K), b));
    }

    static byte[] tcp4(int src, int srcPort, int dst, int dstPort) {
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(LanRig.MAC_B, LanRig.MAC_A).ipv4(src, dst);
        b.tcp().ports(srcPort, dstPort).sequenceNumber(1).acknowledgmentNumber(1).flags(LanRig.tcpFlags()).window(512);
        return build(b);
    }

    static byte[] tcp6(long sHi, long sLo, int srcPort, long dHi, long dLo, int dstPort) {
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(LanRig.MAC_B, LanRig.MAC_A).ipv6(sHi, sLo, dHi, dLo);
        b.tcp().ports(srcPort, dstPort).sequenceNumber(1).acknowledgmentNumber(1).flags(LanRig.tcpFlags()).window(512);
        return build(b);
    }

    static byte[] build(TcpPacketBuilder b) {
        BytesStore<?, ?> p = BytesStore.nativeStoreWithFixedCapacity(16);
        BytesStore<?, ?> out = BytesStore.nativeStoreWithFixedCapacity(b.headersLength() + 16);
        int n = b.build(out, 0, p, 0, 16);
        return LanRig.bytes(out, 0, n);
    }

    /** Delivers {@code frame} and answers the queue it landed on, with its descriptor checked. */
    IceLanDriver.Received landOn(byte[] frame, int expectedQueue) {
        rig.deliver(frame);
        IceLanDriver.Received got = null;
        for (int q = 0; q < QUEUES; q++) {
            IceLanDriver.Received r = rx[q].receive();
            if (q == expectedQueue) {
                assertNotNull(r, "frame expected on queue " + q);
                got = r;
            } else {
                assertNull(r, "nothing expected on queue " + q);
            }
        }
        assertArrayEquals(frame, got.bytes());
        return got;
    }

    @Test
    void withoutKeyAndLutEveryFrameGoesToTheVsisFirstQueueWithoutAHash() {
        IceLanDriver.Received r = landOn(tcp4(IpAddress.ipv4(66, 9, 149, 187), 2794, IpAddress.ipv4(161, 142, 100, 80),
                1766), 0);
        assertEquals(0, r.rssHash());
        assertEquals(0, r.status0() & RxFlexDescriptor.STATUS0_RSS_VALID);
        setKey(MS_KEY); // a key alone is not RSS: the LUT is missing
        assertEquals(0, landOn(tcp4(IpAddress.ipv4(199, 92, 111, 2), 14230, IpAddress.ipv4(65, 69, 140, 83), 4739),
                0).rssHash());
        assertEquals(0, rig.lan.counters().rxHashed());
    }

    @Test
    void tcpOverIpv4SpreadsByTheToeplitzHashOfItsFourTupleThroughThePfLut() {
        setKey(MS_KEY);
        setPfLut(QUEUES);
        // Microsoft's suite: hash with ports, then lut[hash & 2047] = (hash & 2047) % 4
        int[][] flows = {
                {IpAddress.ipv4(66, 9, 149, 187), 2794, IpAddress.ipv4(161, 142, 100, 80), 1766, 0x51ccc178},
                {IpAddress.ipv4(199, 92, 111, 2), 14230, IpAddress.ipv4(65, 69, 140, 83), 4739, 0xc626b0ea},
                {IpAddress.ipv4(24, 19, 198, 95), 12898, IpAddress.ipv4(12, 22, 207, 184), 38024, 0x5c2b394a},
                {IpAddress.ipv4(38, 27, 205, 30), 48228, IpAddress.ipv4(209, 142, 163, 6), 2217, 0xafc7327f},
                {IpAddress.ipv4(153, 39, 163, 191), 44251, IpAddress.ipv4(202, 188, 127, 2), 1303, 0x10e828a2}};
        int[] expectedQueue = {0, 2, 2, 3, 2};
        for (int i = 0; i < flows.length; i++) {
            int[] f = flows[i];
            assertEquals(expectedQueue[i], (f[4] & 2047) % QUEUES);
            IceLanDriver.Received r = landOn(tcp4(f[0], f[1], f[2], f[3]), expectedQueue[i]);
            assertEquals(f[4], r.rssHash(), "flow " + i);
            assertEquals(RxPacketType.IPV4_TCP, r.ptype());
            assertNotEquals(0, r.status0() & RxFlexDescriptor.STATUS0_RSS_VALID);
            assertEquals(rx[expectedQueue[i]].rxq + 1, expectedQueue[i] + 1);
        }
        assertEquals(flows.length, rig.lan.counters().rxHashed());
        assertEquals(1, rig.vectors[1], "queue 0's vector");
        assertEquals(3, rig.vectors[3], "queue 2's vector");
        assertEquals(1, rig.vectors[4], "queue 3's vector");
    }

    @Test
    void tcpOverIpv6HashesAddressesAndPortsAndIcmpTheAddressesAlone() {
        setKey(MS_KEY);
        setPfLut(QUEUES);
        // [3ffe:2501:200:1fff::7]:2794 -> [3ffe:2501:200:3::1]:1766: 0x40207d3d, & 2047 = 1341, % 4 = 1
        IceLanDriver.Received r = landOn(tcp6(0x3ffe_2501_0200_1fffL, 7, 2794, 0x3ffe_2501_0200_0003L, 1, 1766), 1);
        assertEquals(0x40207d3d, r.rssHash());
        assertEquals(RxPacketType.IPV6_TCP, r.ptype());
        // an ICMP echo 10.0.0.1 -> 10.0.0.2 hashes the two addresses only (ice's ICE_FLOW_HASH_IPV4 profile)
        int h = new dev.irdmaemu.fw.lan.ToeplitzHash().key(MS_KEY, MS_KEY.length).start().addInt(LanRig.IP_A)
                .addInt(LanRig.IP_B).value();
        r = landOn(LanRig.icmpEcho(8), (h & 2047) % QUEUES);
        assertEquals(h, r.rssHash());
        assertEquals(RxPacketType.IPV4_ICMP, r.ptype());
        // ARP has no RSS input set: no hash, LUT entry 0, queue 0
        r = landOn(LanRig.arpRequest(), 0);
        assertEquals(0, r.rssHash());
        assertEquals(0, r.status0() & RxFlexDescriptor.STATUS0_RSS_VALID);
    }

    @Test
    void aVsiLutSelectedByTheContextSteersEverythingToItsEntries() {
        setKey(MS_KEY);
        setPfLut(QUEUES);
        // update_vsi: q_opt_rss now names the VSI's own 64-entry table, all entries 3
        Bytes<?> ctx = Bytes.wrapForWrite(new byte[VsiCommand.PROPS_SIZE]);
        // the sections ice flags when it changes the queue map and the RSS options (ice_lib.c ice_vsi_cfg_tc)
        ctx.writeShort(0, (short) (VsiCommand.PROP_RXQ_MAP_VALID | VsiCommand.PROP_Q_OPT_VALID));
        ctx.writeShort(VsiCommand.Q_MAPPING + 2, (short) QUEUES);
        ctx.writeShort(VsiCommand.TC_MAPPING, (short) (2 << VsiCommand.TC_Q_NUM_S));
        ctx.writeByte(VsiCommand.Q_OPT_RSS, (byte) VsiCommand.RSS_LUT_VSI);
        assertEquals(AqError.OK, send(AqOpcode.UPDATE_VSI, d -> d.paramU16(VsiCommand.PARAM_VSI_NUM, vsi), ctx));
        Bytes<?> lut = Bytes.wrapForWrite(new byte[RssCommand.LUT_VSI_SIZE]);
        for (int i = 0; i < RssCommand.LUT_VSI_SIZE; i++) {
            lut.writeByte(i, (byte) 3);
        }
        assertEquals(AqError.OK, send(AqOpcode.SET_RSS_LUT,
                d -> d.paramU16(RssCommand.PARAM_VSI_ID, vsi | RssCommand.VSI_VALID), lut));
        landOn(tcp4(IpAddress.ipv4(66, 9, 149, 187), 2794, IpAddress.ipv4(161, 142, 100, 80), 1766), 3);
        landOn(tcp4(IpAddress.ipv4(199, 92, 111, 2), 14230, IpAddress.ipv4(65, 69, 140, 83), 4739), 3);
        // TC 0 of 2 queues (log2 1) masks the entry: 3 & 1 = 1
        ctx.writeShort(VsiCommand.TC_MAPPING, (short) (1 << VsiCommand.TC_Q_NUM_S));
        assertEquals(AqError.OK, send(AqOpcode.UPDATE_VSI, d -> d.paramU16(VsiCommand.PARAM_VSI_NUM, vsi), ctx));
        landOn(tcp4(IpAddress.ipv4(66, 9, 149, 187), 2794, IpAddress.ipv4(161, 142, 100, 80), 1766), 1);
    }

    @Test
    void aLutEntryNamingADisabledQueueOrOneOutsideTheMapDropsTheFrameAndCountsIt() {
        setKey(MS_KEY);
        setPfLut(QUEUES);
        rig.lan.write32(QRX_CTRL + 3 * 4L, 0); // queue 3 disabled (ice_vsi_ctrl_one_rx_ring off)
        byte[] toThree = tcp4(IpAddress.ipv4(38, 27, 205, 30), 48228, IpAddress.ipv4(209, 142, 163, 6), 2217);
        rig.deliver(toThree);
        assertEquals(1, rig.lan.counters().rxRssQueueDisabled());
        assertEquals(0, rig.lan.counters().rxFrames());
        // a LUT naming queue 9 of a 4-queue VSI with a 16-queue TC region: outside the map
        Bytes<?> ctx = Bytes.wrapForWrite(new byte[VsiCommand.PROPS_SIZE]);
        // the sections ice flags when it changes the queue map and the RSS options (ice_lib.c ice_vsi_cfg_tc)
        ctx.writeShort(0, (short) (VsiCommand.PROP_RXQ_MAP_VALID | VsiCommand.PROP_Q_OPT_VALID));
        ctx.writeShort(VsiCommand.Q_MAPPING + 2, (short) QUEUES);
        ctx.writeShort(VsiCommand.TC_MAPPING, (short) (4 << VsiCommand.TC_Q_NUM_S));
        ctx.writeByte(VsiCommand.Q_OPT_RSS, (byte) VsiCommand.RSS_LUT_PF);
        assertEquals(AqError.OK, send(AqOpcode.UPDATE_VSI, d -> d.paramU16(VsiCommand.PARAM_VSI_NUM, vsi), ctx));
        setPfLut(10); // entry 9 at index 9, 2057 & 2047 ...
        Bytes<?> lut = Bytes.wrapForWrite(new byte[RssCommand.LUT_PF_SIZE]);
        for (int i = 0; i < RssCommand.LUT_PF_SIZE; i++) {
            lut.writeByte(i, (byte) 9);
        }
        assertEquals(AqError.OK, send(AqOpcode.SET_RSS_LUT, d -> d.paramU16(RssCommand.PARAM_VSI_ID,
                vsi | RssCommand.VSI_VALID).paramU16(RssCommand.PARAM_LUT_FLAGS,
                VsiTable.LUT_TYPE_PF | RssCommand.LUT_SIZE_2K), lut));
        rig.deliver(LanRig.arpRequest());
        assertEquals(2, rig.lan.counters().rxRssQueueDisabled());
        assertEquals(0, rig.lan.counters().rxFrames());
        // the PF's table with the small size flag, a global one with the 2K flag: the type fixes the size
        assertEquals(AqError.EINVAL, send(AqOpcode.SET_RSS_LUT, d -> d.paramU16(RssCommand.PARAM_VSI_ID,
                vsi | RssCommand.VSI_VALID).paramU16(RssCommand.PARAM_LUT_FLAGS, VsiTable.LUT_TYPE_PF),
                Bytes.wrapForWrite(new byte[RssCommand.LUT_VSI_SIZE])));
        assertEquals(AqError.EINVAL, send(AqOpcode.SET_RSS_LUT, d -> d.paramU16(RssCommand.PARAM_VSI_ID,
                vsi | RssCommand.VSI_VALID).paramU16(RssCommand.PARAM_LUT_FLAGS,
                VsiTable.LUT_TYPE_GLOBAL | RssCommand.LUT_SIZE_2K), lut));
        // a LUT type 3 is not one of enum ice_lut_type
        assertEquals(AqError.EINVAL, send(AqOpcode.SET_RSS_LUT, d -> d.paramU16(RssCommand.PARAM_VSI_ID,
                vsi | RssCommand.VSI_VALID).paramU16(RssCommand.PARAM_LUT_FLAGS, 3 | RssCommand.LUT_SIZE_2K), lut));
    }

    @Test
    void aPfResetForgetsTheRssStateAndFramesGoBackToTheFirstQueue() {
        setKey(MS_KEY);
        setPfLut(QUEUES);
        landOn(tcp4(IpAddress.ipv4(199, 92, 111, 2), 14230, IpAddress.ipv4(65, 69, 140, 83), 4739), 2);
        vsis.reset();
        assertEquals(0, landOn(tcp4(IpAddress.ipv4(199, 92, 111, 2), 14230, IpAddress.ipv4(65, 69, 140, 83), 4739),
                0).rssHash());
    }

    @Test
    void hashingAndSteeringAllocateNothingPerFrame() {
        setKey(MS_KEY);
        setPfLut(1); // every entry 0: all frames hash, all land on queue 0, whose ring the loop re-posts
        BytesStore<?, ?> frame = LanRig.store(tcp6(0x3ffe_2501_0200_1fffL, 7, 2794, 0x3ffe_2501_0200_0003L, 1, 1766));
        int len = (int) frame.capacity();
        IceLanDriver d = rx[0];
        int[] ntu = {d.rxNtu};
        Runnable one = () -> {
            rig.lan.frame(frame, 0, len);
            int r = ntu[0];
            rig.memory.writeLong(d.rxRing + r * (long) RxFlexDescriptor.SIZE, d.rxBufs[r]);
            rig.memory.writeLong(d.rxRing + r * (long) RxFlexDescriptor.SIZE + 8, 0);
            ntu[0] = (r + 1) % 64;
            rig.lan.write32(QRX_TAIL, ntu[0]);
        };
        for (int i = 0; i < 20_000; i++) {
            one.run();
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long t = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(t);
        for (int i = 0; i < 10_000; i++) {
            one.run();
        }
        long used = threads.getThreadAllocatedBytes(t) - before;
        assertEquals(30_000, rig.lan.counters().rxHashed());
        assertEquals(0, rig.lan.counters().rxNoDescriptor());
        assertTrue(used < 10_000, "RSS Rx allocated " + used + " bytes in 10000 frames");
    }
}
