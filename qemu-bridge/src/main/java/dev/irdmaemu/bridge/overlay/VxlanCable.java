package dev.irdmaemu.bridge.overlay;

import dev.irdmaemu.bridge.boot.GuestWire;
import dev.irdmaemu.bridge.e810.FrameMailbox;
import dev.irdmaemu.bridge.vhost.FrameReceiver;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.frame.VxlanHeader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.List;
import java.util.OptionalInt;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An adapter's Ethernet cable carried over a VXLAN segment (RFC 7348): what the adapter transmits leaves as a UDP
 * datagram to the segment's other tunnel endpoints (VTEPs), and what they send comes back into the adapter, so two
 * models in two containers (or on two hosts), or a Linux {@code vxlan} device, share one Ethernet segment.
 *
 * <p>One thread owns the UDP socket and both directions: it waits on the socket and on the adapter's kick, hands
 * received frames to the adapter ({@link GuestWire#toGuest}) and sends the adapter's frames ({@link
 * GuestWire#fromGuest}). Unicast goes to the endpoint the destination MAC was learned from (RFC 7348 section 4:
 * the inner source MAC of a received datagram is learned against its outer source address, {@link VtepTable}),
 * everything else to every endpoint (head-end replication, as a Linux {@code vxlan} device with static remotes does).
 *
 * <p>Everything received is hostile: a datagram from an address that is not one of the configured endpoints'
 * addresses (spoofed; any source port of an endpoint's address is that endpoint's, RFC 7348 section 5), one too
 * short for the header and an Ethernet header (truncated), one without the I flag, one with another VNI, and one
 * whose inner frame is longer than the E810's largest frame (oversized) is dropped and counted in {@link
 * VxlanCounters}, never delivered and never an exception. Nothing is allocated per datagram: the buffers
 * are direct and reused, and the JDK's receive answers the same sender object while the sender stays the same.
 */
