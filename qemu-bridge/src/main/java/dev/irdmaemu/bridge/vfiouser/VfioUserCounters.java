package dev.irdmaemu.bridge.vfiouser;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What one server has seen, over all its clients: messages by command, error replies, posted writes, whole-config
 * reads, the region indexes queried, DMA windows, clients accepted, refused and dropped. Written by the connection
 * thread, read by anyone (tests, the summary logged when a client leaves). Counting allocates nothing.
 */
public final class VfioUserCounters {
    private final AtomicLongArray messages = new AtomicLongArray(VfioUserCommand.LIMIT);
    private final AtomicLong errorReplies = new AtomicLong();
    private final AtomicLong postedWrites = new AtomicLong();
    private final AtomicLong fullConfigReads = new AtomicLong();
    private final AtomicInteger regionInfoQueried = new AtomicInteger();
    private final AtomicLong windowsMapped = new AtomicLong();
    private final AtomicLong windowsUnmapped = new AtomicLong();
    private final AtomicLong clientsRefused = new AtomicLong();
    private final AtomicLong clientsDropped = new AtomicLong();

    void message(int command) {
        messages.incrementAndGet(command > 0 && command < VfioUserCommand.LIMIT ? command : 0);
    }

    void errorReply() {
        errorReplies.incrementAndGet();
    }

    void postedWrite() {
        postedWrites.incrementAndGet();
    }

    void fullConfigRead() {
        fullConfigReads.incrementAndGet();
    }

    void regionInfo(int index) {
        if (index >= 0 && index < 32) {
            regionInfoQueried.getAndUpdate(m -> m | 1 << index);
        }
    }

    void windowMapped() {
        windowsMapped.incrementAndGet();
    }

    void windowUnmapped() {
        windowsUnmapped.incrementAndGet();
    }

    void clientRefused() {
        clientsRefused.incrementAndGet();
    }

    void clientDropped() {
        clientsDropped.incrementAndGet();
    }

    /** Requests received with {@code command} (0: every unknown command number). */
    public long messages(int command) {
        return messages.get(command > 0 && command < VfioUserCommand.LIMIT ? command : 0);
    }

    public long errorReplies() {
        return errorReplies.get();
    }

    public long postedWrites() {
        return postedWrites.get();
    }

    /** REGION_READs of the config region larger than 8 bytes (QEMU's 4096-byte read at realize). */
    public long fullConfigReads() {
        return fullConfigReads.get();
    }

    /** Bit i set: GET_REGION_INFO was answered for region i. */
    public int regionInfoQueried() {
        return regionInfoQueried.get();
    }

    public long windowsMapped() {
        return windowsMapped.get();
    }

    public long windowsUnmapped() {
        return windowsUnmapped.get();
    }

    /** Second clients turned away while one was connected. */
    public long clientsRefused() {
        return clientsRefused.get();
    }

    /** Clients closed for breaking the protocol (not counting clean disconnects). */
    public long clientsDropped() {
        return clientsDropped.get();
    }

    /** One line: every non-zero counter. */
    public String summary() {
        StringBuilder b = new StringBuilder("vfio_user");
        for (int c = 0; c < VfioUserCommand.LIMIT; c++) {
            long n = messages.get(c);
            if (n != 0) {
                b.append(' ').append(VfioUserCommand.name(c)).append('=').append(n);
            }
        }
        b.append(" errors=").append(errorReplies.get()).append(" posted=").append(postedWrites.get())
                .append(" config_reads_4k=").append(fullConfigReads.get())
                .append(" windows=+").append(windowsMapped.get()).append("/-").append(windowsUnmapped.get())
                .append(" refused=").append(clientsRefused.get()).append(" dropped=").append(clientsDropped.get());
        return b.toString();
    }
}
