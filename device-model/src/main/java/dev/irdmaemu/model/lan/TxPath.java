package dev.irdmaemu.model.lan;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.lan.OffloadHeaders;
import dev.irdmaemu.fw.lan.TxDescriptor;
import dev.irdmaemu.model.port.FrameTransmitter;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transmit side of the LAN queues (ice_txrx.c ice_xmit_frame_ring / ice_tx_map / ice_tso / ice_tx_csum, and
 * ice_clean_tx_irq): a QTX_COMM_DBELL write moves the tail; the engine walks the descriptors from its head to the
 * tail, a context descriptor (TSO: payload length and MSS) then data descriptors gathered until EOP, and sends the
 * packet to the port: as is, with the checksums the data descriptor asks for (IIPT_IPV4_CSUM: the IPv4 header;
 * L4T TCP/UDP over MACLEN/IPLEN/L4LEN: the L4 checksum), or cut into MSS-sized segments with each IPv4 id, length
 * and checksum and each TCP sequence number, flags and checksum set as the hardware sets them (FIN and PSH only on
 * the last segment, CWR only on the first). The EOP descriptor of each packet with RS gets DTYPE DESC_DONE, which
 * ice_clean_tx_irq tests; then QINT_TQCTL's vector is raised.
 *
 * <p>VLAN insertion (ice_txrx.c ice_tx_prepare_vlan_flags): the skb's 802.1Q tag control information comes in the
 * data descriptor's L2TAG1 with CMD IL2TAG1 (single VLAN mode rings), or in the context descriptor's L2TAG2 with its
 * IL2TAG2 command (double VLAN mode rings, ICE_TX_RING_FLAGS_VLAN_L2TAG2); either way the frame leaves with a tag
 * (TPID 0x8100, that TCI: priority, DEI and VLAN id) inserted after its MAC addresses, each TSO segment too. The
 * offsets and checksums are those of the untagged frame the driver built (MACLEN covers no tag).
 *
 * <p>Hostile rings: a descriptor outside guest memory, a zero-length or unknown descriptor, a chain without EOP
 * before the tail, headers longer than the packet, a TSO length that does not match: the packet is dropped, its
 * descriptors completed, and a Tx MDD event raised (GL_MDET_TX_TCLAN). A tail beyond the ring is ignored with an
 * MDD event. Work per doorbell is bounded by the ring length; nothing allocates per packet.
 */
public final class TxPath {
    private static final Logger LOG = LoggerFactory.getLogger(TxPath.class);

    /** ICE_MAX_TSO_SIZE (256 KiB - 1) plus the largest header (MACLEN 254 + IPLEN 508 + L4LEN 60). */
    public static final int MAX_PACKET = 262_143 + 822;
    /** Largest frame sent without TSO: the MAX_MTU 9728 the capabilities report plus a tagged Ethernet header. */
    public static final int MAX_FRAME = 9728 + 18;
    private static final int MIN_FRAME = 14;
    /** An 802.1Q tag: TPID 0x8100 and the tag control information, inserted after the two MAC addresses. */
    static final int VLAN_TAG = 4;
    private static final int MAC_ADDRESSES = 12;
    private static final int TPID_8021Q = 0x8100;
    /** ice_lan_tx_rx.h ICE_TX_CTX_DESC_IL2TAG2: the context descriptor's L2TAG2 is to be inserted. */
    static final int CTX_CMD_IL2TAG2 = 0x04;

    // MDD MAL_TYPE values the model reports (its own numbering; ice only prints them)
    static final int MDD_DESCRIPTOR = 1;
    static final int MDD_BUFFER = 2;
    static final int MDD_NO_EOP = 3;
    static final int MDD_LENGTH = 4;
    static final int MDD_TAIL = 5;

