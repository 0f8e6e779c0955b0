package dev.irdmaemu.bridge.decode;

import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import dev.irdmaemu.fw.roce.Aeth;
import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.fw.roce.Deth;
import dev.irdmaemu.fw.roce.NakCode;
import dev.irdmaemu.fw.roce.RoceFrameBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A representative RoCEv2 capture for the decode and trace tests: RC SEND first/middle/last/only with and without
 * immediate, SEND with invalidate, RDMA WRITE first/middle/last/only (RETH, immediate), RDMA READ request and
 * response first/middle/last/only (AETH), ACK, NAK (PSN sequence, remote access), RNR NAK, UD SEND with DETH over
 * IPv4 and IPv6, a VLAN-tagged and a CE-marked packet, a CNP, and one packet whose ICRC was broken on the way.
 * Path MTU 256; the requester is 192.0.2.1 (QP 0x11 at the responder), the responder 192.0.2.2 (QP 0x22).
 */
public final class RoceCapture {
    public static final int MTU = 256;
    static final long MAC_A = 0x02_00_00_00_00_0aL;
    static final long MAC_B = 0x02_00_00_00_00_0bL;
    static final int IP_A = IpAddress.ipv4(192, 0, 2, 1);
    static final int IP_B = IpAddress.ipv4(192, 0, 2, 2);
    static final long V6_HI = 0x2001_0db8_0000_0000L;
    /** Frame number (1-based) of the packet with the broken ICRC. */
    public static final int FRAME_BAD_ICRC = 25;

    private final RoceFrameBuilder b = new RoceFrameBuilder();
    private final List<byte[]> frames = new ArrayList<>();

    private RoceCapture() {
    }

    /** The frames, in capture order. */
    public static List<byte[]> frames() {
        RoceCapture c = new RoceCapture();
        c.requests();
        c.responses();
        c.datagrams();
        return c.frames;
    }

    /** Writes {@link #frames()} to a microsecond pcap, 1 ms apart. */
    public static void write(Path file) throws IOException {
        try (PcapWriter w = PcapWriter.open(file, TimestampResolution.MICROSECONDS)) {
            long t = 0;
            for (byte[] f : frames()) {
                w.frame(t += 1_000_000, BytesStore.wrap(f), 0, f.length);
            }
        }
    }

    private RoceFrameBuilder a() {
        return b.reset().ethernet(MAC_B, MAC_A).ipv4(IP_A, IP_B).udp(0xc123, true).identification(frames.size());
    }

    private RoceFrameBuilder bToA() {
        return b.reset().ethernet(MAC_A, MAC_B).ipv4(IP_B, IP_A).udp(0xc321, false).identification(frames.size());
    }

    private void requests() {
        add(a().bth(BthOpcode.RC_SEND_FIRST, 0x11, 100), MTU);
        add(a().bth(BthOpcode.RC_SEND_MIDDLE, 0x11, 101), MTU);
        add(a().bth(BthOpcode.RC_SEND_LAST, 0x11, 102).flags(false, false, true), 77);
        add(a().bth(BthOpcode.RC_SEND_ONLY, 0x11, 103).flags(true, false, true), 21);
        add(a().bth(BthOpcode.RC_SEND_FIRST, 0x11, 104), MTU);
        add(a().bth(BthOpcode.RC_SEND_LAST_WITH_IMMEDIATE, 0x11, 105).immediate(0xcafe0001).flags(false, false, true),
                30);
        add(a().bth(BthOpcode.RC_SEND_ONLY_WITH_IMMEDIATE, 0x11, 106).immediate(0x12345678)
                .flags(false, false, true), 18);
        add(a().bth(BthOpcode.RC_SEND_ONLY_WITH_INVALIDATE, 0x11, 107).invalidate(0x0abc0001)
                .flags(false, false, true), 16);
        add(a().bth(BthOpcode.RC_RDMA_WRITE_FIRST, 0x11, 108).reth(0x7f0012345000L, 0x1001, 600), MTU);
        add(a().bth(BthOpcode.RC_RDMA_WRITE_MIDDLE, 0x11, 109), MTU);
        add(a().bth(BthOpcode.RC_RDMA_WRITE_LAST_WITH_IMMEDIATE, 0x11, 110).immediate(7).flags(false, false, true),
                88);
        add(a().bth(BthOpcode.RC_RDMA_WRITE_ONLY, 0x11, 111).reth(0x1000, 0x2002, 30).flags(false, false, true), 30);
        add(a().bth(BthOpcode.RC_RDMA_READ_REQUEST, 0x11, 112).reth(0x3000, 0x3003, 700).flags(false, false, true),
                0);
    }

