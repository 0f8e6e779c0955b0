package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The driver's CEQ handling, per CEQE as hw.c irdma_process_ceq dispatches it: each CEQE acknowledged with
 * PFPE_CQACK, the CCQ's handled and re-armed alone (irdma_cqp_ce_handler), a PUDA CQ's polled and re-armed alone
 * when its own CEQE comes (irdma_puda_ce_handler), and only the raised vector re-enabled (irdma_ceq_dpc /
 * irdma_dpc). Counted from the model's register trace.
 */
class CeqDispatchTest {
    private static final long MAC_LOCAL = 0x02_00_00_00_00_01L;
    private static final long MAC_PEER = 0x02_00_00_00_00_02L;
    private static final int LOCAL = 0xc0a8_0001;
    private static final int PEER = 0xc0a8_0002;
    private final DriverNode d = new DriverNode();

    @AfterEach
    void close() {
        d.close();
    }

    /** The register writes since the sink was cleared, as "REG[idx]=value" -> count. */
    private Map<String, Integer> writes() {
        Map<String, Integer> m = new TreeMap<>();
        for (RecordingTraceSink.Recorded e : d.sink.of(TraceKind.REG_WRITE)) {
            String reg = e.get("reg");
            String key = switch (reg) {
                case "CQPDB" -> reg;
                case "GLINT_DYN_CTL" -> reg + "[" + e.get("idx") + "]";
                default -> reg + "=" + e.get("val");
            };
            m.merge(key, 1, Integer::sum);
        }
        return m;
    }

    private int ceqes(int cq) {
        return (int) d.sink.of(TraceKind.CEQE).stream().filter(e -> String.valueOf(cq).equals(e.get("cq"))).count();
    }

    @Test
    void aWaitedNopCostsFourRegisterWritesAndReArmsOnlyTheCcq() {
        d.run();
        d.sink.clear();
        int n = 100;
        for (int i = 0; i < n; i++) {
            d.driver.cqp().nop();
            d.run();
        }
        // the doorbell; then, from the CCQ's CEQE: its acknowledgement, the CCQ's arm, CEQ 0's vector. The PUDA
        // CQs and the AEQ's vector are left alone (before: both PUDA CQs re-armed and both vectors re-enabled on
        // every interrupt, six writes per NOP).
        assertEquals(Map.of("CQPDB", n, "CQACK=0x0", n, "CQARM=0x0", n,
                "GLINT_DYN_CTL[" + IrdmaDriver.CEQ0_VECTOR + "]", n), writes());
        assertEquals(n, ceqes(IrdmaDriver.CCQ_ID));
    }

    @Test
    void anIlqSendCompletionReArmsTheIlqCqAloneAndAcknowledgesIt() {
        d.driver.cqp().manageArp(0, MAC_PEER, true);
        int ah = d.driver.addressHandles().create(MAC_PEER, 0, 0, false, 0, 64, true, false, new int[] {PEER},
                new int[] {LOCAL});
        d.run();
        d.sink.clear();
        long sent = d.driver.puda().ilqSendsCompleted();
        BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(256);
        BytesStore<?, Void> payload = BytesStore.nativeStoreWithFixedCapacity(16);
        int len = new TcpPacketBuilder().reset().ethernet(MAC_PEER, MAC_LOCAL).ipv4(LOCAL, PEER)
                .build(frame, 0, payload, 0, 0);
        int at = EthernetFrame.HEADER_LENGTH + Ipv4Header.MIN_HEADER_LENGTH;
        assertTrue(d.driver.puda().ilqSend(ah, frame, at, len - at, 20));
        d.run();
        assertEquals(sent + 1, d.driver.puda().ilqSendsCompleted(), "the send's CQE was polled");
        assertEquals(1, ceqes(IrdmaDriver.ILQ_QP));
        assertEquals(0, ceqes(IrdmaDriver.IEQ_QP));
        assertEquals(0, ceqes(IrdmaDriver.CCQ_ID));
        assertEquals(Map.of("WQEALLOC=0x" + IrdmaDriver.ILQ_QP, 1, "CQACK=0x" + IrdmaDriver.ILQ_QP, 1,
                "CQARM=0x" + IrdmaDriver.ILQ_QP, 1, "GLINT_DYN_CTL[" + IrdmaDriver.CEQ0_VECTOR + "]", 1), writes());
        frame.releaseLast();
        payload.releaseLast();
    }

    @Test
    void everyArmOfTheCcqAndThePudaCqsFollowsACeqeNamingIt() {
        // a run of mixed work: waited ops, requests posted without waiting, ILQ sends; each CQ re-armed exactly
        // as often as a CEQE named it
        d.driver.cqp().manageArp(0, MAC_PEER, true);
        d.run();
        d.sink.clear();
        for (int i = 0; i < 20; i++) {
            d.driver.cqp().nop();
            d.driver.cqp().post("NOP", (o, v) -> dev.irdmaemu.fw.cqp.CqpWqeWriter.nop(d.store(), o, v),
                    (err, ma, mi, ret) -> { });
            int ah = d.driver.addressHandles().create(MAC_PEER, 0, 0, false, 0, 64, true, false, new int[] {PEER},
                    new int[] {LOCAL});
            d.driver.addressHandles().destroy(ah);
            d.run();
        }
        d.run();
        assertEquals(0, d.driver.cqp().requestsPending());
        Map<String, Integer> w = writes();
        for (int cq : List.of(IrdmaDriver.CCQ_ID, IrdmaDriver.ILQ_QP, IrdmaDriver.IEQ_QP)) {
            String id = "=0x" + Integer.toHexString(cq);
            assertEquals(ceqes(cq), w.getOrDefault("CQARM" + id, 0), "arms of CQ " + cq + ": " + w);
            assertEquals(ceqes(cq), w.getOrDefault("CQACK" + id, 0), "acks of CQ " + cq + ": " + w);
        }
        assertTrue(ceqes(IrdmaDriver.CCQ_ID) > 0);
    }
}