    private final int queues;
    private final HostMemory memory;
    private final Trace trace;
    private final LanQueues owner;
    private final LanCounters counters;
    private final TxContextSource.TxRing ring = new TxContextSource.TxRing();
    private final TxDescriptor desc = new TxDescriptor();
    private final BytesStore<?, ?> descBuf = BytesStore.nativeStoreWithFixedCapacity(TxDescriptor.SIZE);
    private final BytesStore<?, ?> packet = BytesStore.nativeStoreWithFixedCapacity(MAX_PACKET);
    private final BytesStore<?, ?> segment = BytesStore.nativeStoreWithFixedCapacity(MAX_FRAME + 822);
    /** A frame with the tag the descriptors asked for inserted. */
    private final BytesStore<?, ?> tagged = BytesStore.nativeStoreWithFixedCapacity(MAX_FRAME + 822 + VLAN_TAG);
    private final int[] head;
    private final int[] tail;
    private TxContextSource contexts = TxContextSource.NONE;
    private FrameTransmitter wire = FrameTransmitter.NONE;
    /** The MAC loopback (set_mac_lb): frames go back to the receive side instead of the wire. */
    private boolean loopback;
    private int cmd;
    private int macLen;
    private int ipLen;
    private int l4Len;
    private boolean tso;
    private int tsoLength;
    private int mss;
    private int packetLength;
    private int fault;
    /** The packet's tag control information to insert, or {@link #NO_TAG}. */
    private int insertTci;
    private static final int NO_TAG = -1;

    TxPath(int queues, HostMemory memory, Trace trace, LanQueues owner, LanCounters counters) {
        this.queues = queues;
        this.memory = memory;
        this.trace = trace;
        this.owner = owner;
        this.counters = counters;
        this.head = new int[queues];
        this.tail = new int[queues];
    }

    void contexts(TxContextSource source) {
        this.contexts = source == null ? TxContextSource.NONE : source;
    }

    void wire(FrameTransmitter t) {
        this.wire = t == null ? FrameTransmitter.NONE : t;
    }

    /** The MAC loopback is port state: a PF reset of the queues leaves it as the firmware set it. */
    void loopback(boolean on) {
        this.loopback = on;
    }

    void reset() {
        for (int q = 0; q < queues; q++) {
            head[q] = 0;
            tail[q] = 0;
        }
    }

    /** The head QTX_COMM_HEAD reports. */
    int head(int q) {
        return head[q];
    }

    int tail(int q) {
        return tail[q];
    }

    /** A queue was (re)created by add_txqs: the hardware starts it at descriptor 0. */
    public void queueCreated(int q) {
        if (q >= 0 && q < queues) {
            head[q] = 0;
            tail[q] = 0;
        }
    }

    /** QTX_COMM_DBELL(q) written with the new tail. */
    void doorbell(int q, int value) {
        if (!contexts.lookup(q, ring) || ring.length == 0 || ring.length > 8191) {
            counters.txBadDoorbell++;
            event(q, "doorbell_without_context", value);
            return;
        }
        int qlen = ring.length;
        if (value < 0 || value >= qlen) {
            counters.txBadDoorbell++;
            owner.mddTx(q, MDD_TAIL);
            event(q, "tail_beyond_ring", value);
            return;
        }
        if (head[q] >= qlen) {
            head[q] = 0; // the context changed under a running queue
        }
        tail[q] = value;
        int h = head[q];
        boolean sentAny = false;
        while (h != value) {
            h = onePacket(q, h, value, qlen);
            sentAny = true;
        }
        head[q] = h;
        if (sentAny) {
            owner.raiseTx(q);
        }
    }

