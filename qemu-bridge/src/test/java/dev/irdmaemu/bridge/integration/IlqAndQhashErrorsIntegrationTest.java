package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.model.ModelPair;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.ConnectParams;
import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.model.puda.PudaQueues;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** The error paths the driver layer must see as the device defines them. */
class IlqAndQhashErrorsIntegrationTest {
    private static final int PORT = 4791;

    @Test
    void anIlqWithoutPostedBuffersDropsAndCountsEveryFrame() {
        RecordingTraceSink sinkB = new RecordingTraceSink();
        try (ModelPair pair = new ModelPair(1, FrameTap.NONE, null, sinkB, d -> { },
                IrdmaDriver::withoutIlqReceiveBuffers)) {
            List<CmEventType> server = new ArrayList<>();
            List<CmEventType> client = new ArrayList<>();
            pair.b.cm.listen(CmPair.B_V4.withPort(PORT), 8, e -> server.add(e.type()));
            pair.a.cm.connect(CmPair.A_V4.withPort(50000), CmPair.B_V4.withPort(PORT),
                    ConnectParams.of(new byte[0], 4, 4), e -> client.add(e.type()));
            // the SYN and the CM's retransmissions of it (RETRY_TIMEOUT 1 s, doubling) within 4 s
            pair.scheduler.runFor(4_000_000_000L);
            long drops = pair.b.device.puda().drops(PudaQueues.Drop.NO_BUFFER);
            assertTrue(drops >= 2, "SYN and at least one retransmission dropped: " + drops);
            assertEquals(drops, pair.b.device.puda().totalDrops());
            assertEquals(0, pair.b.device.puda().received());
            assertEquals(0, pair.b.port.framesToCm(), "nothing reached B's CM");
            assertEquals(List.of(), server);
            var dropEvents = sinkB.of(TraceKind.PUDA_DROP);
            assertEquals(drops, dropEvents.size());
            assertEquals(drops, pair.b.device.port().rxFrames(), "every frame B received was one of those");
            assertTrue(pair.a.cm.retransmissions() >= 1);
        }
    }

    @Test
    void aQhashEntryNamingANonexistentQpGetsTheDefinedErrors() {
        RecordingTraceSink sinkA = new RecordingTraceSink();
        try (ModelPair pair = new ModelPair(1, FrameTap.NONE, sinkA, null, d -> { }, d -> { })) {
            IrdmaDriver a = pair.a.driver;
            int local = (int) CmPair.A_V4.addressLo();
            int remote = (int) CmPair.B_V4.addressLo();
            // beyond the committed QP count: the CQP refuses the op (model CqpFault.INDEX_OUT_OF_RANGE)
            int committed = (int) a.hmc().committedCount(HmcObjectType.QP);
            CqpException e = assertThrows(CqpException.class, () -> a.cqp().manageQhash(true, true, new int[] {local},
                    PORT, new int[] {remote}, 40000, true, -1, CmPair.MAC_A, committed));
            assertEquals(CqpException.Kind.OP_ERROR, e.kind());
            assertEquals("MANAGE_QUAD_HASH_TABLE_ENTRY", e.op());
            assertEquals(CqpFault.INDEX_OUT_OF_RANGE.major(), e.major());
            assertEquals(CqpFault.INDEX_OUT_OF_RANGE.minor(), e.minor());
            assertEquals(0, pair.a.device.quadHash().establishedCount());
            // within the count but no such QP: the entry is accepted, and a matching segment raises AMP_BAD_QP
            int ghost = committed - 1;
            a.cqp().manageQhash(true, true, new int[] {local}, PORT, new int[] {remote}, 40000, true, -1, CmPair.MAC_A,
                    ghost);
            assertEquals(1, pair.a.device.quadHash().establishedCount());
            TcpPacketBuilder b = new TcpPacketBuilder();
            BytesStore<?, ?> frame = BytesStore.wrap(new byte[128]);
            b.reset().ethernet(CmPair.MAC_A, CmPair.MAC_B).ipv4(remote, local).ttl(64);
            b.tcp().reset().ports(40000, PORT).sequenceNumber(1000).acknowledgmentNumber(2000).flags(TcpHeader.ACK)
                    .window(100);
            int len = b.build(frame, 0);
            sinkA.clear();
            pair.b.wire.transmit(frame, 0, len);
            assertTrue(pair.runUntilIdle(1_000_000_000L));
            assertEquals(1, pair.a.device.port().rxBadQp());
            assertEquals(1, pair.a.port.badQpEvents(), "the AE reached the driver and the port");
            assertEquals(0, pair.a.port.framesToCm());
            var aes = sinkA.of(TraceKind.AEQE);
            assertEquals(1, aes.size());
            assertEquals(AeCode.AMP_BAD_QP.code(), Integer.decode(aes.get(0).get("ae")).intValue());
            assertEquals(String.valueOf(ghost), aes.get(0).get("id"));
            assertEquals(IpAddress.IPV4_MAPPED_HI, CmPair.A_V4.addressHi());
        }
    }
}