public final class VxlanCable implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(VxlanCable.class);
    /** The largest UDP payload: a datagram that does not fit is noticed, not cut silently. */
    private static final int DATAGRAM_MAX = 65_535;
    /** Frames taken from the adapter per round before the socket is looked at again. */
    private static final int BUDGET = 64;
    /** Longest wait without any event (the close flag is looked at this often). */
    private static final long SELECT_MILLIS = 100;

    private final GuestWire adapter;
    private final int vni;
    private final InetSocketAddress[] peers;
    /** Each endpoint's index, made once so that naming a datagram's sender allocates nothing. */
    private final OptionalInt[] peerIds;
    private final DatagramChannel channel;
    private final Selector selector;
    private final VxlanCounters counters = new VxlanCounters();
    private final VtepTable learned;
    private final VxlanHeader rxView = new VxlanHeader();
    private final ByteBuffer rx = ByteBuffer.allocateDirect(DATAGRAM_MAX + 1);
    private final BytesStore<?, ?> rxStore = BytesStore.wrap(rx);
    private final ByteBuffer tx = ByteBuffer.allocateDirect(VxlanHeader.LENGTH + FrameMailbox.MAX_FRAME);
    private final BytesStore<?, ?> txStore = BytesStore.wrap(tx);
    private final FrameReceiver sender = this::send;
    private final Thread thread;
    private volatile boolean closed;

    private VxlanCable(GuestWire adapter, DatagramChannel channel, List<InetSocketAddress> peers, int vni)
            throws IOException {
        this.adapter = adapter;
        this.channel = channel;
        this.vni = vni;
        this.peers = peers.toArray(new InetSocketAddress[0]);
        this.peerIds = new OptionalInt[this.peers.length];
        for (int i = 0; i < peerIds.length; i++) {
            peerIds[i] = OptionalInt.of(i);
        }
        this.learned = new VtepTable(this.peers.length);
        this.selector = Selector.open();
        channel.configureBlocking(false);
        channel.register(selector, SelectionKey.OP_READ);
        this.thread = new Thread(this::run, "vxlan " + channel.getLocalAddress() + " vni " + vni);
        thread.setDaemon(true);
    }

    /**
     * Joins {@code adapter}'s cable to the VXLAN segment {@code vni}: bound to {@code local} (port 0 picks one), with
     * the segment's other endpoints {@code peers} (1..{@value VtepTable#MAX_PEERS}, unicast addresses). The cable's
     * thread starts at once.
     */
    public static VxlanCable open(GuestWire adapter, InetSocketAddress local, List<InetSocketAddress> peers, int vni)
            throws IOException {
        if (vni < 0 || vni > VxlanHeader.MAX_VNI) {
            throw new IllegalArgumentException("VNI " + vni + " is not 24 bits (0.." + VxlanHeader.MAX_VNI + ")");
        }
        if (peers.isEmpty() || peers.size() > VtepTable.MAX_PEERS) {
            throw new IllegalArgumentException("a VXLAN cable takes 1.." + VtepTable.MAX_PEERS + " peers: "
                    + peers.size());
        }
        for (InetSocketAddress p : peers) {
            if (p.isUnresolved() || p.getAddress().isMulticastAddress() || p.getPort() == 0) {
                throw new IllegalArgumentException("peer " + p + " is not a resolved unicast address and port");
            }
        }
        DatagramChannel ch = DatagramChannel.open();
        try {
            ch.bind(local);
            VxlanCable cable = new VxlanCable(adapter, ch, peers, vni);
            adapter.onKick(cable.selector::wakeup);
            cable.thread.start();
            LOG.info("VXLAN cable on {} (VNI {}) to {}", ch.getLocalAddress(), vni, peers);
            return cable;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Where the cable's socket is bound (the port this endpoint's peers send to). */
    public InetSocketAddress localAddress() throws IOException {
        return (InetSocketAddress) channel.getLocalAddress();
    }

    public VxlanCounters counters() {
        return counters;
    }

    public int vni() {
        return vni;
    }

    private void run() {
        try {
            while (!closed) {
                selector.select(SELECT_MILLIS);
                selector.selectedKeys().clear();
                receiveAll();
                while (adapter.fromGuest(sender, BUDGET) == BUDGET && !closed) {
                    receiveAll();
                }
                adapter.flush();
            }
            receiveAll(); // what arrived before the close is counted (and delivered) too
        } catch (ClosedChannelException e) {
            // closed under the thread: the normal end
        } catch (IOException | RuntimeException e) {
            counters.failed(e);
            LOG.warn("VXLAN cable on VNI {} stopped: {}", vni, e.toString());
        }
    }

    /** Every datagram waiting on the socket, checked and delivered or dropped. */
    private void receiveAll() throws IOException {
        for (int i = 0; i < BUDGET; i++) {
            rx.clear();
            SocketAddress from = channel.receive(rx);
            if (from == null) {
                return;
            }
            receive(from, rx.position());
        }
    }

    private void receive(SocketAddress from, int length) {
        OptionalInt known = peerIndex(from);
        if (known.isEmpty()) {
            counters.spoofed.increment();
            return;
        }
        int peer = known.getAsInt();
        if (length > VxlanHeader.LENGTH + FrameMailbox.MAX_FRAME) {
            counters.oversized.increment();
            return;
        }
        VxlanHeader h = rxView.wrap(rxStore, 0, length);
        switch (h.validate()) {
            case TRUNCATED -> counters.truncated.increment();
            case VNI_NOT_VALID -> counters.badHeader.increment();
            case ACCEPTED -> {
                if (h.vni() != vni) {
                    counters.wrongVni.increment();
                    return;
                }
                learned.learn(h.innerSource(), peer);
                counters.received.increment();
                if (!adapter.toGuest(rxStore, VxlanHeader.LENGTH, h.innerLength())) {
                    counters.adapterFull.increment();
                }
            }
        }
    }

    /**
     * The index of the configured endpoint {@code from} is, or empty for a stranger (no allocation). The address
     * names the endpoint, not the port: RFC 7348 section 5 has a VTEP pick its UDP source port from a hash of the
     * inner frame (Linux's {@code vxlan} device does, from its ephemeral range), so an endpoint's datagrams come from
     * many ports. An exact address and port match is taken first, so that endpoints sharing an address (several on
     * one host) stay apart when they send from their own port.
     */
    private OptionalInt peerIndex(SocketAddress from) {
        for (int i = 0; i < peers.length; i++) {
            if (peers[i].equals(from)) {
                return peerIds[i];
            }
        }
        if (from instanceof InetSocketAddress f) {
            for (int i = 0; i < peers.length; i++) {
                if (peers[i].getAddress().equals(f.getAddress())) {
                    return peerIds[i];
                }
            }
        }
        return OptionalInt.empty();
    }

    /** One frame the adapter transmitted: encapsulated once, sent to its endpoint or to all. */
    private void send(BytesStore<?, ?> store, long offset, int length) {
        if (length < VxlanHeader.MIN_INNER || length > FrameMailbox.MAX_FRAME) {
            counters.notSent.increment();
            return;
        }
        VxlanHeader.write(txStore, 0, vni);
        txStore.write(VxlanHeader.LENGTH, store, offset, length);
        int datagram = VxlanHeader.LENGTH + length;
        long destination = NetworkOrder.u48(store, offset);
        // the group bit is the lowest bit of the first octet (IEEE 802): multicast and broadcast go to every endpoint
        int to = (destination & (1L << 40)) == 0 ? learned.peerOf(destination) : -1;
        if (to >= 0) {
            sendTo(peers[to], datagram);
        } else {
            for (InetSocketAddress p : peers) {
                sendTo(p, datagram);
            }
        }
    }

    private void sendTo(InetSocketAddress peer, int datagram) {
        tx.clear().limit(datagram);
        try {
            if (channel.send(tx, peer) == 0) {
                counters.notSent.increment();
            } else {
                counters.sent.increment();
            }
        } catch (IOException e) {
            // e.g. ICMP port unreachable reported on a later send: the segment stays up, as Ethernet does
            counters.notSent.increment();
            LOG.debug("VXLAN send to {} failed: {}", peer, e.toString());
        }
    }

    /** Stops the thread and closes the socket; the counts stay readable. */
    @Override
    public void close() {
        closed = true;
        adapter.onKick(() -> { });
        selector.wakeup();
        // an interrupted caller (Ctrl-C's teardown) still waits for the thread, so the socket is never closed under it
        boolean interrupted = false;
        long end = System.nanoTime() + 5_000_000_000L;
        while (thread.isAlive() && System.nanoTime() < end) {
            try {
                thread.join(Math.max(1, (end - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            selector.close();
            channel.close();
        } catch (IOException e) {
            LOG.debug("closing the VXLAN socket: {}", e.toString());
        }
        LOG.info("VXLAN cable on VNI {} closed: {}", vni, counters);
    }
}
