package dev.irdmaemu.cm.rping;

import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WcStatus;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * An rping client and an rping server joined back to back in memory, in place of two QPs and a wire: a Send lands
 * in the peer's posted receive, a Read copies from the peer's region its rkey names, a Write into it, each checked
 * against the region's key and bounds as a device would; every completion is delivered later, in order, from a
 * preallocated ring (so a run allocates nothing of its own). Both sides' buffers share one store.
 */
final class RpingLoopback {
    static final IpEndpoint SERVER = IpEndpoint.of("192.0.2.2", RpingOptions.DEFAULT_PORT);
    static final IpEndpoint CLIENT = IpEndpoint.of("192.0.2.1", 40000);
    private static final int RING = 64;

    final BytesStore<?, ?> store;
    final RpingBuffers clientBuffers;
    final RpingBuffers serverBuffers;
    final Side clientSide;
    final Side serverSide;
    RpingClient client;
    RpingServerConnection server;
    /** Set to make the wire flip one byte of the next Write's data (a corruption nothing below the ULP caught). */
    boolean corruptNextWrite;

    private final int[] evSide = new int[RING];
    private final WcStatus[] evStatus = new WcStatus[RING];
    private final WcOpcode[] evOpcode = new WcOpcode[RING];
    private final long[] evLength = new long[RING];
    private final CmEventType[] evCm = new CmEventType[RING];
    private final CmStatus[] evCmStatus = new CmStatus[RING];
    private final CmReason[] evCmReason = new CmReason[RING];
    private int head;
    private int tail;

    RpingLoopback(RpingOptions clientOptions, RpingOptions serverOptions) {
        int cs = clientOptions.size();
        int ss = serverOptions.size();
        // client: recv, send, rdma, start; server: recv, send, rdma; each at its own address and key
        long o = 0;
        store = BytesStore.nativeStoreWithFixedCapacity(64 + 2L * cs + ss + 5 * 64 + 4096);
        RpingBuffers.Place cRecv = new RpingBuffers.Place(o, 0x7000_1000L, 0x101);
        o += 64;
        RpingBuffers.Place cSend = new RpingBuffers.Place(o, 0x7000_2000L, 0x102);
        o += 64;
        RpingBuffers.Place cRdma = new RpingBuffers.Place(o, 0x7001_0000L, 0x1a3);
        o += cs;
        RpingBuffers.Place cStart = new RpingBuffers.Place(o, 0x7002_0000L, 0x2b4);
        o += cs;
        RpingBuffers.Place sRecv = new RpingBuffers.Place(o, 0x9000_1000L, 0x305);
        o += 64;
        RpingBuffers.Place sSend = new RpingBuffers.Place(o, 0x9000_2000L, 0x306);
        o += 64;
        RpingBuffers.Place sRdma = new RpingBuffers.Place(o, 0x9001_0000L, 0x4c7);
        clientBuffers = new RpingBuffers(store, cs, cRecv, cSend, cRdma, cStart);
        serverBuffers = new RpingBuffers(store, ss, sRecv, sSend, sRdma, null);
        clientSide = new Side(0);
        serverSide = new Side(1);
        client = new RpingClient(clientOptions, clientBuffers, clientSide);
        server = new RpingServerConnection(serverOptions, serverBuffers, serverSide);
    }

    static RpingOptions clientOptions(int count, int size) {
        return RpingOptions.client(SERVER, CLIENT, count).withSize(size).validating();
    }

    static RpingOptions serverOptions(int size) {
        return RpingOptions.server(RpingOptions.DEFAULT_PORT).withSize(size).validating();
    }

    /** Both sides set up, then connected as the CM reports it: ESTABLISHED on the server, CONNECT_REPLY. */
    RpingLoopback connect() {
        client.start();
        server.start();
        server.cmEvent(CmEventType.ESTABLISHED, CmStatus.OK, CmReason.NONE);
        client.cmEvent(CmEventType.CONNECT_REPLY, CmStatus.OK, CmReason.NONE);
        return this;
    }

    /** Delivers completions and upcalls until none is left; answers how many. */
    int run() {
        return run(Integer.MAX_VALUE);
    }

    /** Delivers at most {@code max} completions and upcalls (each may cause more); answers how many. */
    int run(int max) {
        int n = 0;
        while (tail != head && n < max) {
            int i = tail % RING;
            tail++;
            n++;
            if (evCm[i] != null) {
                if (evSide[i] == 0) {
                    client.cmEvent(evCm[i], evCmStatus[i], evCmReason[i]);
                } else {
                    server.cmEvent(evCm[i], evCmStatus[i], evCmReason[i]);
                }
                continue;
            }
            RpingCompletions to = evSide[i] == 0 ? client : server;
            to.completion(evStatus[i], evOpcode[i], evLength[i]);
        }
        return n;
    }

