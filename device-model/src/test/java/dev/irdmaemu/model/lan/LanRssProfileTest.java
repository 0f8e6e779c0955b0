package dev.irdmaemu.model.lan;

import static dev.irdmaemu.fw.aq.ProfileTableSection.BLK_RSS;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.lan.RxPacketType;
import dev.irdmaemu.fw.lan.ToeplitzHash;
import dev.irdmaemu.model.ice.FlowProfiles;
import dev.irdmaemu.model.ice.PackageUpdates;
import dev.irdmaemu.model.ice.UpdatePkgBuffer;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RSS steered by the profiles ice programs through update_pkg (ice_flow.c ice_add_rss_cfg: a field vector of the
 * fields to hash, a TCAM entry keyed on the packet type's group and the VSI's group): the Rx engine hashes exactly
 * the profile's input set, and a packet type no profile covers keeps ice's default input set.
 */
class LanRssProfileTest {
    static final int VSIG = 3;
    static final int PTG_TCP4 = 11;
    static final int PROFILE = 7;

    LanRssTest lan;
    FlowProfiles profiles;
    PackageUpdates updates;
    int vsi;

    @BeforeEach
    void setUp() {
        lan = new LanRssTest();
        lan.setUp();
        profiles = new FlowProfiles();
        updates = new PackageUpdates(profiles);
        updates.install(lan.aq::put);
        lan.rig.lan.rxSteering(new VsiRssSteering(lan.vsis, profiles));
        vsi = lan.vsi;
        lan.setKey(LanRssTest.MS_KEY);
        lan.setPfLut(LanRssTest.QUEUES);
    }

    void update(UpdatePkgBuffer b) {
        byte[] bytes = b.build();
        Bytes<?> buf = Bytes.wrapForWrite(bytes);
        buf.writeLimit(bytes.length);
        assertEquals(AqError.OK, lan.send(AqOpcode.UPDATE_PKG, d -> d.flags(d.flags() | AqDescriptor.RD), buf));
    }

    static int expectedQueue(int hash) {
        return (hash & 2047) % LanRssTest.QUEUES;
    }

    @Test
    void aProfileHashingTheAddressesOnlyMakesTcpIgnoreItsPorts() {
        int src = IpAddress.ipv4(66, 9, 149, 187);
        int dst = IpAddress.ipv4(161, 142, 100, 80);
        // without a profile: the 4-tuple (Microsoft's suite value)
        assertEquals(0x51ccc178, lan.landOn(LanRssTest.tcp4(src, 2794, dst, 1766), expectedQueue(0x51ccc178)).rssHash());

        update(new UpdatePkgBuffer().fieldVector(BLK_RSS, PROFILE, new int[][] {{32, 12}, {32, 14}, {32, 16}, {32, 18}})
                .tcam(BLK_RSS, 0, PTG_TCP4, VSIG, PROFILE)
                .xlt1(BLK_RSS, RxPacketType.IPV4_TCP, PTG_TCP4)
                .xlt2(BLK_RSS, vsi, VSIG));
        int addresses = new ToeplitzHash().key(LanRssTest.MS_KEY, LanRssTest.MS_KEY.length).start().addInt(src)
                .addInt(dst).value();
        assertEquals(0x323e8fc2, addresses, "Microsoft's suite: the IPv4-only hash of the same flow");
        assertEquals(addresses, lan.landOn(LanRssTest.tcp4(src, 2794, dst, 1766), expectedQueue(addresses)).rssHash());
        assertEquals(addresses, lan.landOn(LanRssTest.tcp4(src, 9, dst, 10), expectedQueue(addresses)).rssHash(),
                "other ports, same hash");
    }

    @Test
    void aProfileHashingTheDestinationPortAloneAndAnUncoveredPacketTypeKeepingTheDefault() {
        update(new UpdatePkgBuffer().fieldVector(BLK_RSS, PROFILE, new int[][] {{49, 2}})
                .tcam(BLK_RSS, 0, PTG_TCP4, VSIG, PROFILE)
                .xlt1(BLK_RSS, RxPacketType.IPV4_TCP, PTG_TCP4)
                .xlt2(BLK_RSS, vsi, VSIG));
        ToeplitzHash t = new ToeplitzHash().key(LanRssTest.MS_KEY, LanRssTest.MS_KEY.length);
        int port = t.start().addShort(1766).value();
        assertEquals(port, lan.landOn(LanRssTest.tcp4(IpAddress.ipv4(1, 2, 3, 4), 5, IpAddress.ipv4(5, 6, 7, 8),
                1766), expectedQueue(port)).rssHash());
        // IPv6/TCP's packet type is in group 0, which no entry keys: ice's default, the 4-tuple (Microsoft's suite)
        assertEquals(0x40207d3d, lan.landOn(LanRssTest.tcp6(0x3ffe_2501_0200_1fffL, 7, 2794, 0x3ffe_2501_0200_0003L,
                1, 1766), expectedQueue(0x40207d3d)).rssHash());
    }
}
