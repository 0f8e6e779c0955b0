package dev.irdmaemu.bridge.e810;

import dev.irdmaemu.bridge.kit.GuestKit;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 16, two guests: each boots Linux 7.3 with its own emulated E810, the two E810s share one cable, and the
 * stock irdma.ko of one connects to the other's (rping -c against rping -s, ten verified pings). Nothing is left on
 * either E810 once its guest has powered off, and the cable's capture decodes with irdma-emu decode (one MPA v2
 * exchange, good CRCs) and with tshark ({@link E810PairExpectations}). In the same boot the two then run rping and
 * ucmatose over IPv6, over VLAN 100 with priority 5 and at MTU 9000 (issue 29 item 4).
 */
class E810PairBootTest {
    @Test
    void twoGuestsStockIrdmaConnectThroughTheirEmulatedE810s() throws Exception {
        GuestKit kit = GuestKit.locate().e810();
        E810PairRun.Outcome o = E810PairRun.run(kit, Path.of("target", "boot-tests", "e810-pair"), 10,
                Duration.ofSeconds(300), s -> { });
        E810PairExpectations.verifiedPings(o, 10);
        E810PairExpectations.rdmaPaths(o, 10);
    }
}