    /** Processes the packet starting at {@code h}; answers the index after it. Never loops past {@code end}. */
    private int onePacket(int q, int start, int end, int qlen) {
        cmd = 0;
        tso = false;
        insertTci = NO_TAG;
        packetLength = 0;
        fault = 0;
        int h = start;
        int eop = -1;
        while (h != end) {
            int at = h;
            h = h + 1 == qlen ? 0 : h + 1;
            long address = ring.base + (long) at * TxDescriptor.SIZE;
            if (!memory.copyOut(address, descBuf, 0, TxDescriptor.SIZE)) {
                // the ring itself is not in guest memory: nothing can be completed; drop the rest
                counters.txDropped++;
                owner.mddTx(q, MDD_DESCRIPTOR);
                event(q, "drop_ring_unmapped", at);
                return end;
            }
            desc.wrap(descBuf, 0);
            TxDescriptor.Status s = desc.validate();
            if (!s.accepted()) {
                fault(MDD_DESCRIPTOR);
                if (desc.dtype() == TxDescriptor.DTYPE_DATA && desc.endOfPacket()) {
                    cmd = desc.cmd();
                    eop = at;
                    break;
                }
                continue;
            }
            if (desc.dtype() == TxDescriptor.DTYPE_CTX) {
                if ((desc.contextCmd() & TxDescriptor.CTX_CMD_TSO) != 0) {
                    tso = true;
                    tsoLength = desc.tsoLength();
                    mss = desc.mss();
                }
                if ((desc.contextCmd() & CTX_CMD_IL2TAG2) != 0) {
                    // struct ice_tx_ctx_desc: l2tag2 is bytes 4..5 of the first quadword
                    insertTci = (int) (desc.bufferAddress() >>> 32) & 0xFFFF;
                }
                continue;
            }
            gather(desc.bufferAddress(), desc.bufferSize());
            if (desc.endOfPacket()) {
                cmd = desc.cmd();
                if ((cmd & TxDescriptor.CMD_IL2TAG1) != 0) {
                    insertTci = desc.l2Tag1();
                }
                macLen = desc.macLength();
                ipLen = desc.ipLength();
                l4Len = desc.l4Length();
                eop = at;
                break;
            }
        }
        if (eop < 0) {
            // the chain runs into the tail without EOP: ice never rings such a tail; drop it, consume the ring
            counters.txDropped++;
            owner.mddTx(q, fault != 0 ? fault : MDD_NO_EOP);
            event(q, "drop_no_eop", start);
            return end;
        }
        if (fault == 0) {
            send(q);
        }
        if (fault != 0) {
            counters.txDropped++;
            owner.mddTx(q, fault);
            event(q, "drop", fault);
        }
        // DESC_DONE on the EOP descriptor (ice_clean_tx_irq tests the eop descriptor's DTYPE)
        if ((cmd & TxDescriptor.CMD_RS) != 0 || fault != 0) {
            long address = ring.base + (long) eop * TxDescriptor.SIZE + 8;
            memory.writeLong(address, TxDescriptor.DTYPE_DESC_DONE);
        }
        return h;
    }

    private void fault(int type) {
        if (fault == 0) {
            fault = type;
        }
    }

    private void gather(long address, int size) {
        if (fault != 0) {
            return;
        }
        if (packetLength + size > MAX_PACKET) {
            fault(MDD_LENGTH);
            return;
        }
        if (!memory.copyOut(address, packet, packetLength, size)) {
            fault(MDD_BUFFER);
            return;
        }
        packetLength += size;
    }

    private void send(int q) {
        int len = packetLength;
        if (tso) {
            int header = macLen + ipLen + l4Len;
            if (l4Len < 20 || ipLen < 20 || macLen < MIN_FRAME || header + tsoLength != len
                    || header + mss > MAX_FRAME) {
                fault(MDD_LENGTH);
                return;
            }
            segment(q, header);
            counters.txPackets++;
            return;
        }
        if (len < MIN_FRAME || len > MAX_FRAME) {
            fault(MDD_LENGTH);
            return;
        }
        if (!offloadChecksums(packet, 0, len)) {
            fault(MDD_LENGTH);
            return;
        }
        counters.txPackets++;
        emit(q, packet, len);
    }

    /** Applies IIPT_IPV4_CSUM and L4T to the frame at {@code at}; false when the lengths do not fit the frame. */
    private boolean offloadChecksums(BytesStore<?, ?> s, long at, int len) {
        int iipt = cmd & TxDescriptor.CMD_IIPT_M;
        int l4t = cmd & TxDescriptor.CMD_L4T_M;
        if (iipt == 0 && l4t == 0) {
            return true;
        }
        if (macLen < MIN_FRAME || ipLen < 20 || macLen + ipLen > len) {
            return false;
        }
        long ip = at + macLen;
        if (iipt == TxDescriptor.CMD_IIPT_IPV4_CSUM) {
            OffloadHeaders.ipv4Checksum(s, ip, ipLen);
        }
        if (l4t == TxDescriptor.CMD_L4T_TCP || l4t == TxDescriptor.CMD_L4T_UDP) {
            int protocol = l4t == TxDescriptor.CMD_L4T_TCP ? 6 : OffloadHeaders.PROTOCOL_UDP;
            int l4Length = len - macLen - ipLen;
            if (l4Length < (protocol == 6 ? 20 : 8)) {
                return false;
            }
            OffloadHeaders.l4Checksum(s, ip, ip + ipLen, l4Length, protocol,
                    OffloadHeaders.checksumOffset(protocol));
        }
        return true;
    }

