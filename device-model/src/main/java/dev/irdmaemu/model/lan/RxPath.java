package dev.irdmaemu.model.lan;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.Ipv6Header;
import dev.irdmaemu.fw.lan.OffloadHeaders;
import dev.irdmaemu.fw.lan.RxFlexDescriptor;
import dev.irdmaemu.fw.lan.RxPacketType;
import dev.irdmaemu.fw.lan.RxQueueContext;
import dev.irdmaemu.fw.lan.ToeplitzHash;
import dev.irdmaemu.model.ice.FlowProfiles;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receive side of the LAN queues (ice_base.c ice_setup_rx_ctx / ice_vsi_ctrl_one_rx_ring, ice_txrx.c
 * ice_clean_rx_irq): each queue's context as the eight QRX_CONTEXT dwords ice wrote, taken when ice sets QRX_CTRL
 * QENA_REQ (QENA_STAT follows at once when the context is valid, stays clear when not); QRX_TAIL posts descriptors.
 * A frame the port hands to the LAN lands in the VSI that holds the lowest enabled queue; when that VSI has an RSS key
 * and LUT ({@link RxSteering}), the frame's Toeplitz hash over the fields ice_lib.c's default_rss_cfgs select (the
 * IPv4 or IPv6 source and destination, then the TCP or UDP source and destination ports; fragments and other
 * protocols the addresses alone; other frames no hash) picks the queue through the LUT ({@link RssView}) and is
 * written into the descriptor's rss_hash with RSS_VALID (ice_txrx_lib.c ice_get_rx_hash reads it from RXDID 2);
 * without RSS the frame goes to the lowest enabled queue, as before. A frame steered to a queue that is not enabled
 * is dropped and counted. The frame fills the posted buffers from the head, a data buffer's size each (ice_setup_rx_ctx's dbuf), then each descriptor is written back
 * in the flex NIC format with DD, the last with EOF, the packet type and the checksum status, and the queue's
 * interrupt is raised through QINT_RQCTL. A frame that does not fit the posted descriptors is dropped whole and
 * counted (GLV_RDPC); a descriptor or buffer outside guest memory drops the frame and raises an Rx MDD event.
 * A header-split queue ({@code ethtool -G DEV tcp-data-split on}: dtype 1, hbuf, hsplit_0 as ice_base.c
 * ice_setup_rx_ctx programs them) puts the frame's headers (up to the end of the TCP or UDP header, else of the IP
 * header, else of the Ethernet header; SCTP is split after IP, the model parsing no SCTP) into the first
 * descriptor's header buffer (hdr_addr) and the rest into the packet buffers; the first descriptor's write-back
 * carries the header length and SPH (ice_txrx.c ice_clean_rx_irq reads them), each descriptor's pkt_len its share of
 * the payload. Headers longer than the header buffer go whole to the packet buffers with HBO on the first
 * descriptor. Nothing allocates per frame.
 */
public final class RxPath {
    private static final Logger LOG = LoggerFactory.getLogger(RxPath.class);

    private final int queues;
    private final HostMemory memory;
    private final Trace trace;
    private final LanQueues owner;
    private final LanCounters counters;
    private final BytesStore<?, ?> contexts;
    private final RxFlexDescriptor posted = new RxFlexDescriptor();
    private final RxQueueContext context = new RxQueueContext();
    private final boolean[] enabled;
    private final long[] base;
    private final int[] length;
    private final int[] bufferSize;
    /** Header buffer bytes of a header-split queue (hbuf), 0 for a queue without split. */
    private final int[] headerSize;
    private final int[] rxMax;
    private final int[] head;
    private final int[] tail;
    private final long[] bufferAddress;
    private final EthernetFrame eth = new EthernetFrame();
    private final Ipv4Header ipv4 = new Ipv4Header();
    private final Ipv6Header ipv6 = new Ipv6Header();
    private final RssView rss = new RssView();
    private RxSteering steering = RxSteering.NONE;
    private long rssGeneration = Long.MIN_VALUE;
    private int rssQueue = -1;
    private boolean rssOn;
    /** What {@link #classify} found to hash: none, the IP addresses, or the addresses and the ports. */
    private int hashInput;
    private long l4At;
    private int lowestEnabled = -1;
    private long rejectedContexts;
    private int status0;
    /** Where {@link #classify} found the frame's headers end: after L4, else after IP, else after L2. */
    private int splitAt;
    /** The header buffer of the frame's first descriptor, fetched with its packet buffers. */
    private long headerAddress;
    /** The frame's header did not fit the queue's header buffer: it goes whole to the packet buffers, with HBO. */
    private boolean headerOverflow;

