package dev.irdmaemu.fw.iwarp;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;

/** Random and mutated bytes, and lying lengths, never make a parser throw (brief: hostile input). */
class HostileInputProperties {
    private final MpaFrame mpa = new MpaFrame();
    private final Fpdu fpdu = new Fpdu();
    private final DdpHeader ddp = new DdpHeader();
    private final RdmaReadRequest rreq = new RdmaReadRequest();
    private final Terminate term = new Terminate();
    private final IwarpFrame frame = new IwarpFrame();

    /** Every parser over every window of the bytes, with its accessors. */
    private void exercise(BytesStore<?, ?> s, long off, long len) {
        assertNotNull(mpa.wrap(s, off, len).validate());
        mpa.isRequest();
        mpa.isReply();
        mpa.requestsMarkers();
        mpa.requestsCrc();
        mpa.isReject();
        mpa.isEnhanced();
        mpa.ird();
        mpa.ord();
        mpa.peerToPeer();
        mpa.rdma0ReadRtr();
        mpa.privateDataOffset();
        mpa.privateDataLength();
        mpa.frameLength();
        for (boolean crc : new boolean[] {true, false}) {
            assertNotNull(fpdu.wrap(s, off, len, crc).validate());
            fpdu.totalLength();
            fpdu.receivedCrc();
            fpdu.padLength();
            assertNotNull(frame.parse(s, off, len, crc));
            frame.ddp().payloadLength();
        }
        assertNotNull(ddp.wrap(s, off, len).validate());
        ddp.stag();
        ddp.taggedOffset();
        ddp.queueNumber();
        ddp.msn();
        ddp.messageOffset();
        ddp.invalidateStag();
        ddp.payloadLength();
        ddp.queueMatchesOpcode();
        assertNotNull(rreq.wrap(s, off, len).validate());
        rreq.sinkStag();
        rreq.sourceTaggedOffset();
        rreq.readMessageSize();
        assertNotNull(term.wrap(s, off, len).validate());
        term.ddpSegmentLength();
        term.ddpHeaderLength();
        term.rdmaHeaderLength();
        term.messageLength();
        term.reserved();
    }

    @Property(tries = 500)
    void randomBytesNeverThrow(@ForAll @Size(max = 700) byte[] bytes, @ForAll @IntRange(max = 800) int off,
                               @ForAll @IntRange(min = -5, max = 2000) int len, @ForAll boolean offHeap) {
        BytesStore<?, ?> s = offHeap ? Stores.nativeAt(bytes, 0) : Stores.heap(bytes);
        try {
            exercise(s, off, len); // offsets and lengths may lie about the store
            exercise(s, 0, bytes.length);
        } finally {
            if (offHeap) {
                s.releaseLast();
            }
        }
    }

    @Property(tries = 500)
    void mutatedValidFramesNeverThrow(@ForAll @Size(max = 100) byte[] payload, @ForAll int seedStag,
                                      @ForAll @IntRange(max = 10_000) int where, @ForAll byte value,
                                      @ForAll @IntRange(max = 4) int kind, @ForAll @IntRange(max = 200) int cut) {
        byte[] out = new byte[600];
        BytesStore<?, ?> s = Stores.heap(out);
        int n;
        switch (kind) {
            case 0:
                n = frame.writeTagged(s, 0, out.length, 0, true, seedStag, 7, Stores.heap(payload), 0,
                        payload.length, true);
                break;
            case 1:
                n = frame.writeUntagged(s, 0, out.length, 3, true, 0, 0, 1, 0, Stores.heap(payload), 0,
                        payload.length, true);
                break;
            case 2:
                n = frame.writeReadRequest(s, 0, out.length, 1, seedStag, 1, 2, 3, 4, true);
                break;
            case 3:
                n = new MpaFrame.Builder().reset().reply().rtr(5, 6, true, false, true, false)
                        .privateData(Stores.heap(payload), 0, payload.length).build(s, 0, out.length);
                break;
            default:
                BytesStore<?, ?> hdr = Stores.heap(new byte[18]);
                DdpHeader.writeUntagged(hdr, 0, 1, true, 0, 1, 1, 0);
                n = Terminate.write(s, 0, out.length, 0, 1, 2, 46, hdr, 0, Stores.heap(new byte[28]), 0);
                break;
        }
        out[where % n] = value;
        exercise(s, 0, n);
        exercise(s, 0, Math.max(0, n - cut));
        exercise(s, where % n, n);
    }
}