    private void segment(int q, int header) {
        long ip = macLen;
        long l4 = macLen + ipLen;
        boolean v4 = OffloadHeaders.ipVersion(packet, ip) == 4;
        int id = v4 ? OffloadHeaders.ipv4Identification(packet, ip) : 0;
        long seq = OffloadHeaders.tcpSequence(packet, l4);
        int flags = OffloadHeaders.tcpFlags(packet, l4);
        int offset = 0;
        int n = 0;
        while (offset < tsoLength) {
            int chunk = Math.min(mss, tsoLength - offset);
            boolean first = offset == 0;
            boolean last = offset + chunk == tsoLength;
            segment.write(0, packet, 0, header);
            segment.write(header, packet, header + offset, chunk);
            int frameLen = header + chunk;
            if (v4) {
                OffloadHeaders.ipv4TotalLength(segment, ip, ipLen + l4Len + chunk);
                OffloadHeaders.ipv4Identification(segment, ip, id + n & 0xFFFF);
                OffloadHeaders.ipv4Checksum(segment, ip, ipLen);
            } else {
                OffloadHeaders.ipv6PayloadLength(segment, ip, ipLen - 40 + l4Len + chunk);
            }
            OffloadHeaders.tcpSequence(segment, l4, seq + offset & 0xFFFF_FFFFL);
            int f = flags;
            if (!last) {
                f &= ~(OffloadHeaders.TCP_FIN | OffloadHeaders.TCP_PSH);
            }
            if (!first) {
                f &= ~OffloadHeaders.TCP_CWR;
            }
            OffloadHeaders.tcpFlags(segment, l4, f);
            OffloadHeaders.l4Checksum(segment, ip, l4, l4Len + chunk, 6, 16);
            counters.txTsoSegments++;
            emit(q, segment, frameLen);
            offset += chunk;
            n++;
        }
    }

    private void emit(int q, BytesStore<?, ?> s, int len) {
        counters.txFrames++;
        counters.txBytes += len;
        TraceEvent t = trace.start(TraceKind.LAN);
        if (t != null) {
            t.text("dir", "tx").text("op", loopback ? "loopback" : "frame").num("q", q).num("len", len)
                    .num("tci", insertTci).emit();
        }
        if (insertTci == NO_TAG) {
            deliver(s, len);
            return;
        }
        tagged.write(0, s, 0, MAC_ADDRESSES);
        tagged.writeByte(MAC_ADDRESSES, (byte) (TPID_8021Q >>> 8));
        tagged.writeByte(MAC_ADDRESSES + 1, (byte) TPID_8021Q);
        tagged.writeByte(MAC_ADDRESSES + 2, (byte) (insertTci >>> 8));
        tagged.writeByte(MAC_ADDRESSES + 3, (byte) insertTci);
        tagged.write(MAC_ADDRESSES + VLAN_TAG, s, MAC_ADDRESSES, len - MAC_ADDRESSES);
        counters.txBytes += VLAN_TAG;
        deliver(tagged, len + VLAN_TAG);
    }

    /** The finished frame leaves on the wire, or, with MAC loopback on (set_mac_lb), turns back into Rx. */
    private void deliver(BytesStore<?, ?> frame, int len) {
        if (loopback) {
            counters.txLoopedBack++;
            owner.frame(frame, 0, len);
        } else {
            wire.transmit(frame, 0, len);
        }
    }

    private void event(int q, String op, int value) {
        if (counters.txDropped + counters.txBadDoorbell == 1) {
            LOG.warn("LAN Tx queue {}: {} ({}); later drops only counted and traced", q, op, value);
        }
        TraceEvent t = trace.start(TraceKind.LAN);
        if (t != null) {
            t.text("dir", "tx").text("op", op).num("q", q).num("val", value).emit();
        }
    }
}
