package dev.irdmaemu.bridge.vhost;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the back-end offers, and the property that narrows it for comparisons. */
class VirtioNetTest {
    @AfterEach
    void clear() {
        System.clearProperty(VirtioNet.OFFLOADS_PROPERTY);
    }

    @Test
    void allOffloadsByDefaultLessLargeReceivesOrNoneOnRequest() {
        assertEquals(VirtioNet.OFFERED_FEATURES, VirtioNet.offeredFeatures());
        assertEquals(0x1_7000_b983L, VirtioNet.OFFERED_FEATURES, "CSUM GUEST_CSUM GUEST_TSO4/6 HOST_TSO4/6 HOST_ECN "
                + "MRG_RXBUF INDIRECT_DESC EVENT_IDX PROTOCOL_FEATURES VERSION_1");
        System.setProperty(VirtioNet.OFFLOADS_PROPERTY, "no-lro");
        assertEquals(0x1_7000_b803L, VirtioNet.offeredFeatures());
        System.setProperty(VirtioNet.OFFLOADS_PROPERTY, "none");
        assertEquals(0x1_7000_8000L, VirtioNet.offeredFeatures());
        System.setProperty(VirtioNet.OFFLOADS_PROPERTY, "some");
        assertEquals(VirtioNet.OFFERED_FEATURES, VirtioNet.offeredFeatures(), "anything else is all");
    }
}