    RxPath(int queues, HostMemory memory, Trace trace, LanQueues owner, LanCounters counters) {
        this.queues = queues;
        this.memory = memory;
        this.trace = trace;
        this.owner = owner;
        this.counters = counters;
        this.contexts = BytesStore.nativeStoreWithFixedCapacity((long) queues * RxQueueContext.SIZE);
        contexts.zeroOut(0, contexts.capacity());
        this.enabled = new boolean[queues];
        this.base = new long[queues];
        this.length = new int[queues];
        this.bufferSize = new int[queues];
        this.headerSize = new int[queues];
        this.rxMax = new int[queues];
        this.head = new int[queues];
        this.tail = new int[queues];
        this.bufferAddress = new long[RxQueueContext.MAX_CHAINED_BUFFERS * 4];
    }

    private static final int HASH_NONE = 0;
    private static final int HASH_IPV4 = 1;
    private static final int HASH_IPV4_PORTS = 2;
    private static final int HASH_IPV6 = 3;
    private static final int HASH_IPV6_PORTS = 4;

    /** Where the RSS configuration comes from (the firmware's VSI table). */
    void steering(RxSteering source) {
        this.steering = source == null ? RxSteering.NONE : source;
        this.rssGeneration = Long.MIN_VALUE;
    }

    void reset() {
        rssGeneration = Long.MIN_VALUE;
        contexts.zeroOut(0, contexts.capacity());
        for (int q = 0; q < queues; q++) {
            enabled[q] = false;
            head[q] = 0;
            tail[q] = 0;
        }
        lowestEnabled = -1;
    }

    // ---- registers

    int contextDword(int q, int dword) {
        return contexts.readInt((long) q * RxQueueContext.SIZE + dword * 4L);
    }

    void contextDword(int q, int dword, int value) {
        contexts.writeInt((long) q * RxQueueContext.SIZE + dword * 4L, value);
    }

    /** QRX_CTRL's value as read: QENA_STAT mirrors whether the queue is enabled. */
    int control(int q, int stored) {
        int v = stored & ~dev.irdmaemu.fw.lan.LanRegister.QRX_CTRL_QENA_STAT_M;
        return enabled[q] ? v | dev.irdmaemu.fw.lan.LanRegister.QRX_CTRL_QENA_STAT_M : v;
    }

    void controlWrite(int q, int value) {
        boolean request = (value & dev.irdmaemu.fw.lan.LanRegister.QRX_CTRL_QENA_REQ_M) != 0;
        if (!request) {
            if (enabled[q]) {
                enabled[q] = false;
                recomputeLowest();
                event(q, "rx_disable", 0);
            }
            return;
        }
        if (enabled[q]) {
            return;
        }
        context.wrap(contexts, (long) q * RxQueueContext.SIZE);
        RxQueueContext.Status s = context.validate();
        if (!s.accepted()) {
            rejectedContexts++;
            if (rejectedContexts == 1) {
                LOG.warn("Rx queue {} not enabled: its context has {} (later rejections only counted)", q,
                        s.describe());
            }
            TraceEvent t = trace.start(TraceKind.LAN);
            if (t != null) {
                t.text("dir", "rx").text("op", "enable_rejected").num("q", q).text("why", s.describe()).emit();
            }
            return;
        }
        base[q] = context.ringBase();
        length[q] = context.queueLength();
        bufferSize[q] = context.dataBufferBytes();
        headerSize[q] = context.descriptorType() == RxQueueContext.DTYPE_HEADER_SPLIT ? context.headerBufferBytes() : 0;
        rxMax[q] = Math.min(context.rxMax(), bufferSize[q] * RxQueueContext.MAX_CHAINED_BUFFERS);
        head[q] = context.head() < length[q] ? context.head() : 0;
        // ice_vsi_cfg_rxq posts its buffers (ice_alloc_rx_bufs writes the tail) before it sets QENA_REQ: keep them
        if (tail[q] >= length[q]) {
            tail[q] = 0;
        }
        enabled[q] = true;
        recomputeLowest();
        event(q, "rx_enable", length[q]);
    }

