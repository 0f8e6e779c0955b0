package dev.irdmaemu.bridge.vhost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.newsclub.net.unix.AFPipe;
import org.newsclub.net.unix.AFUNIXSelectorProvider;

/**
 * A kick descriptor in non-blocking mode, as QEMU passes its eventfds (EFD_NONBLOCK): the watcher waits for each
 * event instead of ending on the first read that finds none (EAGAIN). Before, the guest's first kick after the
 * rings started was the last one the model ever saw.
 */
class NotifyFdTest {
    @Test
    void aNonBlockingKickDescriptorDeliversEveryKick() throws Exception {
        try (AFPipe pipe = AFUNIXSelectorProvider.provider().openPipe()) {
            pipe.source().configureBlocking(false);
            NotifyFd kick = new NotifyFd("kick", FakeQemu.fd(pipe.source()));
            Semaphore kicks = new Semaphore(0);
            KickWatcher watcher = new KickWatcher(kick, kicks::release).start();
            try {
                for (int i = 0; i < 5; i++) {
                    // the watcher finds nothing first, then the event (a guard, not a timing assertion)
                    Thread.sleep(20);
                    pipe.sink().write(ByteBuffer.wrap(new byte[] {1, 0, 0, 0, 0, 0, 0, 0}));
                    assertTrue(kicks.tryAcquire(10, TimeUnit.SECONDS), "kick " + (i + 1) + " reached the port");
                }
                assertEquals(0, kicks.availablePermits());
            } finally {
                watcher.stop();
            }
            assertFalse(kick.await(new byte[8]), "a stopped descriptor waits no more");
        }
    }
}
