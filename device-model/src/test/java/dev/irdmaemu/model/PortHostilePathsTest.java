package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile frames on the paths rdma-paths drives (issue 29 item 4), at the RDMA block's classifier: an IPv6 segment
 * behind an extension header, a VLAN tag that names another VLAN than the quad-hash entry, a tag cut short. None
 * reaches the ILQ: each goes to the LAN side (the netdev's stack decides), and nothing is thrown.
 */
class PortHostilePathsTest {
    static final long V6_HI = 0x2001_0db8_0000_0000L;
    static final long V6_LOCAL_LO = 1;
    static final long V6_REMOTE_LO = 2;
    /** A port with no accelerated-port (APBVT) entry of the bring-up: only the entries the tests add steer it. */
    static final int PORT = 21000;

    private final DriverNode d = BringUpTest.listening();
    private final PudaRings ilq = PudaRings.ilq(d);
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(4096);
    private final BytesStore<?, Void> payload = BytesStore.nativeStoreWithFixedCapacity(256);
    private final TcpPacketBuilder b = new TcpPacketBuilder();
    private final List<Integer> lan = new ArrayList<>();

    @BeforeEach
    void up() {
        d.dev.port().setLanSink((s, o, l) -> lan.add(l));
    }

    @AfterEach
    void close() {
        frame.releaseLast();
        payload.releaseLast();
        d.close();
    }

    private void deliver(byte[] f) {
        frame.write(0, f, 0, f.length);
        d.dev.port().receive(frame, 0, f.length);
        d.run();
    }

    private byte[] built(int len) {
        byte[] f = new byte[len];
        frame.read(0, f, 0, len);
        return f;
    }

    /** A SYN from the remote IPv6 address to the local one's {@link #PORT}, untagged. */
    private byte[] v6Syn() {
        b.reset().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE).ipv6(V6_HI, V6_REMOTE_LO, V6_HI, V6_LOCAL_LO);
        b.tcp().ports(40000, PORT).sequenceNumber(9).flags(TcpHeader.SYN).window(100).mss(1440);
        return built(b.build(frame, 0, payload, 0, 0));
    }

    private void listenV6() {
        d.driver.cqp().manageQhash(true, false, new int[] {(int) (V6_HI >>> 32), (int) V6_HI, 0, (int) V6_LOCAL_LO},
                PORT, new int[4], 0, false, -1, d.driver.macAddress(), IrdmaDriver.ILQ_QP);
        d.run();
    }

    @Test
    void anIpv6SegmentBehindAHopByHopHeaderIsNotTakenForTheListener() {
        listenV6();
        byte[] plain = v6Syn();
        deliver(plain);
        assertNotNull(ilq.poll(), "the plain SYN reaches the ILQ");
        // the same SYN behind an 8-byte hop-by-hop header (RFC 8200 §4.3: next header 6, length 0, a PadN of 6)
        byte[] ext = new byte[plain.length + 8];
        System.arraycopy(plain, 0, ext, 0, 14 + 40);
        ext[14 + 6] = 0; // next header: hop-by-hop options
        int payloadLength = (plain[14 + 4] & 0xff) << 8 | plain[14 + 5] & 0xff;
        ext[14 + 4] = (byte) (payloadLength + 8 >>> 8);
        ext[14 + 5] = (byte) (payloadLength + 8);
        byte[] hbh = {6, 0, 1, 4, 0, 0, 0, 0};
        System.arraycopy(hbh, 0, ext, 54, 8);
        System.arraycopy(plain, 54, ext, 62, plain.length - 54);
        deliver(ext);
        assertNull(ilq.poll(), "not the listener's");
        assertEquals(List.of(ext.length), lan, "the LAN side gets it");
    }

    @Test
    void aTagOfAnotherVlanOrCutShortIsNotTakenForTheVlansEntry() {
        d.driver.cqp().manageQhash(true, true, new int[] {BringUpTest.LOCAL}, PORT, new int[1], 0, false, 100,
                d.driver.macAddress(), IrdmaDriver.ILQ_QP);
        d.run();
        b.reset().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE).vlan(5, false, 100)
                .ipv4(BringUpTest.REMOTE, BringUpTest.LOCAL);
        b.tcp().ports(40000, PORT).sequenceNumber(1).flags(TcpHeader.SYN).window(100).mss(1460);
        byte[] onVlan = built(b.build(frame, 0, payload, 0, 0));
        deliver(onVlan);
        assertNotNull(ilq.poll(), "VLAN 100's SYN reaches the ILQ");
        byte[] other = onVlan.clone();
        other[15] = (byte) 200; // VLAN 200, priority 5 kept
        deliver(other);
        assertNull(ilq.poll(), "VLAN 200 is not VLAN 100's entry");
        byte[] cut = java.util.Arrays.copyOf(onVlan, 16); // ends inside the tag
        deliver(cut);
        assertNull(ilq.poll());
        assertEquals(List.of(other.length, 16), lan, "both go to the LAN side");
    }
}
