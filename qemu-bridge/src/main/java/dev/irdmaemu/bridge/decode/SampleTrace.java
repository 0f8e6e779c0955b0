package dev.irdmaemu.bridge.decode;

import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.fw.iwarp.IwarpFrame;
import dev.irdmaemu.fw.iwarp.MpaFrame;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.iwarp.Terminate;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.pcap.PcapWriter;
import dev.irdmaemu.fw.pcap.TimestampResolution;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The project's sample trace ({@code samples/handshake.pcap}): a synthetic but self-consistent iWARP conversation
 * between an initiator 192.0.2.1 (02:00:00:00:00:01) port {@value #INITIATOR_PORT} and a responder 192.0.2.2
 * (02:00:00:00:00:02) port {@value #RESPONDER_PORT}, built with the project's codecs only:
 * <ol>
 *   <li>the TCP three-way handshake, SYNs with MSS, SACK-permitted and window scale;</li>
 *   <li>an MPA v2 Request (C and H flags, RTR: peer-to-peer, IRD/ORD 16, RDMA Write RTR; RFC 6581 §5) with ULP
 *       private data, its ACK, the MPA v2 Reply;</li>
 *   <li>the initiator's RTR, a zero-length RDMA Write (RFC 6581 §7.2), then a Send carrying a buffer
 *       advertisement (STag, TO, length), an RDMA Write into that buffer, an RDMA Read Request and its Read
 *       Response, a Send with Invalidate of the advertised STag;</li>
 *   <li>a Send whose FPDU CRC was damaged in transit (the TCP checksum is computed over the damaged bytes, so
 *       only the MPA CRC shows it), the receiver's Terminate (LLP layer, MPA CRC error; RFC 5044 §8) and the FIN
 *       handshake.</li>
 * </ol>
 * Sequence and acknowledgment numbers are consistent, timestamps are simulated nanoseconds from 0. The output is
 * deterministic: {@link #pcapBytes()} answers the same bytes on every run (a test holds the committed file to it).
 */
public final class SampleTrace {
    /** Where the repository keeps the generated trace, relative to its root. */
    public static final String DEFAULT_FILE = "samples/handshake.pcap";

    public static final long INITIATOR_MAC = 0x02_00_00_00_00_01L;
    public static final long RESPONDER_MAC = 0x02_00_00_00_00_02L;
    public static final int INITIATOR_IP = IpAddress.ipv4(192, 0, 2, 1);
    public static final int RESPONDER_IP = IpAddress.ipv4(192, 0, 2, 2);
    /** IANA dynamic range (RFC 6335 §6). */
    public static final int INITIATOR_PORT = 49152;
    /** Any port works for iWARP (rdma_cm uses the application's); this one is easy to spot. */
    public static final int RESPONDER_PORT = 4791;
    public static final long INITIATOR_ISN = 0x1a2b3c4dL;
    public static final long RESPONDER_ISN = 0x5e6f7081L;

    /** The initiator's buffer the Read Response lands in. */
    public static final int INITIATOR_STAG = 0x00abcd01;
    public static final long INITIATOR_TO = 0x7f00_0000_2000L;
    /** The responder's advertised buffer (written, read, then invalidated). */
    public static final int RESPONDER_STAG = 0x00012345;
    public static final long RESPONDER_TO = 0x7f00_0000_1000L;
    public static final int RESPONDER_BUFFER_LENGTH = 4096;

    /** Frame numbers (from 1) of interest to the tests. */
    public static final int FRAME_MPA_REQUEST = 4;
    public static final int FRAME_MPA_REPLY = 6;
    public static final int FRAME_BAD_CRC = 14;
    public static final int FRAMES = 18;

    private static final int MSS = 1460;
    private static final int WINDOW_SCALE = 7;
    private static final int SYN_WINDOW = 64240;
    /** 64240 bytes after scaling by 2^7. */
    private static final int WINDOW = 502;

    private final TcpPacketBuilder tcp = new TcpPacketBuilder();
    private final MpaFrame.Builder mpa = new MpaFrame.Builder();
    private final IwarpFrame iwarp = new IwarpFrame();
    private final BytesStore<?, byte[]> frame = BytesStore.wrap(new byte[2048]);
    private final BytesStore<?, byte[]> payload = BytesStore.wrap(new byte[1024]);
    private final BytesStore<?, byte[]> data = BytesStore.wrap(new byte[256]);
    private final FrameTap tap;
    private long initiatorNext = INITIATOR_ISN;
    private long responderNext = RESPONDER_ISN;
    private int initiatorId = 0x1000;
    private int responderId = 0x2000;
    private long now;

    private SampleTrace(FrameTap tap) {
        this.tap = tap;
    }

    /** Hands the sample's frames to {@code tap}, in order, with their simulated times. */
    public static void write(FrameTap tap) {
        new SampleTrace(tap).conversation();
    }

    /** The sample as a nanosecond, little-endian pcap file. */
    public static byte[] pcapBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(4096);
        try {
            writePcap(bytes);
        } catch (IOException e) {
            throw new IllegalStateException("in-memory pcap", e); // a ByteArrayOutputStream does not fail
        }
        return bytes.toByteArray();
    }

    /** Writes the sample pcap to {@code out} (not closed). */
    public static void writePcap(OutputStream out) throws IOException {
        PcapWriter w = new PcapWriter(out, TimestampResolution.NANOSECONDS, PcapWriter.DEFAULT_SNAPLEN,
                ByteOrder.LITTLE_ENDIAN);
        write(w);
        w.flush();
    }

    /** Writes the sample pcap to {@code file}, creating parent directories. */
    public static void writeFile(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.write(file, pcapBytes());
    }

    private void conversation() {
        tcpHandshake();
        mpaNegotiation();
        rdmaTraffic();
        damagedSendAndTerminate();
        tcpClose();
    }

    private void tcpHandshake() {
        // TCP three-way handshake (RFC 9293 §3.5), options as Linux sends them minus timestamps
        segment(true, TcpHeader.SYN, 0, true, 0);
        segment(false, TcpHeader.SYN | TcpHeader.ACK, 0, true, 41_250);
        segment(true, TcpHeader.ACK, 0, false, 39_875);
    }

    /** MPA v2 Request and Reply, then the RTR the reply chose. */
    private void mpaNegotiation() {
        // MPA v2 Request with the RTR message and ULP private data (RFC 6581 §5; irdma cm.c builds C|H)
        int pd = ascii("irdma-emu:1\0");
        mpa.reset().request().revision(MpaFrame.REVISION_2).flags(MpaFrame.FLAG_CRC)
                .rtr(16, 16, true, false, true, false).privateData(data, 0, pd);
        int n = mpa.build(payload, 0, payload.realCapacity());
        segment(true, TcpHeader.PSH | TcpHeader.ACK, n, false, 12_125);
        segment(false, TcpHeader.ACK, 0, false, 40_500);

        // MPA v2 Reply: CRC on, RTR accepted as a zero-length RDMA Write, IRD/ORD 16
        pd = ascii("ok\0\0");
        mpa.reset().reply().revision(MpaFrame.REVISION_2).flags(MpaFrame.FLAG_CRC)
                .rtr(16, 16, true, false, true, false).privateData(data, 0, pd);
        n = mpa.build(payload, 0, payload.realCapacity());
        segment(false, TcpHeader.PSH | TcpHeader.ACK, n, false, 85_000);

        // RTR: zero-length RDMA Write, STag 0 (RFC 6581 §7.2; irdma sends it when the reply chose write0)
        n = iwarp.writeTagged(payload, 0, payload.realCapacity(), RdmapOpcode.CODE_RDMA_WRITE, true, 0, 0L,
                null, 0, 0, true);
        segment(true, TcpHeader.PSH | TcpHeader.ACK, n, false, 43_333);
    }

    /** A buffer advertisement, an RDMA Write into it, an RDMA Read and its response, a Send with Invalidate. */
    private void rdmaTraffic() {
        // the responder's first Send (QN 0, MSN 1; RFC 5041 §5.3: MSN starts at 1): a buffer advertisement
        put32(data, 0, RESPONDER_STAG);
        put64(data, 4, RESPONDER_TO);
        put32(data, 12, RESPONDER_BUFFER_LENGTH);
        int n = iwarp.writeUntagged(payload, 0, payload.realCapacity(), RdmapOpcode.CODE_SEND, true, 0,
                RdmapOpcode.QN_SEND, 1, 0, data, 0, 16, true);
        segment(false, TcpHeader.PSH | TcpHeader.ACK, n, false, 47_001);

        // RDMA Write of 64 bytes into the advertised buffer
        for (int i = 0; i < 64; i++) {
            data.writeByte(i, (byte) i);
        }
        n = iwarp.writeTagged(payload, 0, payload.realCapacity(), RdmapOpcode.CODE_RDMA_WRITE, true,
                RESPONDER_STAG, RESPONDER_TO, data, 0, 64, true);
        segment(true, TcpHeader.PSH | TcpHeader.ACK, n, false, 51_234);

        // RDMA Read Request (QN 1, MSN 1): 32 bytes from the responder's buffer + 64 into the initiator's
        n = iwarp.writeReadRequest(payload, 0, payload.realCapacity(), 1, INITIATOR_STAG, INITIATOR_TO, 32,
                RESPONDER_STAG, RESPONDER_TO + 64, true);
        segment(true, TcpHeader.PSH | TcpHeader.ACK, n, false, 3_210);

        // its Read Response: tagged to the sink STag/TO, Last set (RFC 5040 §4.5)
        for (int i = 0; i < 32; i++) {
            data.writeByte(i, (byte) (0xa0 + i));
        }
        n = iwarp.writeTagged(payload, 0, payload.realCapacity(), RdmapOpcode.CODE_RDMA_READ_RESPONSE, true,
                INITIATOR_STAG, INITIATOR_TO, data, 0, 32, true);
        segment(false, TcpHeader.PSH | TcpHeader.ACK, n, false, 44_444);

        // Send with Invalidate of the responder's STag (RFC 5040 §4.3), QN 0 MSN 1
        int pd = ascii("done");
        n = iwarp.writeUntagged(payload, 0, payload.realCapacity(), RdmapOpcode.CODE_SEND_WITH_INVALIDATE, true,
                RESPONDER_STAG, RdmapOpcode.QN_SEND, 1, 0, data, 0, pd, true);
        segment(true, TcpHeader.PSH | TcpHeader.ACK, n, false, 38_765);
        segment(false, TcpHeader.ACK, 0, false, 40_100);
    }

    /** A Send whose CRC the wire damaged, and the Terminate it draws. */
    private void damagedSendAndTerminate() {
        // a Send whose CRC trailer was damaged after the sender computed it (QN 0, MSN 2)
        int pd = ascii("status: ok");
        int n = iwarp.writeUntagged(payload, 0, payload.realCapacity(), RdmapOpcode.CODE_SEND, true, 0,
                RdmapOpcode.QN_SEND, 2, 0, data, 0, pd, true);
        payload.writeByte(n - 1, (byte) (payload.readByte(n - 1) ^ 0x5a));
        segment(false, TcpHeader.PSH | TcpHeader.ACK, n, false, 150_000);

        // the initiator terminates: LLP layer, MPA error type, CRC error (RFC 5044 §8; RFC 5040 §4.8), with the
        // damaged segment's ULPDU_Length (M) and DDP header (D) copied; QN 2, MSN 1
        int badUlpdu = payload.readUnsignedByte(0) << 8 | payload.readUnsignedByte(1);
        int term = Terminate.write(data, 0, data.realCapacity(), Terminate.LAYER_LLP, Terminate.Llp.ETYPE_MPA,
                Terminate.Llp.CRC_ERROR, badUlpdu, payload, Fpdu.LENGTH_SIZE, null, 0);
        n = iwarp.writeUntagged(payload, 0, payload.realCapacity(), RdmapOpcode.CODE_TERMINATE, true, 0,
                RdmapOpcode.QN_TERMINATE, 1, 0, data, 0, term, true);
        segment(true, TcpHeader.PSH | TcpHeader.ACK, n, false, 20_000);
    }

    private void tcpClose() {
        // FIN handshake (RFC 9293 §3.6)
        segment(true, TcpHeader.FIN | TcpHeader.ACK, 0, false, 5_000);
        segment(false, TcpHeader.FIN | TcpHeader.ACK, 0, false, 42_000);
        segment(true, TcpHeader.ACK, 0, false, 41_000);
    }

    /**
     * Sends one segment carrying the first {@code payloadLength} bytes of {@link #payload}, {@code delay} ns
     * after the previous one; each side acknowledges all the other has sent.
     */
    private void segment(boolean fromInitiator, int flags, int payloadLength, boolean synOptions, long delay) {
        now += delay;
        tcp.reset();
        long seq = fromInitiator ? initiatorNext : responderNext;
        long ack = fromInitiator ? responderNext : initiatorNext;
        if (fromInitiator) {
            tcp.ethernet(RESPONDER_MAC, INITIATOR_MAC).ipv4(INITIATOR_IP, RESPONDER_IP).identification(initiatorId++);
            tcp.tcp().ports(INITIATOR_PORT, RESPONDER_PORT);
        } else {
            tcp.ethernet(INITIATOR_MAC, RESPONDER_MAC).ipv4(RESPONDER_IP, INITIATOR_IP).identification(responderId++);
            tcp.tcp().ports(RESPONDER_PORT, INITIATOR_PORT);
        }
        boolean hasAck = (flags & TcpHeader.ACK) != 0;
        tcp.tcp().sequenceNumber(seq).acknowledgmentNumber(hasAck ? ack : 0).flags(flags)
                .window(synOptions ? SYN_WINDOW : WINDOW);
        if (synOptions) {
            tcp.tcp().mss(MSS).sackPermitted(true).windowScale(WINDOW_SCALE);
        }
        int length = tcp.build(frame, 0, payload, 0, payloadLength);
        tap.frame(now, frame, 0, length);
        long advance = payloadLength + ((flags & (TcpHeader.SYN | TcpHeader.FIN)) != 0 ? 1 : 0);
        if (fromInitiator) {
            initiatorNext = (initiatorNext + advance) & 0xffff_ffffL;
        } else {
            responderNext = (responderNext + advance) & 0xffff_ffffL;
        }
    }

    private int ascii(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < b.length; i++) {
            data.writeByte(i, b[i]);
        }
        return b.length;
    }

    private static void put32(BytesStore<?, ?> s, long at, int v) {
        s.writeInt(at, Integer.reverseBytes(v));
    }

    private static void put64(BytesStore<?, ?> s, long at, long v) {
        s.writeLong(at, Long.reverseBytes(v));
    }
}
