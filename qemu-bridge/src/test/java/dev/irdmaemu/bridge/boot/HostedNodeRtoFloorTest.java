package dev.irdmaemu.bridge.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The floor of the model's TCP retransmission timeout toward a live guest, and the property that sets it. */
class HostedNodeRtoFloorTest {
    @AfterEach
    void clear() {
        System.clearProperty(HostedNode.RTO_FLOOR_PROPERTY);
    }

    @Test
    void linuxsTcpRtoMinByDefault() {
        assertEquals(200_000_000L, HostedNode.guestPacedLatency().tcpRtoFloorNanos);
    }

    @Test
    void thePropertySetsItZeroLeavesTheContextsAndNonsenseIsBounded() {
        System.setProperty(HostedNode.RTO_FLOOR_PROPERTY, "40");
        assertEquals(40_000_000L, HostedNode.guestPacedLatency().tcpRtoFloorNanos);
        System.setProperty(HostedNode.RTO_FLOOR_PROPERTY, "0");
        assertEquals(0, HostedNode.guestPacedLatency().tcpRtoFloorNanos);
        System.setProperty(HostedNode.RTO_FLOOR_PROPERTY, "-3");
        assertEquals(0, HostedNode.guestPacedLatency().tcpRtoFloorNanos);
        System.setProperty(HostedNode.RTO_FLOOR_PROPERTY, "999999999999");
        assertEquals(60_000_000_000L, HostedNode.guestPacedLatency().tcpRtoFloorNanos);
        System.setProperty(HostedNode.RTO_FLOOR_PROPERTY, "soon");
        assertEquals(200_000_000L, HostedNode.guestPacedLatency().tcpRtoFloorNanos, "not a number: the default");
    }
}
