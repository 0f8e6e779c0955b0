package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.qp.Q2Buffer;
import dev.irdmaemu.model.tcp.TcpConnectionParams;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * What the device does with a QP's Q2 buffer (IRDMAQPC_Q2ADDR; the layout is firmware-iface's {@link Q2Buffer},
 * which the driver side wraps too), irdma's split of RFC 5040 §4.8 on gen2:
 * <ul>
 *   <li>device → driver: on a data-path error and on a received Terminate the device copies the frame that carried
 *       the FPDU to Q2_BAD_FRAME_OFFSET and sets IRDMA_AEQE_Q2DATA. irdma_locate_mpa skips a 14-byte Ethernet header
 *       (IRDMA_MAC_HLEN: no VLAN tag, so none is written), the IPv4 header by its IHL and the TCP header by its data
 *       offset, so the frame is a real one: the connection's addresses and ports, the FPDU's sequence number,
 *       checksums over what it holds, the FPDU cut to what fits;</li>
 *   <li>driver → device: irdma_bld_terminate_hdr writes the Terminate message at offset 0, and Modify QP to
 *       TERMINATE asks for it to be sent: its length comes from its own Hdrct bits.</li>
 * </ul>
 * The buffer must lie in one mapped region of host memory (irdma allocates it with the QP context); otherwise
 * nothing is written (Q2DATA stays 0) and no Terminate is sent. Allocation-free after construction.
 */
final class Q2Exchange {
    private final HostMemory memory;
    private final long address;
    private final TcpPacketBuilder builder = new TcpPacketBuilder();
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(Q2Buffer.FRAME_CAPACITY);
    private final Q2Buffer q2 = new Q2Buffer();

    Q2Exchange(HostMemory memory, long address, TcpConnectionParams conn) {
        this.memory = memory;
        this.address = address;
        builder.ethernet(conn.localMac(), conn.remoteMac())
                .addresses(conn.remoteHi(), conn.remoteLo(), conn.localHi(), conn.localLo()).ttl(conn.ttl())
                .tos(conn.tos());
        builder.tcp().ports(conn.remotePort(), conn.localPort()).flags(TcpHeader.ACK | TcpHeader.PSH);
    }

    /** Wraps {@link #q2} over the guest's buffer; false when there is none or it is not mapped in one piece. */
    private boolean map() {
        int r = address == 0 ? -1 : memory.find(address, Q2Buffer.SIZE);
        if (r < 0) {
            return false;
        }
        q2.wrap(memory.store(r), memory.offset(r, address));
        return true;
    }

    /**
     * Copies the frame that carried the FPDU at {@code offset} ({@code length} bytes, from TCP sequence
     * {@code sequence}) to the frame area. Answers the IRDMA_AEQE_Q2DATA value: 1 when written, 0 when Q2 is
     * unusable.
     */
    int writeFrame(BytesStore<?, ?> store, long offset, int length, long sequence) {
        if (!map()) {
            return 0;
        }
        builder.tcp().sequenceNumber(sequence).acknowledgmentNumber(0).window(0);
        int n = Math.max(0, Math.min(length, Q2Buffer.FRAME_CAPACITY - builder.headersLength()));
        int len = builder.build(frame, 0, store, offset, n);
        q2.writeFrame(frame, 0, len);
        return 1;
    }

    /** Whether the QP has a Q2 buffer mapped in one piece (a Terminate can be read from it). */
    boolean mapped() {
        return map();
    }

    /**
     * The length of the Terminate message the driver built ({@link Q2Buffer#terminateLength()}); 0 without Q2
     * (ask {@link #mapped()} first).
     */
    int terminateLength() {
        return map() ? q2.terminateLength() : 0;
    }

    /** Copies {@code n} bytes of the Terminate message into {@code dst}; answers the bytes copied, 0 without Q2. */
    int copyTerminate(BytesStore<?, ?> dst, long dstOffset, int n) {
        return map() ? q2.copyTerminate(dst, dstOffset, n) : 0;
    }

    long address() {
        return address;
    }

    void release() {
        frame.releaseLast();
    }
}