    int tail(int q) {
        return tail[q];
    }

    void tailWrite(int q, int value) {
        int v = value & dev.irdmaemu.fw.lan.LanRegister.QRX_TAIL_M;
        if (!enabled[q]) {
            tail[q] = v;
            return;
        }
        if (v >= length[q]) {
            owner.mddRx(q, 1);
            event(q, "tail_beyond_ring", v);
            return;
        }
        tail[q] = v;
    }

    /**
     * The queue a frame without RSS lands in: the lowest enabled queue that takes frames. A descriptor-only queue
     * (the flow director's control VSI: dbuf 0, rxmax 0) is skipped while another is enabled, as the switch never
     * forwards a frame to that VSI (ethtool -t's loopback VSI must get its frames while the PF VSI is down); with
     * only such queues enabled a frame still goes to the lowest of them, which drops it as oversize.
     */
    private void recomputeLowest() {
        lowestEnabled = -1;
        for (int q = 0; q < queues; q++) {
            if (enabled[q] && rxMax[q] > 0) {
                lowestEnabled = q;
                return;
            }
        }
        for (int q = 0; q < queues; q++) {
            if (enabled[q]) {
                lowestEnabled = q;
                return;
            }
        }
    }

    private void event(int q, String op, int value) {
        TraceEvent t = trace.start(TraceKind.LAN);
        if (t != null) {
            t.text("dir", "rx").text("op", op).num("q", q).num("val", value).emit();
        }
    }

    // ---- the data path

    /** Posted descriptors of queue {@code q} (from head up to, not including, tail). */
    public int posted(int q) {
        if (q < 0 || q >= queues || !enabled[q]) {
            return 0;
        }
        int n = tail[q] - head[q];
        return n < 0 ? n + length[q] : n;
    }

    public int head(int q) {
        return q < 0 || q >= queues ? 0 : head[q];
    }

    /** Rx queues enabled (QRX_CTRL.QENA_REQ) and not disabled since. */
    public int enabledCount() {
        int n = 0;
        for (boolean e : enabled) {
            if (e) {
                n++;
            }
        }
        return n;
    }

    public boolean enabled(int q) {
        return q >= 0 && q < queues && enabled[q];
    }

    /** A frame from the port's LAN side (the bytes are valid only during the call). */
    void frame(BytesStore<?, ?> store, long offset, int frameLength) {
        int q = lowestEnabled;
        if (q < 0) {
            counters.rxNoQueue++;
            return;
        }
        int ptype = classify(store, offset, frameLength);
        int rssHash = 0;
        if (rssFor(q)) {
            rssHash = hash(store, ptype);
            boolean inMap = rss.inMap(rssHash);
            int target = inMap ? rss.queue(rssHash) : q;
            if (!inMap || target >= queues || !enabled[target]) {
                counters.rxRssQueueDisabled++;
                drop(q, "rss_queue_disabled", frameLength);
                return;
            }
            q = target;
            counters.rxHashed++;
        }
        if (frameLength <= 0 || frameLength > rxMax[q]) {
            counters.rxOversize++;
            drop(q, "oversize", frameLength);
            return;
        }
        int size = bufferSize[q];
        int header = headerBytes(q, frameLength);
        int payload = frameLength - header;
        int needed = Math.max(1, (payload + size - 1) / size);
        if (needed > posted(q)) {
            counters.rxNoDescriptor++;
            owner.rxDiscard();
            drop(q, "no_descriptor", frameLength);
            return;
        }
        if (!fetchBuffers(q, needed, size, payload, header)) {
            return;
        }
        head[q] = writeBack(q, needed, size, store, offset, payload, header, ptype, rssHash);
        counters.rxFrames++;
        counters.rxBytes += frameLength;
        counters.rxDescriptors += needed;
        if (headerSize[q] != 0) {
            if (headerOverflow) {
                counters.rxHeaderOverflow++;
            } else {
                counters.rxHeaderSplit++;
            }
        }
        TraceEvent t = trace.start(TraceKind.LAN);
        if (t != null) {
            t.text("dir", "rx").text("op", "frame").num("q", q).num("len", frameLength).num("descs", needed)
                    .num("ptype", ptype).num("rss_hash", rssHash & 0xFFFF_FFFFL);
            if (headerSize[q] != 0) {
                t.num("hdr", header).num("hbo", headerOverflow ? 1 : 0);
            }
            t.emit();
        }
        owner.raiseRx(q);
    }

