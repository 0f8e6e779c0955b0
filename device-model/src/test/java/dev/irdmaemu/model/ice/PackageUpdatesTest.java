package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.aq.ProfileTableSection.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Named.named;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.lan.RxPacketType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * update_pkg (0x0C42) as ice_flex_pipe.c ice_upd_prof_hw sends it for an RSS configuration (ice_add_rss_cfg: the
 * profile's field vector, its TCAM entry, the packet type's group, the VSI's group), and every way a buffer can lie:
 * each is answered EINVAL with error_offset/error_info over the buffer and changes no table.
 */
class PackageUpdatesTest {
    static final int VSI = 4;
    static final int VSIG = 2;
    static final int PTG = 7;
    static final int PROFILE = 5;
    /** ICE_FLOW_HASH_IPV4: the outer IPv4 source and destination addresses, two words each. */
    static final int[][] IPV4_ADDRESSES = {{32, 12}, {32, 14}, {32, 16}, {32, 18}};
    static final int[][] IPV4_TCP_DST_PORT = {{32, 16}, {32, 18}, {49, 2}};

    FlowProfiles profiles;
    PackageUpdates updates;
    final Map<Integer, AqCommandHandler> aq = new HashMap<>();
    final AqDescriptor desc = new AqDescriptor();
    Bytes<?> last;

    @BeforeEach
    void setUp() {
        profiles = new FlowProfiles();
        updates = new PackageUpdates(profiles);
        updates.install(aq::put);
    }

    int send(byte[] buffer) {
        desc.wrap(BytesStore.wrap(new byte[AqDescriptor.SIZE]), 0);
        desc.opcode(AqOpcode.UPDATE_PKG).flags(AqDescriptor.BUF | AqDescriptor.RD).datalen(buffer.length);
        last = buffer.length == 0 ? null : Bytes.wrapForWrite(buffer.clone());
        if (last != null) {
            last.writeLimit(buffer.length);
        }
        return aq.get(AqOpcode.UPDATE_PKG).handle(desc, last);
    }

    static UpdatePkgBuffer rssProfile(int[][] words) {
        return new UpdatePkgBuffer().fieldVector(BLK_RSS, PROFILE, words)
                .tcam(BLK_RSS, 3, PTG, VSIG, PROFILE)
                .xlt1(BLK_RSS, RxPacketType.IPV4_TCP, PTG)
                .xlt2(BLK_RSS, VSI, VSIG);
    }

    @Test
    void anRssConfigurationSelectsItsInputSetForItsPacketTypeOnItsVsi() {
        assertEquals(FlowProfiles.NO_PROFILE, profiles.rssInputSet(VSI, RxPacketType.IPV4_TCP));
        assertEquals(AqError.OK, send(rssProfile(IPV4_ADDRESSES).build()));
        assertEquals(FlowProfiles.SRC_ADDR | FlowProfiles.DST_ADDR, profiles.rssInputSet(VSI, RxPacketType.IPV4_TCP));
        assertEquals(FlowProfiles.NO_PROFILE, profiles.rssInputSet(VSI, RxPacketType.IPV4_UDP),
                "UDP's packet type is still in group 0, which no entry keys");
        assertEquals(FlowProfiles.NO_PROFILE, profiles.rssInputSet(VSI + 1, RxPacketType.IPV4_TCP),
                "another VSI is in VSI group 0");
        assertEquals(4, profiles.sectionsApplied(BLK_RSS));
        assertEquals(1, updates.updates());

        // ice_rem_prof / a new configuration: the same TCAM entry now names a profile hashing the destination only
        assertEquals(AqError.OK, send(new UpdatePkgBuffer().fieldVector(BLK_RSS, PROFILE + 1, IPV4_TCP_DST_PORT)
                .tcam(BLK_RSS, 3, PTG, VSIG, PROFILE + 1).build()));
        assertEquals(FlowProfiles.DST_ADDR | FlowProfiles.DST_PORT, profiles.rssInputSet(VSI, RxPacketType.IPV4_TCP));
    }

    @Test
    void aLowerTcamEntryWinsAndANeverMatchingKeySelectsNothing() {
        assertEquals(AqError.OK, send(rssProfile(IPV4_ADDRESSES).build()));
        assertEquals(AqError.OK, send(new UpdatePkgBuffer().fieldVector(BLK_RSS, 9, IPV4_TCP_DST_PORT)
                .tcam(BLK_RSS, 1, PTG, VSIG, 9).build()));
        assertEquals(FlowProfiles.DST_ADDR | FlowProfiles.DST_PORT, profiles.rssInputSet(VSI, RxPacketType.IPV4_TCP));
        // entry 1 rewritten with key and inverted key 0 in its xlt1 byte: never matches, entry 3 applies again
        byte[] b = new UpdatePkgBuffer().tcam(BLK_RSS, 1, PTG, VSIG, 9).build();
        int body = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getShort(8);
        b[body + 4 + 2] = 0;
        b[body + 4 + 2 + 5] = 0;
        assertEquals(AqError.OK, send(b));
        assertEquals(FlowProfiles.SRC_ADDR | FlowProfiles.DST_ADDR, profiles.rssInputSet(VSI, RxPacketType.IPV4_TCP));
    }

    @Test
    void flowDirectorAndBoostSectionsAreTakenAndKeptApartFromRss() {
        byte[] b = new UpdatePkgBuffer().fieldVector(BLK_FD, 3, IPV4_ADDRESSES).tcam(BLK_FD, 0, PTG, VSIG, 3)
                .section(PackageUpdates.SID_RXPARSER_BOOST_TCAM, new byte[24]).build();
        assertEquals(AqError.OK, send(b));
        assertEquals(2, profiles.sectionsApplied(BLK_FD));
        assertEquals(0, profiles.sectionsApplied(BLK_RSS));
        assertEquals(1, updates.boostSections());
        assertEquals(OptionalInt.of(3), profiles.profileFor(BLK_FD, PTG, VSIG));
    }

    static Stream<Arguments> hostileBuffers() {
        byte[] good = rssProfile(IPV4_ADDRESSES).build();
        return Stream.of(
                hostile("no buffer at all", g -> new byte[0], 0),
                hostile("shorter than a buffer header", g -> new byte[8], 0),
                hostile("section_count 0", g -> le16(g, 0, 0), 0),
                hostile("section_count 512", g -> le16(g, 0, 512), 0),
                hostile("data_end past what was sent", g -> le16(g, 2, g.length + 4), 2),
                hostile("data_end below 12", g -> le16(g, 2, 8), 2),
                hostile("a section inside the section table", g -> le16(g, 4 + 4, 8), 8),
                hostile("a section of size 0", g -> le16(g, 4 + 6, 0), 10),
                hostile("a section past data_end", g -> le16(g, 4 + 6, 4000), 10),
                hostile("a metadata buffer", g -> le32(g, 4, 0x8000_0010L), 4),
                hostile("the metadata section id", g -> le32(g, 4, 1), 4),
                hostile("an XLT0 section (not taken at run time)", g -> le32(g, 4, 40), 4),
                hostile("a field vector of profile 128", g -> le16(g, body(g, 0) + 2, 128), -1),
                hostile("a field vector section count 2 in a one-profile section", g -> le16(g, body(g, 0), 2), -1),
                hostile("a TCAM entry at address 512", g -> le16(g, body(g, 1) + 2, 512), -1),
                hostile("a TCAM entry naming profile 200", g -> set(g, body(g, 1) + 14, 200), -1),
                hostile("an XLT1 write past ptype 1023", g -> le16(g, body(g, 2) + 2, 1024), -1),
                hostile("an XLT2 write past VSI 767", g -> le16(g, body(g, 3) + 2, 767 + 1), -1),
                hostile("an XLT2 section of count 0", g -> le16(g, body(g, 3), 0), -1))
                .map(a -> {
                    Object[] x = a.get();
                    return Arguments.of(x[0], ((UnaryOperator<byte[]>) x[1]).apply(good.clone()), x[2]);
                });
    }

    static Arguments hostile(String name, UnaryOperator<byte[]> lie, int errorOffset) {
        return Arguments.of(named(name, name), lie, errorOffset);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostileBuffers")
    void aLyingBufferIsRefusedWithEinvalAndChangesNothing(String name, byte[] buffer, int errorOffset) {
        long generation = profiles.generation();
        assertEquals(AqError.EINVAL, send(buffer), name);
        assertEquals(generation, profiles.generation(), "no table changed");
        assertEquals(FlowProfiles.NO_PROFILE, profiles.rssInputSet(VSI, RxPacketType.IPV4_TCP));
        assertEquals(0, updates.updates());
        if (buffer.length >= 8) {
            assertEquals(8, desc.datalen(), "struct ice_aqc_download_pkg_resp written back");
            int info = last.readInt(4);
            assertTrue(info >= PackageUpdates.ERROR_BUFFER && info <= PackageUpdates.ERROR_UNKNOWN_SECTION);
            if (errorOffset >= 0) {
                assertEquals(errorOffset, last.readInt(0), "error_offset");
            } else {
                assertTrue(last.readInt(0) >= 12, "error_offset inside a section");
            }
        }
    }

    @Test
    void randomBytesNeverThrowAndChangeTablesOnlyWhenAccepted() {
        Random r = new Random(15);
        byte[] good = rssProfile(IPV4_ADDRESSES).build();
        for (int i = 0; i < 20_000; i++) {
            byte[] b = good.clone();
            for (int k = r.nextInt(4) + 1; k > 0; k--) {
                b[r.nextInt(b.length)] = (byte) r.nextInt(256);
            }
            long generation = profiles.generation();
            int retval = send(b);
            assertTrue(retval == AqError.OK || retval == AqError.EINVAL, "retval " + retval);
            assertTrue(retval == AqError.OK || generation == profiles.generation());
        }
    }

    /** The offset of section {@code i}'s body. */
    static int body(byte[] b, int i) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getShort(4 + 8 * i + 4) & 0xFFFF;
    }

    static byte[] le16(byte[] b, int at, int v) {
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putShort(at, (short) v);
        return b;
    }

    static byte[] le32(byte[] b, int at, long v) {
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(at, (int) v);
        return b;
    }

    static byte[] set(byte[] b, int at, int v) {
        b[at] = (byte) v;
        return b;
    }
}
