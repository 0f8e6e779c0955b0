package dev.irdmaemu.cm.hw;

import dev.irdmaemu.cm.CmHardwarePort.Receiver;
import dev.irdmaemu.driver.verbs.QpEvent;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.iwarp.IwarpFrame;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.fw.wire.LinkPort;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * What the in-memory device gives the QPs that took connections over ({@link OffloadedConnection}): the clock,
 * the scratch a segment is built in (shared: each is built and handed to the link, which copies it, in one go),
 * the wire, the AE path to the CM, and the device's switches (IRDMA_FEATURE_RTS_AE; QPs that send nothing).
 */
final class OffloadEngine {
    private final SimScheduler scheduler;
    private final CallLog log;
    private final Receiver cm;
    private final TcpPacketBuilder segmentBuilder = new TcpPacketBuilder();
    private final BytesStore<?, ?> segmentBuffer = BytesStore.wrap(new byte[Link.MAX_FRAME]);
    private final IwarpFrame iwarp = new IwarpFrame();
    private LinkPort wire;
    private boolean rtsAe;
    private boolean muted;

    /** {@code cm}: where the QPs' events go (the CM attached to the device). */
    OffloadEngine(SimScheduler scheduler, CallLog log, Receiver cm) {
        this.scheduler = scheduler;
        this.log = log;
        this.cm = cm;
    }

    /** The device's port on its link, once plugged in. */
    void plug(LinkPort wire) {
        this.wire = wire;
    }

    void raiseRtsAe() {
        this.rtsAe = true;
    }

    void mute() {
        this.muted = true;
    }

    SimScheduler scheduler() {
        return scheduler;
    }

    /** True when QPs raise {@link QpEvent#ESTABLISHED} (the device has IRDMA_FEATURE_RTS_AE). */
    boolean reportsEstablished() {
        return rtsAe;
    }

    boolean qpsMuted() {
        return muted;
    }

    TcpPacketBuilder segmentBuilder() {
        return segmentBuilder;
    }

    BytesStore<?, ?> segmentBuffer() {
        return segmentBuffer;
    }

    IwarpFrame iwarpWriter() {
        return iwarp;
    }

    void deliverQpEvent(int qpn, QpEvent event) {
        log.record("qp " + qpn + " " + event);
        cm.qpEvent(qpn, event);
    }

    void send(BytesStore<?, ?> frame, long offset, int length) {
        wire.transmit(frame, offset, length);
    }
}
