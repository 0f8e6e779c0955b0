package dev.irdmaemu.bridge.vfiouser;

import dev.irdmaemu.bridge.vhost.NotifyFd;
import java.io.FileDescriptor;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client's eventfds by vfio IRQ index (linux/vfio.h VFIO_PCI_INTX/MSI/MSIX/ERR/REQ_IRQ_INDEX) and vector.
 * Assignments come from SET_IRQS on the connection thread; {@link #raiseMsix} comes from the device's thread. One
 * lock covers both, so a descriptor is never written after it was closed (its number could already name another
 * file). A replaced or de-assigned descriptor is closed at once; a client that leaves has all of them closed.
 */
final class IrqTable implements VfioUserInterrupts {
    static final int INTX = 0;
    static final int MSI = 1;
    static final int MSIX = 2;
    static final int ERR = 3;
    static final int REQ = 4;
    static final int INDEXES = 5;

    private final String name;
    /** Vectors per index: INTx 0 (pin 0, QEMU then sets up no INTx), MSI 0, MSI-X the device's, ERR 0 or 1, REQ 0. */
    private final int[] vectors;
    private final NotifyFd[][] fds;
    private final AtomicLong raised = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    IrqTable(String name, int msixVectors, boolean errorInterrupt) {
        this.name = name;
        this.vectors = new int[INDEXES];
        vectors[MSIX] = msixVectors;
        vectors[ERR] = errorInterrupt ? 1 : 0;
        fds = new NotifyFd[INDEXES][];
        for (int i = 0; i < INDEXES; i++) {
            fds[i] = new NotifyFd[vectors[i]];
        }
    }

    /** Vector counts by index (the array SetIrqsPayload validates against; not to be changed). */
    int[] vectors() {
        return vectors;
    }

    /** Assigns {@code received.get(i)} to vector {@code start + i}, closing what each replaces. Takes ownership. */
    synchronized void assign(int index, int start, List<FileDescriptor> received) {
        NotifyFd[] v = fds[index];
        for (int i = 0; i < received.size(); i++) {
            NotifyFd old = v[start + i];
            v[start + i] = new NotifyFd(name + " irq" + index + "." + (start + i), received.get(i));
            if (old != null) {
                old.close();
            }
        }
    }

    /** Closes and forgets vectors {@code [start, start + count)} of {@code index}. */
    synchronized void deassign(int index, int start, int count) {
        NotifyFd[] v = fds[index];
        for (int i = start; i < start + count; i++) {
            if (v[i] != null) {
                v[i].close();
                v[i] = null;
            }
        }
    }

    /** DATA_NONE + TRIGGER on assigned vectors: signal each (the client's loopback test of an interrupt). */
    synchronized void trigger(int index, int start, int count) {
        for (int i = start; i < start + count; i++) {
            signal(fds[index][i]);
        }
    }

    /** Number of vectors of {@code index} holding an eventfd now. */
    synchronized int assigned(int index) {
        int n = 0;
        for (NotifyFd f : fds[index]) {
            n += f != null ? 1 : 0;
        }
        return n;
    }

    /** Closes every descriptor (client gone, server closed). */
    synchronized void closeAll() {
        for (int i = 0; i < INDEXES; i++) {
            deassign(i, 0, vectors[i]);
        }
    }

    @Override
    public synchronized boolean raiseMsix(int vector) {
        if (vector < 0 || vector >= vectors[MSIX]) {
            dropped.incrementAndGet();
            return false;
        }
        return signal(fds[MSIX][vector]);
    }

    @Override
    public synchronized boolean raiseError() {
        return vectors[ERR] > 0 && signal(fds[ERR][0]);
    }

    private boolean signal(NotifyFd fd) {
        if (fd == null || !fd.signal()) {
            dropped.incrementAndGet();
            return false;
        }
        raised.incrementAndGet();
        return true;
    }

    long raised() {
        return raised.get();
    }

    long dropped() {
        return dropped.get();
    }
}
