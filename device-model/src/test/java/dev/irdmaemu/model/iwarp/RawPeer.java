package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.fw.iwarp.IwarpFrame;
import dev.irdmaemu.fw.iwarp.RdmaReadRequest;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.fw.wire.LinkPort;
import dev.irdmaemu.model.tcp.OffloadedTcp;
import dev.irdmaemu.model.tcp.TcpConnectionParams;
import dev.irdmaemu.model.tcp.TcpEvent;
import dev.irdmaemu.model.tcp.TcpReceiver;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A hostile iWARP peer on the link: a plain {@link OffloadedTcp} connection (correct TCP for the model QP's
 * connection) on which the test writes whatever FPDUs it likes, built with the fw.iwarp codecs and then mutated at
 * will. It keeps the stream it receives, to look at what the model sent (Terminates, responses).
 */
final class RawPeer implements TcpReceiver, OffloadedTcp.Listener, AutoCloseable {
    final OffloadedTcp tcp;
    final LinkPort port;
    final BytesStore<?, Void> out = BytesStore.nativeStoreWithFixedCapacity(70_000);
    final IwarpFrame frame = new IwarpFrame();
    final ByteArrayOutputStream received = new ByteArrayOutputStream();
    final List<TcpEvent> events = new ArrayList<>();
    final boolean crc;

    RawPeer(SimScheduler scheduler, Link link, TcpConnectionParams params, boolean crc) {
        LinkPort[] p = new LinkPort[1];
        this.crc = crc;
        this.tcp = new OffloadedTcp(scheduler, params, (s, o, l) -> p[0].transmit(s, o, l), this, this);
        this.port = link.attach(params.localMac(), FaultProfile.NONE, tcp::receive);
        p[0] = port;
    }

    // ---- building FPDUs in {@link #out} at offset 0; {@link #send} puts them on the stream

    int untagged(int opcode, boolean last, int invalidateStag, int qn, int msn, int mo, byte[] payload) {
        BytesStore<?, Void> p = payloadStore(payload);
        try {
            return frame.writeUntagged(out, 0, out.capacity(), opcode, last, invalidateStag, qn, msn, mo, p, 0,
                    payload.length, crc);
        } finally {
            p.releaseLast();
        }
    }

    int tagged(int opcode, boolean last, int stag, long to, byte[] payload) {
        BytesStore<?, Void> p = payloadStore(payload);
        try {
            return frame.writeTagged(out, 0, out.capacity(), opcode, last, stag, to, p, 0, payload.length, crc);
        } finally {
            p.releaseLast();
        }
    }

    int readRequest(int msn, int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        return frame.writeReadRequest(out, 0, out.capacity(), msn, sinkStag, sinkTo, size, sourceStag, sourceTo, crc);
    }

    private static BytesStore<?, Void> payloadStore(byte[] payload) {
        BytesStore<?, Void> p = BytesStore.nativeStoreWithFixedCapacity(Math.max(1, payload.length));
        p.write(0, payload);
        return p;
    }

    /** Recomputes the CRC of the FPDU of {@code length} bytes at 0 (after a header was mutated). */
    void recrc(int length) {
        if (!crc) {
            return;
        }
        int body = length - Fpdu.CRC_SIZE;
        dev.irdmaemu.fw.iwarp.Crc32c.writeWire(out, body, new dev.irdmaemu.fw.iwarp.Crc32c().compute(out, 0, body));
    }

    /** Sets DDP / RDMAP control byte {@code index} (0: DDP control, 1: RDMAP control) and fixes the CRC. */
    void mutateControl(int index, int value, int length) {
        out.writeByte(Fpdu.LENGTH_SIZE + index, (byte) value);
        recrc(length);
    }

    void send(int length) {
        if (!tcp.send(out, 0, length)) {
            throw new AssertionError("raw peer's send ring full");
        }
    }

    // ---- TcpReceiver / Listener

    @Override
    public void deliver(BytesStore<?, ?> store, long offset, int length) {
        for (int i = 0; i < length; i++) {
            received.write(store.readByte(offset + i));
        }
    }

    @Override
    public long freeSpace() {
        return 1 << 20;
    }

    @Override
    public void event(OffloadedTcp connection, TcpEvent event) {
        events.add(event);
    }

    /** Splits what was received into FPDUs (no LSMM on this stream); each an array of its bytes. */
    List<byte[]> fpdus() {
        byte[] b = received.toByteArray();
        List<byte[]> l = new ArrayList<>();
        int at = 0;
        while (at + 2 <= b.length) {
            int ulpdu = (b[at] & 0xff) << 8 | b[at + 1] & 0xff;
            int total = Fpdu.totalLengthFor(ulpdu);
            if (at + total > b.length) {
                break;
            }
            byte[] f = new byte[total];
            System.arraycopy(b, at, f, 0, total);
            l.add(f);
            at += total;
        }
        return l;
    }

    static int rdmapOpcode(byte[] fpdu) {
        return fpdu[Fpdu.LENGTH_SIZE + DdpHeader.OFF_RDMAP_CONTROL] & DdpHeader.OPCODE_MASK;
    }

    static boolean isTerminate(byte[] fpdu) {
        return rdmapOpcode(fpdu) == RdmapOpcode.CODE_TERMINATE;
    }

    static final int READ_REQUEST_PAYLOAD = RdmaReadRequest.LENGTH;

    @Override
    public void close() {
        tcp.release();
        out.releaseLast();
    }
}