    private void complete(int side, WcStatus status, WcOpcode opcode, long length) {
        int i = slot(side);
        evCm[i] = null;
        evStatus[i] = status;
        evOpcode[i] = opcode;
        evLength[i] = length;
    }

    /** A CM upcall for {@code side} (0 the client), delivered in turn with the completions. */
    void cm(int side, CmEventType type, CmStatus status, CmReason reason) {
        int i = slot(side);
        evCm[i] = type;
        evCmStatus[i] = status;
        evCmReason[i] = reason;
    }

    private int slot(int side) {
        if (head - tail == RING) {
            throw new IllegalStateException("event ring full");
        }
        int i = head % RING;
        head++;
        evSide[i] = side;
        return i;
    }

    /** One side's QP: posts carried out against the other side's buffers. */
    final class Side implements RpingVerbs {
        final int id;
        int postedRecvs;
        int disconnects;
        boolean released;

        Side(int id) {
            this.id = id;
        }

        private Side peer() {
            return id == 0 ? serverSide : clientSide;
        }

        private RpingBuffers mine() {
            return id == 0 ? clientBuffers : serverBuffers;
        }

        private RpingBuffers theirs() {
            return id == 0 ? serverBuffers : clientBuffers;
        }

        @Override
        public PostStatus postRecv() {
            if (postedRecvs == RpingOptions.RQ_DEPTH) {
                return PostStatus.QUEUE_FULL;
            }
            postedRecvs++;
            return PostStatus.OK;
        }

        @Override
        public PostStatus postSend() {
            Side p = peer();
            if (p.postedRecvs == 0) {
                // RFC 5040 §7.2: a Send with no receive posted is an error at the receiver; fail loudly here
                throw new IllegalStateException("a Send with no receive posted at the peer");
            }
            p.postedRecvs--;
            store.move(mine().sendOffset, theirs().recvOffset, RpingInfo.SIZE);
            complete(id, WcStatus.SUCCESS, WcOpcode.SEND, RpingInfo.SIZE);
            complete(p.id, WcStatus.SUCCESS, WcOpcode.RECV, RpingInfo.SIZE);
            return PostStatus.OK;
        }

        /** The peer's region {@code rkey} names and holds [address, address + length), as a store offset, or -1. */
        private long remote(long address, int rkey, int length) {
            RpingBuffers t = theirs();
            if (rkey == t.rdmaKey && address >= t.rdmaAddress && address + length <= t.rdmaAddress + t.size) {
                return t.rdmaOffset + (address - t.rdmaAddress);
            }
            if (t.hasStartBuffer() && rkey == t.startKey && address >= t.startAddress
                    && address + length <= t.startAddress + t.size) {
                return t.startOffset + (address - t.startAddress);
            }
            return -1;
        }

        @Override
        public PostStatus postRead(long remoteAddress, int rkey, int length) {
            long from = remote(remoteAddress, rkey, length);
            if (from < 0 || length > mine().size) {
                complete(id, WcStatus.REM_ACCESS_ERR, WcOpcode.RDMA_READ, length);
                return PostStatus.OK;
            }
            store.move(from, mine().rdmaOffset, length);
            complete(id, WcStatus.SUCCESS, WcOpcode.RDMA_READ, length);
            return PostStatus.OK;
        }

        @Override
        public PostStatus postWrite(long remoteAddress, int rkey, int length) {
            long to = remote(remoteAddress, rkey, length);
            if (to < 0 || length > mine().size) {
                complete(id, WcStatus.REM_ACCESS_ERR, WcOpcode.RDMA_WRITE, length);
                return PostStatus.OK;
            }
            store.move(mine().rdmaOffset, to, length);
            if (corruptNextWrite) {
                corruptNextWrite = false;
                store.writeByte(to + length / 2, (byte) (store.readByte(to + length / 2) ^ 0x20));
            }
            complete(id, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, length);
            return PostStatus.OK;
        }

        @Override
        public void disconnect(boolean abortive) {
            disconnects++;
            // the CM's upcalls for a close, later: the peer hears DISCONNECT then CLOSE, the closer CLOSE
            int p = 1 - id;
            cm(p, CmEventType.DISCONNECT, abortive ? CmStatus.CONNECTION_RESET : CmStatus.OK,
                    abortive ? CmReason.PEER_RESET : CmReason.NONE);
            cm(p, CmEventType.CLOSE, CmStatus.OK, CmReason.NONE);
            cm(id, CmEventType.CLOSE, CmStatus.OK, abortive ? CmReason.LOCAL_ABORT : CmReason.NONE);
        }

        @Override
        public void release(Runnable then) {
            released = true;
            then.run();
        }
    }
}