    /**
     * Fetches and checks the {@code needed} descriptors from queue {@code q}'s head and the buffers they post into
     * {@link #bufferAddress}, before any byte is written (the guest may have posted a bad address). False when one
     * is outside host memory: the frame is dropped and the MDD event raised.
     */
    private boolean fetchBuffers(int q, int needed, int size, int payload, int header) {
        int frameLength = payload + header;
        int h = head[q];
        int left = payload;
        for (int i = 0; i < needed; i++) {
            long descriptor = base[q] + (long) h * RxFlexDescriptor.SIZE;
            int r = memory.find(descriptor, RxFlexDescriptor.SIZE);
            int chunk = Math.min(left, size);
            if (r < 0) {
                counters.rxDmaFault++;
                owner.mddRx(q, 2);
                drop(q, "descriptor_unmapped", frameLength);
                return false;
            }
            posted.wrap(memory.store(r), memory.offset(r, descriptor));
            long address = posted.packetBufferAddress();
            if (i == 0 && header > 0) {
                headerAddress = posted.headerBufferAddress();
                if (!memory.contains(headerAddress, header)) {
                    counters.rxDmaFault++;
                    owner.mddRx(q, 3);
                    drop(q, "header_buffer_unmapped", frameLength);
                    return false;
                }
            }
            if (chunk > 0 && !memory.contains(address, chunk)) {
                counters.rxDmaFault++;
                owner.mddRx(q, 3);
                drop(q, "buffer_unmapped", frameLength);
                return false;
            }
            bufferAddress[i] = address;
            left -= chunk;
            h = h + 1 == length[q] ? 0 : h + 1;
        }
        return true;
    }

    /**
     * Copies the frame into the fetched buffers and writes each descriptor back (DD; EOF, the status bits and the
     * RSS hash on the last); answers the queue's new head.
     */
    private int writeBack(int q, int needed, int size, BytesStore<?, ?> store, long offset, int payload, int header,
                          int ptype, int rssHash) {
        int h = head[q];
        int left = payload;
        long at = offset;
        if (header > 0) {
            memory.copyIn(headerAddress, store, at, header);
            at += header;
        }
        boolean split = headerSize[q] != 0;
        for (int i = 0; i < needed; i++) {
            int chunk = Math.min(left, size);
            if (chunk > 0) {
                memory.copyIn(bufferAddress[i], store, at, chunk);
            }
            boolean last = i == needed - 1;
            int status = RxFlexDescriptor.STATUS0_DD | (last ? RxFlexDescriptor.STATUS0_EOF | status0 : 0);
            if (last && hashInput != HASH_NONE && rssOn) {
                status |= RxFlexDescriptor.STATUS0_RSS_VALID;
            }
            long descriptor = base[q] + (long) h * RxFlexDescriptor.SIZE;
            if (split) {
                int hbo = i == 0 && headerOverflow ? RxFlexDescriptor.STATUS0_HBO : 0;
                RxFlexDescriptor.writeBack(memory, descriptor, ptype, chunk, i == 0 ? header : 0, status | hbo,
                        last ? rssHash : 0);
            } else {
                RxFlexDescriptor.writeBack(memory, descriptor, ptype, chunk, status, last ? rssHash : 0);
            }
            at += chunk;
            left -= chunk;
            h = h + 1 == length[q] ? 0 : h + 1;
        }
        return h;
    }