    private void responses() {
        int ack = Aeth.ackSyndrome(Aeth.CREDITS_UNLIMITED);
        add(bToA().bth(BthOpcode.RC_RDMA_READ_RESPONSE_FIRST, 0x22, 112).aeth(ack, 3), MTU);
        add(bToA().bth(BthOpcode.RC_RDMA_READ_RESPONSE_MIDDLE, 0x22, 113), MTU);
        add(bToA().bth(BthOpcode.RC_RDMA_READ_RESPONSE_LAST, 0x22, 114).aeth(ack, 3), 188);
        add(bToA().bth(BthOpcode.RC_RDMA_READ_RESPONSE_ONLY, 0x22, 115).aeth(Aeth.ackSyndrome(4), 4), 9);
        add(bToA().bth(BthOpcode.RC_ACKNOWLEDGE, 0x22, 111).aeth(ack, 2), 0);
        add(bToA().bth(BthOpcode.RC_ACKNOWLEDGE, 0x22, 120).aeth(Aeth.nakSyndrome(NakCode.PSN_SEQUENCE_ERROR), 5), 0);
        add(bToA().bth(BthOpcode.RC_ACKNOWLEDGE, 0x22, 121).aeth(Aeth.nakSyndrome(NakCode.REMOTE_ACCESS_ERROR), 5),
                0);
        add(bToA().bth(BthOpcode.RC_ACKNOWLEDGE, 0x22, 122).aeth(Aeth.rnrNakSyndrome(14), 5), 0);
    }

    private void datagrams() {
        add(a().bth(BthOpcode.UD_SEND_ONLY, 1, 7).deth(Deth.GSI_Q_KEY, 1), 256);
        add(a().bth(BthOpcode.UD_SEND_ONLY_WITH_IMMEDIATE, 0x33, 8).deth(0x1111, 0x44).immediate(99), 21);
        add(a().ipv6(V6_HI, 1, V6_HI, 2).flowLabel(0x12345).bth(BthOpcode.UD_SEND_ONLY, 1, 9)
                .deth(Deth.GSI_Q_KEY, 1), 256);
        // frame 25: an RC SEND whose payload changed after the ICRC (UDP checksum left out, so only the ICRC tells)
        add(a().udp(0xc123, false).bth(BthOpcode.RC_SEND_ONLY, 0x11, 113).flags(false, false, true), 24);
        frames.get(frames.size() - 1)[14 + 20 + 8 + 12 + 3] ^= 0x20;
        add(a().vlan(3, false, 100).bth(BthOpcode.RC_SEND_ONLY, 0x55, 11).flags(false, false, true), 64);
        add(a().tos(0x03).ecn(true, false).bth(BthOpcode.RC_SEND_ONLY, 0x55, 12).flags(false, false, true), 18);
        add(bToA().tos(0x02).cnp(0x11), 0);
    }

    private void add(RoceFrameBuilder builder, int payloadLength) {
        BytesStore<?, byte[]> payload = BytesStore.wrap(new byte[Math.max(payloadLength, 1)]);
        for (int i = 0; i < payloadLength; i++) {
            payload.writeByte(i, (byte) (i * 7 + 1));
        }
        byte[] frame = new byte[builder.frameLength(payloadLength)];
        builder.build(BytesStore.wrap(frame), 0, payload, 0, payloadLength);
        frames.add(frame);
    }
}
