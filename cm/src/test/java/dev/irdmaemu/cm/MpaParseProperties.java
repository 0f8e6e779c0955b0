package dev.irdmaemu.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.cm.demo.CmPair;
import dev.irdmaemu.cm.mpa.MpaRejection;
import dev.irdmaemu.cm.mpa.MpaVerdict;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Any bytes given to the MPA receive rules: never an exception, an accepted frame obeys every rule, and the
 * pair the rules run on holds nothing afterwards ({@link LeakCheck}).
 */
class MpaParseProperties {
    private static final CmPair PAIR = new CmPair();

    @Property(tries = 2000)
    void anyBytesGetAVerdict(@ForAll @Size(max = 700) byte[] bytes, @ForAll boolean initiator,
                             @ForAll @IntRange(min = 1, max = 2) int revision,
                             @ForAll @IntRange(min = 0, max = 0x4000) int ird,
                             @ForAll @IntRange(min = 0, max = 0x4000) int ord,
                             @ForAll boolean looksLikeMpa) {
        if (looksLikeMpa && bytes.length >= 20) {
            // steer half the cases past the key check: a real key, a plausible revision and length
            String key = (bytes[0] & 1) == 0 ? MpaFrame.KEY_REQUEST : MpaFrame.KEY_REPLY;
            for (int i = 0; i < 16; i++) {
                bytes[i] = (byte) key.charAt(i);
            }
            bytes[17] = (byte) (1 + (bytes[17] & 1));
            int pd = Math.max(0, bytes.length - 20 - (bytes[16] & 3));
            bytes[18] = (byte) (pd >> 8);
            bytes[19] = (byte) pd;
        }
        CmNode n = new CmNode(PAIR.a, new FourTuple(), true, initiator, null);
        n.state = initiator ? CmState.MPAREQ_SENT : CmState.ESTABLISHED;
        n.mpaRevision = revision;
        n.irdOrd.set(ird, ord);
        MpaVerdict parsed = PAIR.a.parseMpa(n, BytesStore.wrap(bytes), 0, bytes.length);
        MpaRejection verdict = parsed.rule();
        if (verdict.accepted()) {
            MpaFrame f = new MpaFrame().wrap(BytesStore.wrap(bytes), 0, bytes.length);
            assertTrue(bytes.length >= MpaFrame.HEADER_SIZE && bytes.length <= MpaFrame.MAX_CM_BUF);
            assertTrue(f.revision() <= revision);
            assertEquals(f.revision(), n.mpaRevision());
            assertTrue(initiator ? f.isReply() : f.isRequest());
            assertTrue(f.privateDataLengthField() <= MpaFrame.MAX_PRIVATE_DATA);
            assertTrue(n.privateDataLength <= MpaFrame.MAX_PRIVATE_DATA);
            assertEquals(parsed.peerRejected(), (f.flags() & MpaFrame.FLAG_REJECT) != 0);
            assertEquals(0, f.flags() & MpaFrame.FLAG_MARKERS);
        } else {
            assertTrue(verdict.errno() < 0);
        }
        // the parse of a node the CM does not track registers nothing, arms nothing, programs nothing
        LeakCheck.assertNothingHeld(PAIR);
    }
}
