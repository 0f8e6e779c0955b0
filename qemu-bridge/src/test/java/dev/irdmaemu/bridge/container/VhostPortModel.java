package dev.irdmaemu.bridge.container;

import dev.irdmaemu.bridge.vhost.VhostNetPort;
import dev.irdmaemu.bridge.vhost.VhostUserBackend;

/**
 * The plainest model side: a {@link VhostNetPort} served by a {@link VhostUserBackend}, with nothing behind it (a
 * test drives the port itself: {@link #port()}). The guest sees a virtio-net NIC whose link comes up.
 */
public class VhostPortModel implements GuestModel {
    private VhostNetPort port;
    private VhostUserBackend backend;

    @Override
    public void boot(GuestBoot boot) throws Exception {
        port = new VhostNetPort("guest0");
        backend = VhostUserBackend.start(boot.folder().resolve("net0.sock"), port);
        boot.container().withVhostUserNic(backend.socketPath(), boot.spec().mac()).start();
    }

    public VhostNetPort port() {
        return port;
    }

    public VhostUserBackend backend() {
        return backend;
    }

    @Override
    public void close() {
        if (backend != null) {
            backend.close();
        }
    }
}
