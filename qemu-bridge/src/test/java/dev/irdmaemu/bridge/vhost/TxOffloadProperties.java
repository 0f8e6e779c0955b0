package dev.irdmaemu.bridge.vhost;

import static dev.irdmaemu.bridge.vhost.OffloadFrames.ALL;
import static dev.irdmaemu.bridge.vhost.OffloadFrames.MTU;
import static dev.irdmaemu.bridge.vhost.VirtioNet.NET_HEADER_SIZE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.irdmaemu.bridge.vhost.BackendFixture.Collector;
import dev.irdmaemu.fw.frame.TcpHeader;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.openhft.chronicle.bytes.BytesStore;

/** Segmenting random TCP super-frames: MTU-sized valid frames whose payloads put together are the original. */
class TxOffloadProperties {
    @Property(tries = 300)
    void segmentsAreMtuSizedValidAndJoinToTheOriginal(@ForAll @IntRange(min = 0, max = 65_000) int payloadLength,
                                                      @ForAll @IntRange(min = 256, max = 1428) int mss,
                                                      @ForAll boolean v6, @ForAll boolean vlan,
                                                      @ForAll @IntRange(min = 0, max = 255) int flagBits,
                                                      @ForAll long seq, @ForAll @IntRange(min = 0, max = 0xffff) int id,
                                                      @ForAll long seed) {
        int flags = (flagBits | TcpHeader.ACK) & ~(TcpHeader.SYN | TcpHeader.RST);
        BytesStore<?, Void> buf = BytesStore.nativeStoreWithFixedCapacity(NET_HEADER_SIZE + 66_000);
        TxOffload offload = new TxOffload();
        try {
            byte[] payload = BackendFixture.randomBytes(payloadLength, seed);
            int length = OffloadFrames.build(buf, NET_HEADER_SIZE, v6, vlan, payload, seq, flags, id, true);
            OffloadFrames.gso(buf, 0, (v6 ? VirtioNetHeader.GSO_TCPV6 : VirtioNetHeader.GSO_TCPV4)
                    | ((flags & TcpHeader.CWR) != 0 ? VirtioNetHeader.GSO_ECN : 0), mss,
                    OffloadFrames.headers(v6, vlan), OffloadFrames.l4(v6, vlan));
            Collector out = new Collector();
            assertNull(offload.deliver(buf, 0, NET_HEADER_SIZE, length, ALL, MTU, out));
            int segments = OffloadFrames.assertSegmentsOf(out.frames, payload, seq, flags, mss, v6, vlan, id);
            assertEquals(payloadLength == 0 ? 1 : (payloadLength + mss - 1) / mss, segments);
        } finally {
            buf.releaseLast();
            offload.release();
        }
    }
}
