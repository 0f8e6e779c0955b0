package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.model.port.QuadHashTable;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.OptionalInt;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The hash takeover at RTS (verbs.c irdma_modify_qp to RTS with tcp_ctx_valid sets hte_added; cm.c irdma_accept /
 * irdma_cm_event_connected clear qhash_set, so irdma never deletes the ILQ-pointing established entry): from Modify
 * QP (or Create QP) to RTS with a TCP context the device steers the QP's four-tuple to the QP with no qhash op from
 * the driver, and Destroy QP with REMOVEHASHENTRY (irdma always sets it) drops the entry.
 */
class HashTakeoverTest {
    private static final int LOCAL = BringUpTest.LOCAL;
    private static final int REMOTE = BringUpTest.REMOTE;

    /** The model as the driver brought it up (its ILQ is QP 1), the peer in ARP entry 0 (cm.c irdma_add_arp). */
    private final DriverNode node = new DriverNode();
    private final CqpOps d = new CqpOps(node);
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(2048);
    private LeakCheck.Held baseline;

    @BeforeEach
    void up() {
        node.driver.cqp().manageArp(0, BringUpTest.MAC_REMOTE, true);
        baseline = LeakCheck.snapshot(node.dev);
    }

    @AfterEach
    void close() {
        frame.releaseLast();
        node.close();
    }

    private OptionalInt owner(int remotePort) {
        QuadHashTable qhash = node.dev.quadHash();
        return qhash.findEstablished(IpAddress.IPV4_MAPPED_HI, IpAddress.mappedLo(LOCAL), 20000,
                IpAddress.IPV4_MAPPED_HI, IpAddress.mappedLo(REMOTE), remotePort, -1)
                ? OptionalInt.of(qhash.foundQpn()) : OptionalInt.empty();
    }

    /** An ACK of the connection from the peer, arriving at the port. */
    private void fromPeer(int remotePort, long seq) {
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE)
                .ipv4(REMOTE, LOCAL);
        b.tcp().ports(remotePort, 20000).sequenceNumber(seq).acknowledgmentNumber(100).flags(TcpHeader.ACK)
                .window(29200);
        int len = b.build(frame, 0);
        node.dev.port().receive(frame, 0, len);
        node.run();
    }

    @Test
    void modifyToRtsTakesTheFourTupleFromTheIlqAndDestroyDropsIt() {
        CqpOps.Conn conn = new CqpOps.Conn(LOCAL, 20000, REMOTE, 40001, 100, 5000, -1);
        assertFalse(d.createCq(10, 16, 0, true).error());
        assertFalse(d.createQp(10, 1, QpState.IDLE.code(), false, c -> d.writeIwarpContext(c, 10, 10, conn)).error());
        // cm.c irdma_connect: the CM's established entry points at the ILQ
        assertFalse(d.qhashV4(CqpWqe.QHASH_MANAGE_ADD, LOCAL, 20000, REMOTE, 40001, 1).error());
        assertEquals(OptionalInt.of(1), owner(40001));
        long toIlq = node.driver.puda().ilqReceived();
        fromPeer(40001, 5000);
        assertEquals(toIlq + 1, node.driver.puda().ilqReceived(), "before RTS the ILQ gets the connection's segments");
        int qhashOps = node.sink.of(TraceKind.QHASH).size();
        long ctx = node.alloc(256);
        d.writeIwarpContext(ctx, 10, 10, conn);
        assertFalse(d.modifyQp(10, 1, QpState.RTS.code(), true, ctx).error());
        assertEquals(OptionalInt.of(10), owner(40001), "RTS with the TCP context re-points the entry to the QP");
        assertEquals(baseline.qhashEstablished() + 1, node.dev.quadHash().establishedCount(), "replaced, not added");
        long toQp = node.dev.port().rxQp();
        fromPeer(40001, 5000);
        assertEquals(toQp + 1, node.dev.port().rxQp(), "steered to the QP");
        assertEquals(toIlq + 1, node.driver.puda().ilqReceived(), "not to the ILQ");
        assertEquals(qhashOps + 1, node.sink.of(TraceKind.QHASH).size(), "the device's own change, traced once");
        assertEquals("take_over", node.sink.of(TraceKind.QHASH).get(qhashOps).get("op"));
        // Destroy QP with REMOVEHASHENTRY (verbs.c irdma_destroy_qp -> ctrl.c irdma_sc_qp_destroy)
        assertFalse(d.destroyQp(10, 1, true).error());
        assertEquals(OptionalInt.empty(), owner(40001));
        assertFalse(d.destroyCq(10).error());
        LeakCheck.assertNoLeak(baseline, node.dev, "takeover and destroy");
    }

    @Test
    void createInRtsWithATcpContextInstallsTheEntryAndAQpWithoutTcpDoesNot() {
        CqpOps.Conn conn = new CqpOps.Conn(LOCAL, 20000, REMOTE, 40002, 100, 5000, -1);
        assertFalse(d.createCq(11, 16, 0, true).error());
        assertFalse(d.createQp(11, 1, QpState.RTS.code(), true, c -> d.writeIwarpContext(c, 11, 11, conn)).error());
        assertEquals(OptionalInt.of(11), owner(40002), "no ILQ entry before: the device adds one for the QP");
        long toQp = node.dev.port().rxQp();
        fromPeer(40002, 5000);
        assertEquals(toQp + 1, node.dev.port().rxQp());
        // without REMOVEHASHENTRY the entry stays (the driver then owns its deletion)
        assertFalse(d.destroyQp(11, 1, false).error());
        assertEquals(OptionalInt.of(11), owner(40002));
        assertFalse(d.qhashV4(CqpWqe.QHASH_MANAGE_DELETE, LOCAL, 20000, REMOTE, 40002, 11).error());
        // a QP moved to RTS without a TCP context takes nothing over
        CqpOps.Conn other = new CqpOps.Conn(LOCAL, 20000, REMOTE, 40003, 100, 5000, -1);
        assertFalse(d.createQp(12, 1, QpState.IDLE.code(), false, c -> d.writeIwarpContext(c, 11, 11, other)).error());
        assertFalse(d.modifyQp(12, 1, QpState.RTS.code(), false, 0).error());
        assertEquals(OptionalInt.empty(), owner(40003));
        assertFalse(d.destroyQp(12, 1, true).error());
        assertFalse(d.destroyCq(11).error());
        LeakCheck.assertNoLeak(baseline, node.dev, "create in RTS");
    }
}
