package dev.irdmaemu.bridge.vfiouser;

import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs the connection's device accesses on the device's owner thread (the model loop's {@code execute}, or
 * {@code Runnable::run} to call it directly) and waits for each: a read needs its answer, and waiting for writes
 * too keeps them in the client's order with no queue of our own. One instance is one reusable task, so an MMIO
 * access allocates nothing here. Connection thread only.
 *
 * <p>A device that throws fails that access only ({@link DeviceFailure}, answered as EIO). An owner thread that
 * does not answer within the timeout (a stopped loop) breaks this instance for good: the connection closes.
 */
final class DeviceCalls implements Runnable {
    /** The access failed inside the device, or the owner thread did not run it. */
    static final class DeviceFailure extends Exception {
        private static final long serialVersionUID = 1L;
        final boolean ownerLost;

        DeviceFailure(String message, Throwable cause, boolean ownerLost) {
            super(message, cause);
            this.ownerLost = ownerLost;
        }
    }

    static final int CONFIG = 7;
    private static final int OP_READ = 1;
    private static final int OP_WRITE = 2;
    private static final int OP_CONFIG_BULK = 3;
    private static final int OP_RUN = 4;

    private final VfioUserFunction device;
    private final Executor owner;
    private final long timeoutNanos;

    private int op;
    private int region;
    private long offset;
    private int count;
    private long value;
    private ByteBuffer bulk;
    private int bulkAt;
    private Runnable runnable;
    private RuntimeException failure;
    private volatile boolean done;
    private volatile Thread waiter;
    /** True while the connection thread waits for a device call (it reads nothing from the socket then). */
    private volatile boolean waiting;
    private boolean broken;

    DeviceCalls(VfioUserFunction device, Executor owner, long timeoutNanos) {
        this.device = device;
        this.owner = owner;
        this.timeoutNanos = timeoutNanos;
    }

    /** Reads 1/2/4/8 bytes of a region (a BAR, or config). */
    long read(int region, long offset, int count) throws DeviceFailure {
        this.op = OP_READ;
        this.region = region;
        this.offset = offset;
        this.count = count;
        call();
        return value;
    }

    void write(int region, long offset, int count, long value) throws DeviceFailure {
        this.op = OP_WRITE;
        this.region = region;
        this.offset = offset;
        this.count = count;
        this.value = value;
        call();
    }

    /** Reads {@code count} bytes of config space from {@code offset} into {@code dst} at {@code at}. */
    void readConfig(ByteBuffer dst, int at, int offset, int count) throws DeviceFailure {
        this.op = OP_CONFIG_BULK;
        this.bulk = dst;
        this.bulkAt = at;
        this.offset = offset;
        this.count = count;
        call();
        this.bulk = null;
    }

    /** Runs {@code task} on the owner thread (DMA window changes, reset) and waits. */
    void run(Runnable task) throws DeviceFailure {
        this.op = OP_RUN;
        this.runnable = task;
        call();
        this.runnable = null;
    }

    private void call() throws DeviceFailure {
        if (broken) {
            throw new DeviceFailure("the device's owner thread stopped answering earlier", null, true);
        }
        failure = null;
        done = false;
        waiter = Thread.currentThread();
        waiting = true;
        try {
            owner.execute(this);
            long deadline = System.nanoTime() + timeoutNanos;
            while (!done) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    broken = true;
                    throw new DeviceFailure("the device's owner thread did not answer within "
                            + timeoutNanos / 1_000_000 + " ms", null, true);
                }
                LockSupport.parkNanos(this, left);
            }
        } finally {
            waiting = false;
        }
        RuntimeException f = failure;
        if (f != null) {
            failure = null;
            throw new DeviceFailure(f.toString(), f, false);
        }
    }

    /**
     * True while the connection thread waits for a device call: a server DMA requested from inside that call reads
     * its reply from the socket itself ({@link MessageDma}).
     */
    boolean waiting() {
        return waiting;
    }

    @Override
    public void run() {
        try {
            switch (op) {
                case OP_READ:
                    value = region == CONFIG ? configRead((int) offset, count) : device.barRead(region, offset, count);
                    break;
                case OP_WRITE:
                    if (region == CONFIG) {
                        configWrite((int) offset, count, value);
                    } else {
                        device.barWrite(region, offset, count, value);
                    }
                    break;
                case OP_CONFIG_BULK:
                    bulkConfigRead();
                    break;
                default:
                    runnable.run();
            }
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            done = true;
            LockSupport.unpark(waiter);
        }
    }

    /** Config accesses are at most 4 bytes: an 8-byte one is two dwords, low first. */
    private long configRead(int at, int size) {
        if (size == 8) {
            return device.configRead(at, 4) & 0xffffffffL | (device.configRead(at + 4, 4) & 0xffffffffL) << 32;
        }
        return device.configRead(at, size) & (size == 4 ? 0xffffffffL : (1L << (size * 8)) - 1);
    }

    private void configWrite(int at, int size, long v) {
        if (size == 8) {
            device.configWrite(at, 4, (int) v);
            device.configWrite(at + 4, 4, (int) (v >>> 32));
        } else {
            device.configWrite(at, size, (int) v);
        }
    }

    private void bulkConfigRead() {
        int at = (int) offset;
        int end = at + count;
        int out = bulkAt;
        while (at < end) {
            int n = (at & 3) == 0 && end - at >= 4 ? 4 : (at & 1) == 0 && end - at >= 2 ? 2 : 1;
            int v = device.configRead(at, n);
            for (int i = 0; i < n; i++) {
                bulk.put(out + i, (byte) (v >>> (8 * i)));
            }
            at += n;
            out += n;
        }
    }
}
