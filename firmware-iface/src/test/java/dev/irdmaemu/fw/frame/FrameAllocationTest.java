package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The parse and build paths allocate nothing. Measured with HotSpot's per-thread allocation counter
 * ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}), not with time: after a warm-up so the
 * code is compiled, 10,000 calls must not move the counter beyond what two reads of the counter itself
 * cost (measured first, in the same way, and subtracted). Any real per-call allocation would be at least
 * 16 bytes a call, 160,000 bytes in all, so the bound below cannot hide one.
 */
class FrameAllocationTest {
    private static final int CALLS = 10_000;

    private BytesStore<?, Void> v4;
    private BytesStore<?, Void> v6;
    private BytesStore<?, Void> out;
    private BytesStore<?, Void> payload;
    private int v4Length;
    private int v6Length;

    private final TcpPacket packet = new TcpPacket();
    private final ArpPacket arp = new ArpPacket();
    private final IcmpMessage icmp = new IcmpMessage();
    private BytesStore<?, Void> lan;
    private final TcpPacketBuilder builder = new TcpPacketBuilder();
    private final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private long sink;
    private Object escape;

    @BeforeEach
    void frames() {
        v4 = BytesStore.nativeStoreWithFixedCapacity(2048);
        v6 = BytesStore.nativeStoreWithFixedCapacity(2048);
        out = BytesStore.nativeStoreWithFixedCapacity(2048);
        payload = BytesStore.nativeStoreWithFixedCapacity(1024);
        for (int i = 0; i < 1000; i++) {
            payload.writeByte(i, (byte) i);
        }
        builder.reset().ethernet(TcpPacketTest.MAC_B, TcpPacketTest.MAC_A).ipv4(TcpPacketTest.V4_A, TcpPacketTest.V4_B);
        builder.tcp().ports(50000, 4433).sequenceNumber(1).acknowledgmentNumber(2).flags(TcpHeader.ACK)
                .window(1000).timestamps(3, 4);
        v4Length = builder.build(v4, 0, payload, 0, 1000);
        builder.reset().ethernet(TcpPacketTest.MAC_B, TcpPacketTest.MAC_A).vlan(3, false, 42)
                .ipv6(TcpPacketTest.V6_HI, 1, TcpPacketTest.V6_HI, 2);
        builder.tcp().ports(50000, 4433).flags(TcpHeader.SYN).mss(1440).windowScale(7).sackPermitted(true)
                .timestamps(5, 6);
        v6Length = builder.build(v6, 0);
        lan = BytesStore.nativeStoreWithFixedCapacity(256);
    }

    @AfterEach
    void release() {
        v4.releaseLast();
        v6.releaseLast();
        out.releaseLast();
        payload.releaseLast();
        lan.releaseLast();
    }

