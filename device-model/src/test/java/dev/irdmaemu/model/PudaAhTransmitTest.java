package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.PudaLayout;
import dev.irdmaemu.model.puda.PudaQueues;
import dev.irdmaemu.model.puda.PudaQueues.TxError;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Gen2 ILQ transmit (puda.c irdma_puda_send: AH index in header bits 24:0, L4LEN, a buffer that begins at the TCP
 * header, cm.c irdma_form_ah_cm_frame): the device builds Ethernet (destination from the AH's ARP entry, source
 * from the AH, 802.1Q tag and PCP when the AH inserts one), IPv4 (TOS, TTL, identification, DF, header checksum) or
 * IPv6 (traffic class, flow label, hop limit) and the TCP checksum, each checked with the firmware-iface decoders;
 * a loopback AH delivers into the own ILQ; hostile sends complete with an error CQE and a trace line. The AHs and
 * sends are the real driver's (utils.c irdma_puda_create_ah, puda.c irdma_puda_send) where the CM would make them;
 * an AH the CM never makes (a flow label, another hop limit) and the hostile sends are written past it.
 */
class PudaAhTransmitTest {
    private static final long OWN_MAC = BringUpTest.MAC_REMOTE;
    private static final long PEER_MAC = BringUpTest.MAC_LOCAL;
    private static final int OWN = BringUpTest.REMOTE;
    private static final int PEER = BringUpTest.LOCAL;
    private static final long V6_OWN_HI = 0x2001_0db8_0000_0001L;
    private static final long V6_PEER_HI = 0x2001_0db8_0000_0002L;

    private final DriverNode d = BringUpTest.listening();
    private final PudaRings ilq = PudaRings.ilq(d);
    private final BytesStore<?, Void> seg = BytesStore.nativeStoreWithFixedCapacity(2048);
    private final List<byte[]> wire = new ArrayList<>();
    private LeakCheck.Held baseline;

    @BeforeEach
    void up() {
        d.dev.port().setTransmitter((s, o, l) -> {
            byte[] b = new byte[l];
            s.read(o, b, 0, l);
            wire.add(b);
        });
        d.driver.cqp().manageArp(3, PEER_MAC, true);
        baseline = LeakCheck.snapshot(d.dev);
    }

    @AfterEach
    void close() {
        seg.releaseLast();
        d.close();
    }

    /** A SYN with MSS and window scale and {@code payload} bytes after it; answers the segment length. */
    private int segment(int payload) {
        TcpHeader.Builder t = new TcpHeader.Builder().ports(20000, 40000).sequenceNumber(0x1234_5678L)
                .acknowledgmentNumber(0).flags(TcpHeader.SYN).window(29200).mss(1460).windowScale(7)
                .packedWithEndOfList(true);
        int h = t.write(seg, 0);
        for (int i = 0; i < payload; i++) {
            seg.writeByte(h + i, (byte) (i * 3));
        }
        return h + payload;
    }

    private long buffer(int len) {
        long buf = d.alloc(2048);
        d.store().write(d.off(buf), seg, 0, len);
        return buf;
    }

    private TcpPacket sent(int i) {
        byte[] f = wire.get(i);
        TcpPacket p = new TcpPacket().wrap(BytesStore.wrap(f), 0, f.length);
        assertEquals(TcpPacket.Status.ACCEPTED, p.validate(), "IPv4 header and TCP checksums verify");
        return p;
    }

    /** An IPv4 AH to PEER as cm.c irdma_cm_create_ah makes one (TTL 0x40), through the driver; answers its index. */
    private int ah(int tos, int tci, boolean vlan, boolean loopback, int arp) {
        int ah = d.driver.addressHandles().create(OWN_MAC, tos, tci, vlan, arp, 64, true, loopback, new int[] {PEER},
                new int[] {OWN});
        assertTrue(d.driver.addressHandles().valid(ah));
        return ah;
    }

    /** utils.c irdma_puda_free_ah: DESTROY_ADDR_HANDLE posted without waiting; the model run until it is done. */
    private void destroyAh(int index) {
        d.driver.addressHandles().destroy(index);
        d.run();
        assertNull(d.dev.addressHandles().get(index));
    }

