package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.Link;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** Two model nodes on one simulated link: what A's ILQ sends, B's classifier hands to B's ILQ. */
class TwoNodeWireTest {
    @Test
    void ilqSendOnOneNodeArrivesInTheOtherNodesIlq() {
        SimScheduler sched = new SimScheduler(11);
        List<Long> tapped = new ArrayList<>();
        Link link = new Link(sched, (t, s, o, l) -> tapped.add(t));
        try (DriverNode a = new DriverNode(sched, link, BringUpTest.MAC_REMOTE);
             DriverNode b = new DriverNode(sched, link, BringUpTest.MAC_LOCAL)) {
            List<long[]> received = new ArrayList<>();
            b.driver.attach(new IrdmaDriver.Upcalls() {
                @Override
                public void ilqReceive(BytesStore<?, ?> frame, long offset, int length) {
                    // what cm.c irdma_receive_ilq reads: the segment's ports and sequence number
                    long tcp = offset + EthernetFrame.HEADER_LENGTH + Ipv4Header.MIN_HEADER_LENGTH;
                    received.add(new long[] {NetworkOrder.u16(frame, tcp), NetworkOrder.u16(frame, tcp + 2),
                        NetworkOrder.u32(frame, tcp + 4)});
                }

                @Override
                public void asyncEvent(int qpId, int aeCode) {
                }
            });
            BytesStore<?, Void> f = BytesStore.nativeStoreWithFixedCapacity(2048);
            TcpPacketBuilder pb = new TcpPacketBuilder().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE)
                    .ipv4(BringUpTest.REMOTE, BringUpTest.LOCAL);
            pb.tcp().ports(45000, 20000).sequenceNumber(0xabcdef01L).flags(TcpHeader.SYN).window(1000).mss(1460);
            int len = pb.build(f, 0);
            // gen2: the driver hands the device the TCP segment; A's device adds Ethernet and IPv4 from the AH
            // (utils.c irdma_puda_create_ah, cm.c irdma_form_ah_cm_frame) and its ARP entry (cm.c irdma_add_arp)
            a.driver.cqp().manageArp(0, BringUpTest.MAC_LOCAL, true);
            // B listens on 20000 (cm.c irdma_cm_listen: the port into the APBVT, so the classifier keeps its
            // segments from the LAN; with no qhash entry for the four-tuple a SYN goes to the ILQ)
            b.driver.cqp().manageApbvt(20000, true);
            int ah = a.driver.addressHandles().create(BringUpTest.MAC_LOCAL, 0, 0, false, 0, 64, true, false,
                    new int[] {BringUpTest.LOCAL}, new int[] {BringUpTest.REMOTE});
            long t0 = sched.now();
            int ipAndEthernet = EthernetFrame.HEADER_LENGTH + Ipv4Header.MIN_HEADER_LENGTH;
            assertTrue(a.driver.puda().ilqSend(ah, f, ipAndEthernet, len - ipAndEthernet, 24));
            f.releaseLast();
            a.run();
            assertEquals(1, a.driver.puda().ilqSendsCompleted(), "A's send completed on its ILQ CQ");
            assertEquals(1, b.driver.puda().ilqReceived(), "B's ILQ received it");
            assertEquals(1, received.size());
            assertEquals(45000, received.get(0)[0]);
            assertEquals(20000, received.get(0)[1]);
            assertEquals(0xabcdef01L, received.get(0)[2]);
            assertEquals(1, a.dev.port().txFrames());
            assertEquals(1, b.dev.port().rxPuda());
            assertEquals(1, tapped.size());
            assertTrue(sched.now() > t0);
        }
    }
}