    private long allocated() {
        return threads.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    private void parseBoth() {
        if (!packet.wrap(v4, 0, v4Length).validate().accepted()) {
            throw new AssertionError("IPv4 frame rejected");
        }
        sink += packet.tcp().sequenceNumber() + packet.tcpPayloadLength() + packet.sourceLo() + packet.tcp().tsVal();
        if (!packet.wrap(v6, 0, v6Length).validate().accepted()) {
            throw new AssertionError("IPv6 frame rejected");
        }
        sink += packet.tcp().mss() + packet.vlanId() + packet.destinationLo() + packet.tcp().windowScale();
        // and a rejected one: the failure path must not allocate either
        sink += packet.wrap(v6, 0, 57).validate().ordinal() + packet.failedAt();
    }

    private void buildOne() {
        builder.tcp().sequenceNumber(sink);
        sink += builder.build(out, 0);
    }

    private long measure(Runnable body) {
        for (int i = 0; i < 3 * CALLS; i++) {
            body.run();
        }
        long overhead = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long a = allocated();
            long b = allocated();
            overhead = Math.min(overhead, b - a);
        }
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 3; round++) { // the least of three: a GC or JIT event cannot add to all
            long before = allocated();
            for (int i = 0; i < CALLS; i++) {
                body.run();
            }
            best = Math.min(best, allocated() - before - overhead);
        }
        return best;
    }

    @Test
    void validatingFramesAllocatesNothing() {
        assertTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);
        long bytes = measure(this::parseBoth);
        assertEquals(0, bytes / CALLS, "bytes allocated per validate: " + bytes + " in " + CALLS + " calls");
        assertTrue(bytes < 1024, "bytes allocated in " + CALLS + " calls: " + bytes);
    }

    @Test
    void buildingFramesAllocatesNothing() {
        threads.setThreadAllocatedMemoryEnabled(true);
        long bytes = measure(this::buildOne);
        assertEquals(0, bytes / CALLS, "bytes allocated per build: " + bytes + " in " + CALLS + " calls");
        assertTrue(bytes < 1024, "bytes allocated in " + CALLS + " calls: " + bytes);
        assertEquals(TcpPacket.Status.ACCEPTED, packet.wrap(out, 0, v6Length).validate());
    }

    /** What the LAN function does per frame: answer an ARP request, an echo, a solicitation, with the codecs. */
    private void arpAndIcmp() {
        ArpPacket.write(lan, 0, ArpPacket.REQUEST, TcpPacketTest.MAC_A, TcpPacketTest.V4_A, 0, TcpPacketTest.V4_B);
        if (!arp.wrap(lan, 0, ArpPacket.LENGTH).validate().accepted()) {
            throw new AssertionError("ARP request rejected");
        }
        sink += ArpPacket.write(lan, 32, ArpPacket.REPLY, TcpPacketTest.MAC_B, arp.targetIp(), arp.senderMac(),
                arp.senderIp());
        IcmpMessage.writeEchoHeader(lan, 64, IcmpMessage.ECHO_REQUEST, (int) sink & 0xffff, 1);
        IcmpMessage.writeChecksum(lan, 64, 56, 0);
        if (!icmp.wrap(lan, 64, 56).validateV4().accepted()) {
            throw new AssertionError("echo rejected");
        }
        sink += icmp.identifier() + icmp.sequence();
        long pseudo = InternetChecksum.ipv6PseudoHeaderSum(TcpPacketTest.V6_HI, 1, TcpPacketTest.V6_HI, 2, 32,
                IcmpMessage.PROTOCOL_ICMPV6);
        IcmpMessage.writeNeighborAdvertisement(lan, 128, IcmpMessage.FLAG_SOLICITED, TcpPacketTest.V6_HI, 1,
                TcpPacketTest.MAC_A);
        IcmpMessage.writeChecksum(lan, 128, 32, pseudo);
        if (!icmp.wrap(lan, 128, 32).validateV6(TcpPacketTest.V6_HI, 1, TcpPacketTest.V6_HI, 2).accepted()
                || !icmp.validateNeighborDiscovery(255, false, false, false).accepted()) {
            throw new AssertionError("advertisement rejected");
        }
        sink += icmp.linkLayerOption(IcmpMessage.OPTION_TARGET_LINK_LAYER) + icmp.targetLo();
        // and the failure paths
        sink += arp.wrap(lan, 0, 27).validate().ordinal() + arp.failedAt();
        sink += icmp.validateNeighborDiscovery(64, false, false, false).ordinal() + icmp.failedAt();
    }

    @Test
    void arpAndIcmpAllocateNothing() {
        threads.setThreadAllocatedMemoryEnabled(true);
        long bytes = measure(this::arpAndIcmp);
        assertEquals(0, bytes / CALLS, "bytes allocated per round: " + bytes + " in " + CALLS + " calls");
        assertTrue(bytes < 1024, "bytes allocated in " + CALLS + " calls: " + bytes);
    }

    @Test
    void theMeasurementSeesAnAllocationOfSixteenBytesACall() {
        // The same harness around a body that allocates one escaping object a call: the counter must show
        // it, so a zero above is a measurement, not a blind instrument.
        threads.setThreadAllocatedMemoryEnabled(true);
        long bytes = measure(() -> escape = new Object());
        assertTrue(bytes >= 16L * CALLS, "expected at least 16 bytes a call, counted " + bytes);
    }
}
