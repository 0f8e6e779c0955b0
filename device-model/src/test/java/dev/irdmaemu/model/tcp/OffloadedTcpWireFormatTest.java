package dev.irdmaemu.model.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/** What the engine puts on the wire follows the QP context: MACs, VLAN TCI, TTL, TOS, ports, options. */
class OffloadedTcpWireFormatTest {
    @Test
    void framesCarryTheContextsAddressingAndOptions() {
        SimScheduler scheduler = new SimScheduler(1);
        TcpPacket parse = new TcpPacket();
        List<String> problems = new ArrayList<>();
        int[] frames = new int[1];
        TcpConnectionParams base = TcpPair.defaults(true).toBuilder().timestamps(true, 0xabcdef01L)
                .dropOutOfOrder(false).vlan(0xa123).build();
        TcpConnectionParams p = base.toBuilder().ipHeader(0x33, 0x2e, 0).window(base.sndWnd(), base.sndWscale(), 5)
                .mss(1000).timestamps(true, 0xabcdef01L).dupAckThreshold(3).retransmits(8, base.rtoMinNanos(),
                        base.rtoInitialNanos()).dropOutOfOrder(false).buffers(1 << 16, 1 << 16)
                .congestion(2000, base.ssThresh()).build();
        TcpReceiver rx = new TcpReceiver() {
            @Override
            public void deliver(BytesStore<?, ?> store, long offset, int length) {
            }

            @Override
            public long freeSpace() {
                return 40_000;
            }
        };
        OffloadedTcp e = new OffloadedTcp(scheduler, p, (store, offset, length) -> {
            frames[0]++;
            if (!parse.wrap(store, offset, length).validate().accepted()) {
                problems.add("invalid frame");
                return;
            }
            TcpHeader h = parse.tcp();
            check(problems, parse.ethernet().destination() == TcpPair.MAC_B, "destination MAC");
            check(problems, parse.ethernet().source() == TcpPair.MAC_A, "source MAC");
            check(problems, parse.vlanId() == 0x123 && parse.ethernet().pcp() == 5, "VLAN TCI 0xa123");
            check(problems, parse.ipv4().ttl() == 0x33 && parse.ipv4().tos() == 0x2e, "TTL/TOS");
            check(problems, h.sourcePort() == TcpPair.PORT_A && h.destinationPort() == TcpPair.PORT_B, "ports");
            check(problems, h.hasTimestamps() && h.tsEcr() == 0xabcdef01L, "timestamps echo ts_recent");
            // 40,000 bytes free, rcv_wscale 5: field 1250 (RFC 7323 §2.3).
            check(problems, h.window() == 40_000 >> 5, "window " + h.window());
            check(problems, parse.tcpPayloadLength() <= 1000 - 12, "MSS less the timestamp option");
            check(problems, h.sequenceNumber() == TcpPair.ISS_A
                    || TcpHeader.seqDelta(h.sequenceNumber(), TcpPair.ISS_A) > 0, "sequence");
        }, rx, (c, ev) -> { });
        BytesStore<?, Void> data = BytesStore.nativeStoreWithFixedCapacity(5000);
        try {
            assertTrue(e.send(data, 0, 5000));
            scheduler.runFor(1_000);
            // 988 bytes a segment within a 2000-byte initial cwnd: two segments; the 24 bytes left of the
            // window are not sent as a runt (sender SWS avoidance, RFC 9293 §3.8.6.2.1).
            assertEquals(2, frames[0]);
        } finally {
            data.releaseLast();
            e.release();
        }
        assertTrue(problems.isEmpty(), problems.toString());
    }

    private static void check(List<String> problems, boolean ok, String what) {
        if (!ok && !problems.contains(what)) {
            problems.add(what);
        }
    }
}