    /** puda.c irdma_puda_send through the driver: the segment copied into its send buffer. */
    private void send(int len, int ahId) {
        assertTrue(d.driver.puda().ilqSend(ahId, seg, 0, len, 28));
    }

    private Cqe sqCompletion() {
        Cqe c = ilq.poll();
        assertNotNull(c);
        assertTrue(c.sq());
        return c;
    }

    @Test
    void ipv4WithVlanAndPriorityIsBuiltFromTheAhAndItsArpEntry() {
        // cm.c irdma_cm_create_ah: TOS, TTL 0x40, TCI = vlan_id | user_pri << 13
        int ah = ah(0x28, 5 << 13 | 100, true, false, 3);
        int len = segment(40);
        send(len, ah);
        send(len, ah);
        d.run();
        assertEquals(2, wire.size());
        TcpPacket p = sent(0);
        assertEquals(PEER_MAC, p.ethernet().destination(), "next hop from ARP entry 3");
        assertEquals(OWN_MAC, p.ethernet().source(), "source MAC from the AH");
        assertTrue(p.ethernet().hasVlanTag());
        assertEquals(100, p.vlanId());
        assertEquals(5, p.ethernet().pcp());
        assertFalse(p.isIpv6());
        assertEquals(0x28, p.ipv4().tos());
        assertEquals(64, p.ipv4().ttl());
        assertTrue(p.ipv4().dontFragment());
        assertEquals(OWN, p.ipv4().source());
        assertEquals(PEER, p.ipv4().destination());
        assertEquals(20000, p.tcp().sourcePort());
        assertEquals(0x1234_5678L, p.tcp().sequenceNumber());
        assertEquals(1460, p.tcp().mss());
        assertEquals(40, (int) p.tcpPayloadLength());
        int id0 = p.ipv4().identification();
        assertEquals(id0 + 1 & 0xffff, sent(1).ipv4().identification(), "the device numbers its datagrams");
        assertFalse(sqCompletion().error());
        assertFalse(sqCompletion().error());
        destroyAh(ah);
        LeakCheck.assertNoLeak(baseline, d.dev, "PUDA AH transmit");
    }

    @Test
    void ipv6CarriesTrafficClassFlowLabelAndHopLimit() {
        int[] dst = {(int) (V6_PEER_HI >>> 32), (int) V6_PEER_HI, 0, 9};
        int[] src = {(int) (V6_OWN_HI >>> 32), (int) V6_OWN_HI, 0, 7};
        // a flow label and hop limit 17: irdma_cm_create_ah sets neither, so this AH is written past the driver, at
        // the last index the commit holds (the driver's bitmap hands out the lowest free ones)
        int index = (int) d.driver.hmc().committedCount(HmcObjectType.FSIAV) - 1;
        assertFalse(d.driver.addressHandles().valid(index));
        assertFalse(d.op("CREATE_ADDR_HANDLE", (o, v) -> CqpWqeWriter.addressHandle(d.store(), o,
                CqpOpcode.CREATE_ADDR_HANDLE, index, OWN_MAC, 0, 0xb8, 0, false, 3, 0xabcde, 17, false, false, dst,
                src, v)).error());
        int len = segment(0);
        send(len, index);
        d.run();
        TcpPacket p = sent(0);
        assertTrue(p.isIpv6());
        assertFalse(p.ethernet().hasVlanTag());
        assertEquals(0xb8, p.ipv6().trafficClass());
        assertEquals(0xabcde, p.ipv6().flowLabel());
        assertEquals(17, p.ipv6().hopLimit());
        assertEquals(V6_OWN_HI, p.sourceHi());
        assertEquals(7, p.sourceLo());
        assertEquals(V6_PEER_HI, p.destinationHi());
        assertEquals(9, p.destinationLo());
        assertFalse(sqCompletion().error());
    }

