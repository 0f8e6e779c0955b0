package dev.irdmaemu.model.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.qp.TcpOffloadInfo;
import org.junit.jupiter.api.Test;

/** The QP context's TCP offload fields become the engine's parameters (irdma_init_tcp_ctx, cm.c, fills them). */
class TcpConnectionParamsTest {
    private static TcpOffloadInfo info(boolean ipv4, boolean vlan, int dupAck, int rexmit) {
        return new TcpOffloadInfo.Builder()
                .addresses(ipv4, new int[] {0x20010db8, 0, 0, ipv4 ? TcpPair.IP_A : 1},
                        new int[] {0x20010db8, 0, 0, ipv4 ? TcpPair.IP_B : 2})
                .ports(20000, 40000).ipHeader(0x40, 0x08, 0x777).vlan(vlan, 0x6005).timeStamp(true, 0x11223344L, 0)
                .dropOooSeg(true).windowScale(true, 7, 6).ignoreTcpOptions(true, true).dupAckThresh(dupAck).sndMss(1460)
                .arpIdx(3).tcpState(5).sendSequence(0x1000, 0x1000, 0x1000).sendWindow(0x30000, 0x2000, 0x1000, 0x30000)
                .receive(0x2000, 0x40000).rtt(0, 6).congestion(2920, 0x3fffffff).rexmitThresh(rexmit).build();
    }

    @Test
    void ipv4OffloadMaps() {
        TcpConnectionParams p = TcpConnectionParams.fromOffload(info(true, true, 0, 0), TcpPair.MAC_A, TcpPair.MAC_B);
        assertFalse(p.ipv6());
        assertEquals(IpAddress.mappedLo(TcpPair.IP_A), p.localLo());
        assertEquals(IpAddress.mappedLo(TcpPair.IP_B), p.remoteLo());
        assertEquals(20000, p.localPort());
        assertEquals(40000, p.remotePort());
        assertEquals(0x6005, p.vlanTci());
        assertEquals(0x40, p.ttl());
        assertEquals(0x08, p.tos());
        assertEquals(0x1000, p.sndUna());
        assertEquals(0x1000, p.sndNxt());
        assertEquals(0x2000, p.rcvNxt());
        assertEquals(0x30000, p.sndWnd());
        assertEquals(7, p.sndWscale());
        assertEquals(6, p.rcvWscale());
        assertEquals(1460, p.mss());
        assertTrue(p.timestamps());
        assertEquals(0x11223344L, p.tsRecent());
        assertTrue(p.dropOutOfOrder());
        assertEquals(2920, p.initialCwnd());
        // Zero thresholds fall back: RFC 5681 §3.2's three duplicates, irdma cm.h IRDMA_DEFAULT_REXMIT_THRESH.
        assertEquals(3, p.dupAckThreshold());
        assertEquals(8, p.maxRetransmits());
    }

    @Test
    void ipv6OffloadMapsAndThresholdsAreKept() {
        TcpConnectionParams p = TcpConnectionParams.fromOffload(info(false, false, 4, 5), TcpPair.MAC_A,
                TcpPair.MAC_B);
        assertTrue(p.ipv6());
        assertEquals(0x20010db8_00000000L, p.localHi());
        assertEquals(1, p.localLo());
        assertEquals(2, p.remoteLo());
        assertEquals(-1, p.vlanTci());
        assertEquals(4, p.dupAckThreshold());
        assertEquals(5, p.maxRetransmits());
    }

    @Test
    void nonsenseIsRefused() {
        TcpConnectionParams ok = TcpPair.defaults(true);
        assertThrows(IllegalArgumentException.class, () -> ok.toBuilder().buffers(1000, 4096).build());
        assertThrows(IllegalArgumentException.class, () -> ok.toBuilder().window(1000, 15, 0).build());
        assertThrows(IllegalArgumentException.class, () -> ok.toBuilder().retransmits(8, 0, 1).build());
    }

    @Test
    void anRtoFloorRaisesTheContextsFloorAndInitialRtoButNotTheDelayedAck() {
        // irdma writes RTOMIN 5 (read as ms): a 5 ms floor, and a delayed ACK under half of it
        TcpConnectionParams ctx = TcpConnectionParams.fromOffload(info(true, false, 0, 0), TcpPair.MAC_A,
                TcpPair.MAC_B, 5);
        assertEquals(5_000_000L, ctx.rtoMinNanos());
        TcpConnectionParams paced = ctx.withRtoFloor(200_000_000L);
        assertEquals(200_000_000L, paced.rtoMinNanos());
        assertEquals(200_000_000L, paced.rtoInitialNanos());
        assertEquals(ctx.delayedAckNanos(), paced.delayedAckNanos(), "the model still acknowledges promptly");
        assertEquals(ctx.rtoMaxNanos(), paced.rtoMaxNanos());
        assertEquals(ctx.toBuilder().window(1, 0, 0).build().sndWnd(),
                paced.toBuilder().window(1, 0, 0).build().sndWnd());
        assertTrue(ctx == ctx.withRtoFloor(0) && ctx == ctx.withRtoFloor(5_000_000L), "no floor, or a lower one");
        TcpConnectionParams slowStart = ctx.toBuilder().congestion(7L * 1460, 9L * 1460).build();
        assertEquals(7L * 1460, slowStart.initialCwnd());
        assertEquals(9L * 1460, slowStart.ssThresh());
    }
}
