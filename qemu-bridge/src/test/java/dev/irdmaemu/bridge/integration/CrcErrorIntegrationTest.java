package dev.irdmaemu.bridge.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.decode.FrameSummarizer;
import dev.irdmaemu.cm.CmEvent;
import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * A corruption that no TCP checksum catches (two 16-bit words of an RDMA Write's payload swapped on the way, which
 * leaves the one's-complement sum as it was, RFC 1071) is caught by the MPA CRC (RFC 5044 §8): the receiving QP
 * places none of the FPDU, raises IRDMA_AE_LLP_RECEIVED_MPA_CRC_ERROR, its driver terminates the connection and
 * the peer receives the Terminate (LLP layer, MPA error, CRC error code) and its AE; both connections end.
 */
class CrcErrorIntegrationTest {
    private static final long LIMIT = 60_000_000_000L;
    private static final byte SENTINEL = (byte) 0xee;
    /** Which tagged FPDU from A to B the relay damages (well into the stream, not the first). */
    private static final int VICTIM = 20;
    /** Payload offsets (from the TCP payload, so both even: the checksum's words) of the two words swapped. */
    private static final int P = 60;
    private static final int Q = 300;
    /** MPA length (2), DDP and RDMAP control (2), STag (4), tagged offset (8): where a tagged FPDU's data starts. */
    private static final int TAGGED_HEADER = 16;

    private final RecordingTraceSink traceA = new RecordingTraceSink();
    private final RecordingTraceSink traceB = new RecordingTraceSink();
    private final List<String> wire = new ArrayList<>();
    private final FrameSummarizer summarizer = new FrameSummarizer();
    private int tagged;
    private long victimTo = -1;
    private int wordP;
    private int wordQ;

    /** The relay: counts tagged FPDUs going to B and swaps two words of the victim's payload. */
    private void carry(boolean toB, BytesStore<?, ?> s, long o, int l) {
        if (!toB || victimTo >= 0 || l < 14 + 20 + 20 + Q + 2 || s.readUnsignedShort(o + 12) != 0x0008) {
            return;
        }
        int ip = 14;
        int ihl = (s.readByte(o + ip) & 0x0f) * 4;
        int tcp = ip + ihl;
        int doff = ((s.readByte(o + tcp + 12) & 0xff) >>> 4) * 4;
        int payload = tcp + doff;
        int payloadLength = l - payload;
        boolean taggedFpdu = (s.readByte(o + payload + 2) & 0x80) != 0;
        if (payloadLength < Q + 2 || !taggedFpdu || ++tagged < VICTIM) {
            return;
        }
        int a = s.readUnsignedShort(o + payload + P);
        int b = s.readUnsignedShort(o + payload + Q);
        if (a == b) {
            tagged--;
            return;
        }
        s.writeUnsignedShort(o + payload + P, b);
        s.writeUnsignedShort(o + payload + Q, a);
        wordP = a;
        wordQ = b;
        long to = 0;
        for (int i = 0; i < 8; i++) {
            to = to << 8 | (s.readByte(o + payload + 8 + i) & 0xff);
        }
        victimTo = to;
    }

    private static int aeCount(RecordingTraceSink sink, AeCode code, int qp) {
        int n = 0;
        for (RecordingTraceSink.Recorded r : sink.of(TraceKind.AEQE)) {
            if (Integer.decode(r.get("ae")) == code.code() && Integer.parseInt(r.get("id")) == qp) {
                n++;
            }
        }
        return n;
    }

    /** {@code first} then {@code then} among {@code qp}'s AEs. */
    private static boolean aeAfter(RecordingTraceSink sink, AeCode first, AeCode then, int qp) {
        boolean seen = false;
        for (RecordingTraceSink.Recorded r : sink.of(TraceKind.AEQE)) {
            if (Integer.parseInt(r.get("id")) != qp) {
                continue;
            }
            int ae = Integer.decode(r.get("ae"));
            seen |= ae == first.code();
            if (seen && ae == then.code()) {
                return true;
            }
        }
        return false;
    }

    private static boolean closed(List<CmEvent> events) {
        return BulkTransfer.has(events, CmEventType.CLOSE);
    }

    @Test
    void aCorruptedWriteIsNeverPlacedTheReceiverTerminatesAndThePeerHearsIt() {
        try (TwoNodes nodes = TwoNodes.relayed(this::carry, (t, s, o, l) -> {
            StringBuilder sb = new StringBuilder();
            summarizer.summarize(s, o, l, sb);
            wire.add(sb.toString());
        }, t -> t.enable(traceA, TraceKind.AEQE), t -> t.enable(traceB, TraceKind.AEQE))) {
            int window = 1 << 20;
            BulkTransfer t = new BulkTransfer(nodes, window);
            assertTrue(t.connect(LIMIT), t.aEvents.toString());
            for (int i = 0; i < window; i++) {
                t.b.store.writeByte(t.b.offset + i, SENTINEL);
            }
            assertFalse(t.transfer(true, window, 64 << 10, LIMIT), "the transfer cannot complete");
            assertTrue(victimTo >= 0, "the relay damaged an FPDU (" + tagged + " tagged seen)");
            assertTrue(nodes.runUntil(() -> closed(t.aEvents) && closed(t.bEvents), LIMIT),
                    "both connections end: " + t.aEvents + " / " + t.bEvents);

            // the receiving QP: the CRC AE, then its Terminate; the peer: the Terminate received
            QueuePair qa = t.a.qp;
            QueuePair qb = t.b.qp;
            assertEquals(1, aeCount(traceB, AeCode.LLP_RECEIVED_MPA_CRC_ERROR, qb.id()), traceB.of(TraceKind.AEQE)
                    .toString());
            assertTrue(aeAfter(traceB, AeCode.LLP_RECEIVED_MPA_CRC_ERROR, AeCode.TERMINATE_SENT, qb.id()),
                    "B's driver terminated (Modify QP to TERMINATE) and the device sent the Terminate: "
                            + traceB.of(TraceKind.AEQE));
            String term = wire.stream().filter(f -> f.contains("Terminate (")).findFirst().orElse("none");
            assertTrue(term.contains("192.0.2.2 → 192.0.2.1"), term);
            assertTrue(term.contains("Terminate (layer LLP, type MPA, code CRC error)"), term);
            assertEquals(1, aeCount(traceA, AeCode.LLP_TERMINATE_RECEIVED, qa.id()), traceA.of(TraceKind.AEQE)
                    .toString());
            assertEquals(CmReason.TERMINATED, t.aEvents.get(t.aEvents.size() - 1).reason(), t.aEvents.toString());
            assertEquals(CmReason.TERMINATED, t.bEvents.get(t.bEvents.size() - 1).reason(), t.bEvents.toString());
            assertFalse(t.failure.isEmpty());

            // no corrupted byte was placed: every sink byte is the source's or still the sentinel, and the two
            // swapped words never reached their places
            byte[] src = new byte[window];
            byte[] dst = new byte[window];
            t.a.store.read(t.a.offset, src, 0, window);
            t.b.store.read(t.b.offset, dst, 0, window);
            int placed = 0;
            for (int i = 0; i < window; i++) {
                assertTrue(dst[i] == src[i] || dst[i] == SENTINEL, "sink byte " + i + " is neither");
                placed += dst[i] == src[i] && src[i] != SENTINEL ? 1 : 0;
            }
            assertTrue(placed > (VICTIM - 1) * 1000, "the FPDUs before the victim were placed: " + placed);
            long atP = victimTo + P - TAGGED_HEADER - t.b.mr.address();
            long atQ = victimTo + Q - TAGGED_HEADER - t.b.mr.address();
            assertTrue(atP >= 0 && atQ < window, victimTo + " in " + t.b.mr);
            int gotP = (dst[(int) atP] & 0xff) << 8 | (dst[(int) atP + 1] & 0xff);
            int gotQ = (dst[(int) atQ] & 0xff) << 8 | (dst[(int) atQ + 1] & 0xff);
            assertNotEquals(wordQ, gotP, "the word swapped in at P was not placed");
            assertNotEquals(wordP, gotQ, "the word swapped in at Q was not placed");
        }
    }
}