    @Test
    void aLoopbackAhDeliversIntoTheOwnIlqAndNothingGoesOnTheWire() {
        // the segment is addressed to our own listener (cm.c irdma_ipv4_is_lpb: source == destination)
        int ah = d.driver.addressHandles().create(OWN_MAC, 0, 0, false, 3, 64, true, true, new int[] {OWN},
                new int[] {OWN});
        d.driver.cqp().manageQhash(true, true, new int[] {OWN}, 40000, new int[1], 0, false, -1, d.driver.macAddress(),
                IrdmaDriver.ILQ_QP);
        int len = segment(12);
        send(len, ah);
        d.run();
        assertTrue(wire.isEmpty(), "a loopback frame never reaches the wire");
        assertEquals(1, d.dev.puda().loopedBack());
        Cqe first = ilq.poll();
        Cqe second = ilq.poll();
        assertNotNull(first);
        assertNotNull(second);
        Cqe rx = first.sq() ? second : first;
        assertFalse(rx.sq());
        assertFalse(rx.error());
        long mem = d.off(ilq.rxBuffer(rx.wqeIndex()));
        assertEquals(20000, NetworkOrder.u16(d.store(), mem + PudaLayout.TCP_OFFSET));
        assertEquals(40000, NetworkOrder.u16(d.store(), mem + PudaLayout.TCP_OFFSET + 2));
        assertEquals(1, d.dev.port().rxPuda());
        assertEquals(1, d.driver.puda().ilqReceived(), "the driver took it from its ILQ");
    }

    private void assertRefused(TxError why, Runnable send) {
        long errors = d.dev.puda().transmitErrors(why);
        int drops = d.sink.of(TraceKind.PUDA_DROP).size();
        send.run();
        d.run();
        Cqe c = sqCompletion();
        assertTrue(c.error(), why.name());
        assertEquals(PudaQueues.TX_ERROR_MAJOR, c.majorError());
        assertEquals(why.minor(), c.minorError());
        assertEquals(errors + 1, d.dev.puda().transmitErrors(why));
        var trace = d.sink.of(TraceKind.PUDA_DROP);
        assertEquals(drops + 1, trace.size());
        assertEquals(why.name(), trace.get(trace.size() - 1).get("reason"));
        assertTrue(wire.isEmpty(), why + ": nothing on the wire");
    }

    @Test
    void hostileSendsCompleteWithTheirErrorAndSendNothing() {
        // the send WQEs below are what irdma_puda_send never writes: written past the driver into its ILQ's SQ
        int ah = ah(0, 0, false, false, 3);
        int len = segment(8);
        long good = buffer(len);
        assertFalse(d.driver.addressHandles().valid(9));
        assertRefused(TxError.INVALID_AH, () -> ilq.send(good, len, 28, 9));
        assertRefused(TxError.INVALID_AH, () -> ilq.send(good, len, 28, 0x1ff_ffff));
        assertRefused(TxError.BAD_L4LEN, () -> ilq.send(good, 24, 28, ah));
        assertRefused(TxError.BAD_L4LEN, () -> ilq.send(good, len, 16, ah));
        assertRefused(TxError.BAD_TCP_HEADER, () -> ilq.send(good, len, 20, ah));
        assertRefused(TxError.DMA_FAULT, () -> ilq.send(DriverNode.UNMAPPED, len, 28, ah));
        // data offset 4 (below the minimum) in the buffer's own header
        d.store().writeByte(d.off(good) + 12, (byte) 0x40);
        assertRefused(TxError.BAD_TCP_HEADER, () -> ilq.send(good, len, 28, ah));
        // an AH whose ARP entry is not valid (and not loopback)
        int noArp = ah(0, 0, false, false, 20);
        assertRefused(TxError.NO_ARP_ENTRY, () -> ilq.send(buffer(len), len, 28, noArp));
        // an AH destroyed under the send
        destroyAh(ah);
        assertRefused(TxError.INVALID_AH, () -> ilq.send(buffer(len), len, 28, ah));
        destroyAh(noArp);
        LeakCheck.assertNoLeak(baseline, d.dev, "PUDA AH transmit");
    }
}
