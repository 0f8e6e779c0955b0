package dev.irdmaemu.bridge.overlay;

import dev.irdmaemu.bridge.boot.GuestWire;
import dev.irdmaemu.bridge.boot.ModelLoop;
import dev.irdmaemu.bridge.vhost.FrameReceiver;
import dev.irdmaemu.fw.pcap.FrameTap;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * An adapter's cable end whose frames, both ways, are also shown to a {@link FrameTap} (a capture): what the far end
 * puts on the cable before the adapter takes it, what the adapter sent as the far end takes it. For a carrier that
 * keeps no capture of its own, such as the {@link VxlanCable} (a capture of the inner frames, as {@code tcpdump} on a
 * Linux {@code vxlan} device shows them). Both directions are called on the far end's one thread, so the tap needs
 * no lock; each frame is stamped with the time since this wire was made. Nothing is allocated per frame.
 */
final class CapturedWire implements GuestWire {
    private final GuestWire adapter;
    private final FrameTap tap;
    private final long start = System.nanoTime();
    private FrameReceiver receiver;
    private final FrameReceiver tapped = this::sent;

    CapturedWire(GuestWire adapter, FrameTap tap) {
        this.adapter = adapter;
        this.tap = tap;
    }

    @Override
    public boolean toGuest(BytesStore<?, ?> store, long offset, int length) {
        tap.frame(System.nanoTime() - start, store, offset, length);
        return adapter.toGuest(store, offset, length);
    }

    @Override
    public int fromGuest(FrameReceiver receiver, int budget) {
        this.receiver = receiver;
        return adapter.fromGuest(tapped, budget);
    }

    private void sent(BytesStore<?, ?> store, long offset, int length) {
        tap.frame(System.nanoTime() - start, store, offset, length);
        receiver.frame(store, offset, length);
    }

    @Override
    public void flush() {
        adapter.flush();
    }

    @Override
    public void onKick(Runnable wakeup) {
        adapter.onKick(wakeup);
    }

    @Override
    public void pacedBy(ModelLoop loop) {
        adapter.pacedBy(loop);
    }

    @Override
    public boolean linkUp() {
        return adapter.linkUp();
    }
}
