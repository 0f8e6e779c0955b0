package dev.irdmaemu.bridge.shm;

import dev.irdmaemu.fw.bus.HostMemory;
import java.io.FileDescriptor;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.io.IOTools;
import org.newsclub.net.unix.FileDescriptorCast;

/**
 * A range of a file received from a client (QEMU's guest-RAM memfd, a file under /dev/shm) mapped READ_WRITE and
 * shared, through {@code /proc/self/fd/N}, so the guest sees our writes. The range is mapped in pieces of at most
 * {@link #CHUNK} ({@link FileChannel#map} is limited to 2 GiB), each a zero-copy Chronicle store that
 * {@link #publish} places in a {@link HostMemory} at consecutive guest addresses.
 *
 * <p>The caller keeps (and closes) the descriptor: the mapping stays valid without it. {@link #close} unmaps now
 * rather than at GC, so the caller must first make sure nothing reads the stores any more.
 */
public final class SharedFileMapping implements AutoCloseable {
    /** The largest piece mapped at once: 1 GiB, so every chunk boundary is 1 GiB-aligned within the range. */
    public static final long CHUNK = 1L << 30;

    private final long size;
    private final List<MappedByteBuffer> buffers = new ArrayList<>();
    private final List<BytesStore<?, ?>> stores = new ArrayList<>();
    private boolean closed;

    private SharedFileMapping(long size) {
        this.size = size;
    }

    /**
     * Maps {@code [fileOffset, fileOffset + size)} of {@code fd}. Fails (with nothing left mapped) on a bad range,
     * a descriptor that cannot be reopened through /proc (an eventfd, a socket), or a file shorter than the range:
     * a mapping past the end of the file would fault (SIGBUS) on first touch.
     */
    public static SharedFileMapping map(FileDescriptor fd, long fileOffset, long size) throws IOException {
        // u64 fields: a value with the top bit set is negative here, and no real offset or size is that large
        if (size <= 0 || fileOffset < 0 || fileOffset > Long.MAX_VALUE - size) {
            throw new IOException("bad range: offset 0x" + Long.toHexString(fileOffset) + " size 0x"
                    + Long.toHexString(size));
        }
        int fdNumber;
        try {
            fdNumber = FileDescriptorCast.using(fd).as(Integer.class);
        } catch (IOException | RuntimeException e) {
            throw new IOException("not a file descriptor: " + e, e);
        }
        Path path = Path.of("/proc/self/fd/" + fdNumber);
        SharedFileMapping m = new SharedFileMapping(size);
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long fileSize = channel.size();
            if (fileSize < fileOffset + size) {
                throw new IOException("file of " + fileSize + " bytes is shorter than offset 0x"
                        + Long.toHexString(fileOffset) + " + size 0x" + Long.toHexString(size));
            }
            for (long done = 0; done < size; done += CHUNK) {
                long len = Math.min(CHUNK, size - done);
                MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_WRITE, fileOffset + done, len);
                m.buffers.add(buffer);
                BytesStore<?, ?> store = BytesStore.wrap(buffer);
                if (!store.isDirectMemory()) {
                    throw new IOException("mapping is not direct memory");
                }
                m.stores.add(store);
            }
        } catch (IOException | RuntimeException e) {
            m.close();
            if (e instanceof IOException) {
                throw new IOException("via " + path + ": " + e.getMessage(), e);
            }
            throw new IOException("via " + path + ": " + e, e);
        }
        return m;
    }

    /** The length of the mapped range. */
    public long size() {
        return size;
    }

    /**
     * Publishes the whole range at guest address {@code gpa}: one {@link HostMemory} region per chunk. Throws
     * IllegalArgumentException, with nothing published, when a chunk would overlap a region already there.
     */
    public void publish(HostMemory host, long gpa) {
        if (gpa < 0 || gpa > Long.MAX_VALUE - size) {
            throw new IllegalArgumentException("bad guest address 0x" + Long.toHexString(gpa));
        }
        int done = 0;
        try {
            for (; done < stores.size(); done++) {
                host.map(gpa + done * CHUNK, stores.get(done), 0, chunkLength(done));
            }
        } catch (IllegalArgumentException e) {
            for (int i = 0; i < done; i++) {
                host.unmap(gpa + i * CHUNK);
            }
            throw e;
        }
    }

    /** Removes what {@link #publish} placed at {@code gpa}. */
    public void unpublish(HostMemory host, long gpa) {
        for (int i = 0; i < stores.size(); i++) {
            host.unmap(gpa + i * CHUNK);
        }
    }

    private long chunkLength(int i) {
        return Math.min(CHUNK, size - i * CHUNK);
    }

    /** Unmaps every chunk now. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (MappedByteBuffer buffer : buffers) {
            IOTools.clean(buffer);
        }
        buffers.clear();
        stores.clear();
    }
}
