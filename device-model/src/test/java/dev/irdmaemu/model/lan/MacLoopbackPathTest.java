package dev.irdmaemu.model.lan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The MAC loopback of ice_ethtool.c's self-test (ice_loopback_test): with set_mac_lb on, the frames a Tx ring sends
 * come back whole into the lowest enabled Rx ring (ice_lbtest_receive_frames finds them there with DD and EOF) and
 * none leaves the port; off again, frames go to the wire as before. A PF reset of the queues keeps the setting, which
 * is the firmware's.
 */
class MacLoopbackPathTest {
    final LanRig rig = new LanRig();
    final IceLanDriver d = rig.driver;

    @Test
    void withTheLoopbackOnTxFramesComeBackIntoTheRxRingAndNoneLeaves() {
        d.setupRx(0, 64, 2048, 1);
        d.postRx(63);
        d.setupTx(0, 64, 2);
        rig.lan.macLoopback(true);
        byte[] frame = selfTestFrame();
        for (int i = 0; i < 32; i++) {
            d.queueFrame(frame, 1, 0, 0, 0, 0, 0, 0);
            d.ringTx();
        }
        assertEquals(0, rig.wire.size(), "nothing leaves the port");
        assertEquals(32, rig.lan.counters().txLoopedBack());
        for (int i = 0; i < 32; i++) {
            IceLanDriver.Received r = d.receive();
            assertArrayEquals(frame, r.bytes());
        }
        rig.lan.macLoopback(false);
        d.queueFrame(frame, 1, 0, 0, 0, 0, 0, 0);
        d.ringTx();
        assertEquals(1, rig.wire.size());
        assertEquals(32, rig.lan.counters().rxFrames());
    }

    @Test
    void aQueueResetKeepsTheFirmwaresLoopbackSetting() {
        rig.lan.macLoopback(true);
        rig.lan.reset();
        d.setupRx(0, 64, 2048, 1);
        d.postRx(63);
        d.setupTx(0, 64, 2);
        d.queueFrame(selfTestFrame(), 1, 0, 0, 0, 0, 0, 0);
        d.ringTx();
        assertEquals(0, rig.wire.size());
        assertEquals(1, rig.lan.counters().rxFrames());
    }

    @Test
    void theFlowDirectorsDescriptorOnlyQueueBelowTheLoopbackQueueTakesNoFrame() {
        // ethtool -t offline: the PF VSI's queue 0 is down, the flow director's control queue 1 (dbuf 0, rxmax 0)
        // stays up, the loopback VSI's queue 2 must get the frames
        net.openhft.chronicle.bytes.BytesStore<?, ?> c = LanHostileDriverTest.goodRxContext(rig.ram.allocate(4096));
        new dev.irdmaemu.fw.lan.RxQueueContext().wrap(c, 0).dataBufferBytes(0).rxMax(0);
        org.junit.jupiter.api.Assertions.assertTrue(d.programRx(1, c, 1));
        d.setupRx(2, 64, 2048, 1);
        d.postRx(63);
        d.setupTx(0, 64, 2);
        rig.lan.macLoopback(true);
        byte[] frame = selfTestFrame();
        d.queueFrame(frame, 1, 0, 0, 0, 0, 0, 0);
        d.ringTx();
        assertArrayEquals(frame, d.receive().bytes());
        assertEquals(0, rig.lan.counters().rxOversize());
    }

    /** ice_lbtest_create_frame's 64 bytes: 0xFF everywhere with DE, AD, BE, EF at 32, 42, 44 and 46. */
    static byte[] selfTestFrame() {
        byte[] f = new byte[64];
        java.util.Arrays.fill(f, (byte) 0xFF);
        f[6] = 0x02;
        f[32] = (byte) 0xDE;
        f[42] = (byte) 0xAD;
        f[44] = (byte) 0xBE;
        f[46] = (byte) 0xEF;
        return f;
    }
}
