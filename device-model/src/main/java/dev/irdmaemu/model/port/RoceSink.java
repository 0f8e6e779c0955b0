package dev.irdmaemu.model.port;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Where the port hands the frames it steers to the RDMA block's RoCEv2 engine: UDP datagrams to port 4791 (IBA
 * vol. 1 Annex A17.2, ROCE_V2_UDP_DPORT) addressed to a unicast MAC. irdma programs no steering for RoCE (no quad
 * hash, no APBVT: those are iWARP's, cm.c), so the device recognises the UDP port itself and picks the QP by the
 * BTH's destination QP. The bytes are valid only during the call; answers whether the frame was delivered to a QP
 * (a frame the engine drops is counted there).
 */
public interface RoceSink {
    RoceSink NONE = new RoceSink() {
        @Override
        public boolean active() {
            return false;
        }

        @Override
        public boolean receive(BytesStore<?, ?> store, long offset, int length) {
            return false;
        }
    };

    /**
     * Whether the function runs RoCE QPs at all: a function in iWARP mode (no RoCE QP live) leaves UDP 4791 to the
     * LAN, as a NIC whose RDMA block is not in RoCE mode does.
     */
    boolean active();

    boolean receive(BytesStore<?, ?> store, long offset, int length);
}
