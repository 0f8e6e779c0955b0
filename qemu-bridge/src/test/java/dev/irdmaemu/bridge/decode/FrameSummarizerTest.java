package dev.irdmaemu.bridge.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.fw.pcap.SampleFrames;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

class FrameSummarizerTest {
    private final FrameSummarizer summarizer = new FrameSummarizer();

    private String summary(BytesStore<?, ?> store, long offset, int length) {
        StringBuilder out = new StringBuilder("> ");
        summarizer.summarize(store, offset, length, out);
        return out.toString();
    }

    @Test
    void ethernetSourceDestinationTypeAndLength() {
        assertEquals("> 02:00:00:00:00:01 → 02:00:00:00:00:02 IPv4 47",
                summary(SampleFrames.store(SampleFrames.UDP_HELLO_HEX), 0, 47));
    }

    @Test
    void atAnOffsetInALargerBuffer() {
        byte[] frame = SampleFrames.bytes(SampleFrames.TCP_SYN_HEX);
        byte[] buffer = new byte[100];
        System.arraycopy(frame, 0, buffer, 30, frame.length);
        assertEquals("> 02:00:00:00:00:02 → 02:00:00:00:00:01 IPv4 54",
                summary(BytesStore.wrap(buffer), 30, frame.length));
    }

    @Test
    void etherTypesByNameOrInHex() {
        byte[] f = SampleFrames.bytes("ffffffffffff" + "02abcdef0102" + "0806" + "0001");
        assertEquals("> 02:ab:cd:ef:01:02 → ff:ff:ff:ff:ff:ff ARP 16", summary(BytesStore.wrap(f), 0, 16));
        f[12] = (byte) 0x88;
        f[13] = (byte) 0xb5; // IEEE 802: local experimental EtherType
        assertEquals("> 02:ab:cd:ef:01:02 → ff:ff:ff:ff:ff:ff 0x88b5 14", summary(BytesStore.wrap(f), 0, 14));
        f[12] = 0x00;
        f[13] = 0x2e;
        assertEquals("> 02:ab:cd:ef:01:02 → ff:ff:ff:ff:ff:ff 802.3 14", summary(BytesStore.wrap(f), 0, 14));
    }

    @Test
    void shortAndOutOfRangeFramesAreSaidNotThrown() {
        BytesStore<?, byte[]> store = SampleFrames.store(SampleFrames.UDP_HELLO_HEX);
        assertEquals("> short frame: 13 bytes, below the 14-byte Ethernet header", summary(store, 0, 13));
        assertEquals("> frame outside its buffer (offset 40, length 14)", summary(store, 40, 14));
        assertEquals("> frame outside its buffer (offset -1, length 14)", summary(store, -1, 14));
        assertEquals("> frame outside its buffer (offset 0, length -1)", summary(store, 0, -1));
    }

    @Property
    void anyBytesAnyRangeNeverThrow(@ForAll byte[] bytes, @ForAll long offset, @ForAll int length) {
        StringBuilder out = new StringBuilder();
        summarizer.summarize(BytesStore.wrap(bytes), offset, length, out);
        summarizer.summarize(BytesStore.wrap(bytes), 0, bytes.length, out);
    }
}