    /**
     * The bytes of the frame queue {@code q} puts in its header buffer: none without header split; with it, up to
     * where {@link #classify} found the headers end (ice_base.c asks for a split after L2, IP and TCP/UDP/SCTP, so
     * the header buffer is never empty). A header longer than the header buffer goes with the payload to the packet
     * buffers and the first descriptor says HBO (counted once the frame is written).
     */
    private int headerBytes(int q, int frameLength) {
        headerOverflow = false;
        if (headerSize[q] == 0) {
            return 0;
        }
        int header = Math.min(splitAt, frameLength);
        if (header > headerSize[q]) {
            headerOverflow = true;
            return 0;
        }
        return header;
    }

    /** True when the VSI holding queue {@code q} hashes; re-reads the steering only after a change. */
    private boolean rssFor(int q) {
        long g = steering.generation();
        if (g != rssGeneration || q != rssQueue) {
            rssGeneration = g;
            rssQueue = q;
            rssOn = steering.lookup(q, rss);
        }
        return rssOn;
    }

    /**
     * The Toeplitz hash of the fields {@link #classify} found that the VSI's RSS profile for {@code ptype} selects
     * (all of them when no profile applies: ice's default input sets), in the order source address, destination
     * address, source port, destination port; 0 for a frame with nothing to hash.
     */
    private int hash(BytesStore<?, ?> store, int ptype) {
        int set = rss.inputSet(ptype);
        if (set == FlowProfiles.NO_PROFILE) {
            set = FlowProfiles.SRC_ADDR | FlowProfiles.DST_ADDR | FlowProfiles.SRC_PORT | FlowProfiles.DST_PORT;
        }
        ToeplitzHash t = rss.hash.start();
        switch (hashInput) {
            case HASH_IPV4:
            case HASH_IPV4_PORTS:
                if ((set & FlowProfiles.SRC_ADDR) != 0) {
                    t.addInt(ipv4.source());
                }
                if ((set & FlowProfiles.DST_ADDR) != 0) {
                    t.addInt(ipv4.destination());
                }
                break;
            case HASH_IPV6:
            case HASH_IPV6_PORTS:
                if ((set & FlowProfiles.SRC_ADDR) != 0) {
                    t.addLong(ipv6.sourceHi()).addLong(ipv6.sourceLo());
                }
                if ((set & FlowProfiles.DST_ADDR) != 0) {
                    t.addLong(ipv6.destinationHi()).addLong(ipv6.destinationLo());
                }
                break;
            default:
                return 0;
        }
        if (hashInput == HASH_IPV4_PORTS || hashInput == HASH_IPV6_PORTS) {
            if ((set & FlowProfiles.SRC_PORT) != 0) {
                t.addShort(OffloadHeaders.l4SourcePort(store, l4At));
            }
            if ((set & FlowProfiles.DST_PORT) != 0) {
                t.addShort(OffloadHeaders.l4DestinationPort(store, l4At));
            }
        }
        return t.value();
    }

    private void drop(int q, String why, int frameLength) {
        TraceEvent t = trace.start(TraceKind.LAN);
        if (t != null) {
            t.text("dir", "rx").text("op", "drop").text("why", why).num("q", q).num("len", frameLength).emit();
        }
    }

