package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.RdmaReadRequest;
import dev.irdmaemu.fw.iwarp.Terminate;
import dev.irdmaemu.model.tcp.TcpConnectionParams;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The QP's Q2 buffer (IRDMA_Q2_BUF_SIZE, 256 bytes at the context's IRDMAQPC_Q2ADDR), the exchange between device
 * and driver for Terminate (irdma's split of RFC 5040 §4.8 on gen2):
 * <ul>
 *   <li>device → driver: on a data-path error and on a received Terminate the device copies the frame at
 *       Q2_BAD_FRAME_OFFSET (72, defs.h) and sets IRDMA_AEQE_Q2DATA. ctrl.c irdma_locate_mpa skips a 14-byte
 *       Ethernet header (IRDMA_MAC_HLEN: no VLAN tag, so the model writes none), the IPv4 header by its IHL and
 *       the TCP header by its data offset; the MPA FPDU follows (irdma_bld_terminate_hdr reads its length and
 *       DDP/RDMAP control bytes and copies up to 2 + 18 + 28 bytes of it; irdma_terminate_received reads the
 *       Terminate's DDP header words and the Terminate header at MPA + 20). The model writes a real frame: the
 *       connection's addresses and ports, the FPDU's sequence number, checksums over what it holds, the FPDU cut
 *       to the 184 bytes that fit;</li>
 *   <li>driver → device: irdma_bld_terminate_hdr writes the Terminate message (struct irdma_terminate_hdr and the
 *       copied headers) at offset 0, and Modify QP to TERMINATE asks for it to be sent.</li>
 * </ul>
 */
final class Q2Buffer {
    /** user.h IRDMA_Q2_BUF_SIZE. */
    static final int SIZE = 256;
    /** defs.h Q2_BAD_FRAME_OFFSET. */
    static final int BAD_FRAME_OFFSET = 72;
    /** The longest Terminate message irdma builds: header, DDP segment length, untagged DDP header, Read Request. */
    static final int MAX_TERMINATE = Terminate.CONTROL_LENGTH + Terminate.DDP_SEGMENT_LENGTH_SIZE
            + DdpHeader.UNTAGGED_LENGTH + RdmaReadRequest.LENGTH;

    private final HostMemory memory;
    private final long address;
    private final TcpConnectionParams conn;
    private final TcpPacketBuilder builder = new TcpPacketBuilder();
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(SIZE);
    private final Terminate terminate = new Terminate();

    Q2Buffer(HostMemory memory, long address, TcpConnectionParams conn) {
        this.memory = memory;
        this.address = address;
        this.conn = conn;
        builder.ethernet(conn.localMac(), conn.remoteMac())
                .addresses(conn.remoteHi(), conn.remoteLo(), conn.localHi(), conn.localLo()).ttl(conn.ttl())
                .tos(conn.tos());
        builder.tcp().ports(conn.remotePort(), conn.localPort()).flags(TcpHeader.ACK | TcpHeader.PSH);
    }

    boolean usable() {
        return address != 0 && memory.contains(address, SIZE);
    }

    /**
     * Copies the frame that carried the FPDU at {@code offset} ({@code length} bytes, from TCP sequence
     * {@code sequence}) to Q2 + 72. Answers the IRDMA_AEQE_Q2DATA value: 1 when written, 0 when Q2 is unusable.
     */
    int writeFrame(BytesStore<?, ?> store, long offset, int length, long sequence) {
        if (!usable()) {
            return 0;
        }
        builder.tcp().sequenceNumber(sequence).acknowledgmentNumber(0).window(0);
        int room = SIZE - BAD_FRAME_OFFSET - builder.headersLength();
        int n = Math.max(0, Math.min(length, room));
        int len = builder.build(frame, 0, store, offset, n);
        return memory.copyIn(address + BAD_FRAME_OFFSET, frame, 0, len) ? 1 : 0;
    }

    /**
     * Reads the Terminate message the driver wrote at Q2 offset 0 into {@code dst} at {@code dstOffset}; answers
     * its length by its own Hdrct bits (RFC 5040 §4.8: M, D with the copied header's T bit, R), at least the
     * 4-byte header and at most {@link #MAX_TERMINATE}, or -1 when Q2 is unreadable. The length irdma passes in
     * the Modify QP WQE (IRDMA_CQPSQ_QP_TERMLEN) is only 4 bits wide and irdma_sc_qp_modify writes its byte count
     * into it truncated, so the model does not rely on it.
     */
    int readTerminate(BytesStore<?, ?> dst, long dstOffset) {
        if (!usable() || !memory.copyOut(address, frame, 0, MAX_TERMINATE)) {
            return -1;
        }
        long len = terminate.wrap(frame, 0, MAX_TERMINATE).messageLength();
        int n = (int) Math.max(Terminate.CONTROL_LENGTH, Math.min(MAX_TERMINATE, len));
        dst.write(dstOffset, frame, 0, n);
        return n;
    }

    long address() {
        return address;
    }

    void release() {
        frame.releaseLast();
    }

    /** What irdma_locate_mpa computes: where the MPA FPDU starts inside the frame at Q2 + 72 (IPv4). */
    static int mpaOffsetInFrame(BytesStore<?, ?> q2, long frameAt) {
        int ihl = (q2.readUnsignedByte(frameAt + 14) & 0x0f) * 4;
        int tcpLen = (q2.readUnsignedByte(frameAt + 14 + ihl + 12) >>> 4 & 0x0f) * 4;
        return 14 + ihl + tcpLen;
    }
}