    /**
     * The packet type of the frame as libie's table names it, and (in {@link #status0}) L3L4P with the IP and L4
     * checksum errors for IPv4/IPv6 TCP and UDP, as ice_rx_csum reads them.
     */
    private int classify(BytesStore<?, ?> store, long offset, int frameLength) {
        status0 = 0;
        hashInput = HASH_NONE;
        splitAt = frameLength;
        eth.wrap(store, offset, frameLength);
        if (!eth.validate().accepted()) {
            return RxPacketType.L2;
        }
        splitAt = eth.payloadOffset();
        long ip = offset + eth.payloadOffset();
        int ipRoom = frameLength - eth.payloadOffset();
        int type = eth.etherType();
        if (type == EthernetFrame.ETHERTYPE_IPV4) {
            ipv4.wrap(store, ip, ipRoom);
            if (!ipv4.validateStructure().accepted()) {
                return RxPacketType.L2;
            }
            hashInput = HASH_IPV4;
            splitAt += ipv4.headerLength();
            if (ipv4.moreFragments() || ipv4.fragmentOffset() != 0) {
                return RxPacketType.IPV4_FRAG;
            }
            int ipError = ipv4.checksumVerifies() ? 0 : RxFlexDescriptor.STATUS0_XSUM_IPE;
            int protocol = ipv4.protocol();
            long l4 = ip + ipv4.headerLength();
            int l4Length = ipv4.payloadLength();
            int ptype;
            if (protocol == InternetChecksum.PROTOCOL_TCP) {
                ptype = RxPacketType.IPV4_TCP;
            } else if (protocol == OffloadHeaders.PROTOCOL_UDP) {
                ptype = RxPacketType.IPV4_UDP;
            } else {
                if (protocol == 1) {
                    return RxPacketType.IPV4_ICMP;
                }
                return RxPacketType.IPV4;
            }
            if (l4Length >= 4 && l4 + 4 <= offset + frameLength) {
                hashInput = HASH_IPV4_PORTS;
                l4At = l4;
            }
            splitAt += l4HeaderLength(store, l4, (int) (offset + frameLength - l4), protocol);
            long pseudo = InternetChecksum.ipv4PseudoHeaderSum(ipv4.source(), ipv4.destination(), protocol, l4Length);
            status0 = RxFlexDescriptor.STATUS0_L3L4P | ipError | l4Status(store, l4, l4Length, protocol, pseudo);
            return ptype;
        }
        if (type == EthernetFrame.ETHERTYPE_IPV6) {
            ipv6.wrap(store, ip, ipRoom);
            if (!ipv6.validate().accepted()) {
                return RxPacketType.L2;
            }
            hashInput = HASH_IPV6;
            splitAt += Ipv6Header.HEADER_LENGTH;
            int next = ipv6.nextHeader();
            long l4 = ip + Ipv6Header.HEADER_LENGTH;
            int l4Length = ipv6.payloadLength();
            int ptype;
            if (next == InternetChecksum.PROTOCOL_TCP) {
                ptype = RxPacketType.IPV6_TCP;
            } else if (next == OffloadHeaders.PROTOCOL_UDP) {
                ptype = RxPacketType.IPV6_UDP;
            } else {
                return next == 58 ? RxPacketType.IPV6_ICMP : RxPacketType.IPV6;
            }
            if (l4Length >= 4 && l4 + 4 <= offset + frameLength) {
                hashInput = HASH_IPV6_PORTS;
                l4At = l4;
            }
            splitAt += l4HeaderLength(store, l4, (int) (offset + frameLength - l4), next);
            long pseudo = InternetChecksum.ipv6PseudoHeaderSum(ipv6.sourceHi(), ipv6.sourceLo(),
                    ipv6.destinationHi(), ipv6.destinationLo(), l4Length, next);
            status0 = RxFlexDescriptor.STATUS0_L3L4P | l4Status(store, l4, l4Length, next, pseudo);
            return ptype;
        }
        return RxPacketType.L2;
    }

    /**
     * The TCP or UDP header's length at {@code l4} when all of it is in the frame ({@code room} bytes from there),
     * else 0: the split then falls after the IP header.
     */
    private static int l4HeaderLength(BytesStore<?, ?> store, long l4, int room, int protocol) {
        if (protocol == OffloadHeaders.PROTOCOL_UDP) {
            return room >= 8 ? 8 : 0;
        }
        if (protocol != InternetChecksum.PROTOCOL_TCP || room < 20) {
            return 0;
        }
        int length = (store.readUnsignedByte(l4 + 12) >>> 4) * 4;
        return length >= 20 && length <= room ? length : 0;
    }

    private static int l4Status(BytesStore<?, ?> store, long l4, int l4Length, int protocol, long pseudo) {
        int minimum = protocol == InternetChecksum.PROTOCOL_TCP ? 20 : 8;
        if (l4Length < minimum) {
            return RxFlexDescriptor.STATUS0_XSUM_L4E;
        }
        if (protocol == OffloadHeaders.PROTOCOL_UDP && store.readShort(l4 + 6) == 0) {
            return 0; // UDP over IPv4 without a checksum (RFC 768)
        }
        return InternetChecksum.verify(store, l4, l4Length, pseudo) ? 0 : RxFlexDescriptor.STATUS0_XSUM_L4E;
    }

    public long rejectedContexts() {
        return rejectedContexts;
    }
}
