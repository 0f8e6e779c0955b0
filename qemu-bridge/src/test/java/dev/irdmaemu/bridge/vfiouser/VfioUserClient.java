package dev.irdmaemu.bridge.vfiouser;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.newsclub.net.unix.AFUNIXSocket;
import org.newsclub.net.unix.AFUNIXSocketAddress;

/**
 * A vfio-user client for the tests, speaking as QEMU 11.1.3's does (vfio-user-facts.md §1): the same VERSION
 * JSON, the same structure sizes, descriptors as SCM_RIGHTS with the message, replies matched by id.
 */
final class VfioUserClient implements AutoCloseable {
    /** QEMU 11.1.3's capabilities, verbatim as observed (facts §1.2): a 214-byte VERSION message. */
    static final String QEMU_CAPS = "{\"capabilities\": {\"pgsizes\": 4096, \"max_msg_fds\": 16, \"max_dma_maps\":"
            + " 65535, \"max_data_xfer_size\": 1048576, \"migration\": {\"max_bitmap_size\": 268435456,"
            + " \"pgsize\": 4096}, \"write_multiple\": true}}";

    /** One reply: its header fields and payload. */
    static final class Reply {
        final int id;
        final int command;
        final int flags;
        final int error;
        final ByteBuffer payload;

        Reply(int id, int command, int flags, int error, ByteBuffer payload) {
            this.id = id;
            this.command = command;
            this.flags = flags;
            this.error = error;
            this.payload = payload;
        }

        boolean isError() {
            return (flags & VfioUserHeader.FLAG_ERROR) != 0;
        }

        int size() {
            return VfioUserHeader.SIZE + payload.capacity();
        }

        @Override
        public String toString() {
            return VfioUserCommand.name(command) + " id " + id + " flags 0x" + Integer.toHexString(flags) + " error "
                    + error + " payload " + payload.capacity();
        }
    }

    private final AFUNIXSocket socket;
    private final InputStream in;
    private final OutputStream out;
    private int nextId = 0x100;

    VfioUserClient(Path path) throws IOException {
        socket = AFUNIXSocket.connectTo(AFUNIXSocketAddress.of(path.toFile()));
        socket.setSoTimeout(10_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    /** Sends a request with a correct header; answers its id. */
    int send(int command, int flags, ByteBuffer payload, FileDescriptor... fds) throws IOException {
        int len = payload == null ? 0 : payload.capacity();
        return sendRaw(command, flags, VfioUserHeader.SIZE + len, payload, fds);
    }

    /** Sends a header claiming {@code size}, then whatever payload is given (hostile cases). */
    int sendRaw(int command, int flags, long size, ByteBuffer payload, FileDescriptor... fds) throws IOException {
        int id = nextId++ & 0xffff;
        int len = payload == null ? 0 : payload.capacity();
        ByteBuffer m = ByteBuffer.allocate(VfioUserHeader.SIZE + len).order(ByteOrder.LITTLE_ENDIAN);
        new VfioUserHeader().wrap(m).writeRequest(id, command, (int) size, flags);
        if (payload != null) {
            for (int i = 0; i < len; i++) {
                m.put(VfioUserHeader.SIZE + i, payload.get(i));
            }
        }
        if (fds.length > 0) {
            socket.setOutboundFileDescriptors(fds);
        }
        out.write(m.array());
        out.flush();
        return id;
    }

    void sendBytes(byte[] raw) throws IOException {
        out.write(raw);
        out.flush();
    }

    Reply receive() throws IOException {
        byte[] h = readFully(VfioUserHeader.SIZE);
        ByteBuffer hb = ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN);
        VfioUserHeader hdr = new VfioUserHeader().wrap(hb);
        int size = (int) hdr.size();
        if (size < VfioUserHeader.SIZE || size > VfioUserConnection.MAX_MESSAGE) {
            throw new IOException("bad reply size " + size);
        }
        byte[] p = readFully(size - VfioUserHeader.SIZE);
        return new Reply(hdr.id(), hdr.command(), hdr.flags(), hdr.error(),
                ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN));
    }

    /** Sends and waits for the reply with the same id. */
    Reply call(int command, ByteBuffer payload, FileDescriptor... fds) throws IOException {
        int id = send(command, 0, payload, fds);
        Reply r = receive();
        if (r.id != id || r.command != command) {
            throw new IOException("reply " + r + " does not answer id " + id);
        }
        return r;
    }

    /** True when nothing arrives within {@code millis} (a posted write's missing reply). */
    boolean silentFor(int millis) throws IOException {
        socket.setSoTimeout(millis);
        try {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the server closed the connection");
            }
            return false;
        } catch (SocketTimeoutException e) {
            return true;
        } finally {
            socket.setSoTimeout(10_000);
        }
    }

    /** True when the server has closed the connection (end of stream within the timeout). */
    boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset by peer
        }
    }

    private byte[] readFully(int n) throws IOException {
        byte[] b = new byte[n];
        int got = 0;
        while (got < n) {
            int r = in.read(b, got, n - got);
            if (r < 0) {
                throw new IOException("end of stream after " + got + " of " + n + " bytes");
            }
            got += r;
        }
        return b;
    }

    // ---- payload builders, in the layouts of the spec ----

    static ByteBuffer buffer(int len) {
        return ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
    }

    static ByteBuffer version(int major, int minor, String json) {
        byte[] j = json.getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = buffer(4 + j.length + 1);
        b.putShort(0, (short) major).putShort(2, (short) minor);
        for (int i = 0; i < j.length; i++) {
            b.put(4 + i, j[i]);
        }
        return b;
    }

    static ByteBuffer dmaMap(int flags, long offset, long address, long size) {
        return buffer(32).putInt(0, 32).putInt(4, flags).putLong(8, offset).putLong(16, address).putLong(24, size);
    }

    static ByteBuffer dmaUnmap(int flags, long address, long size) {
        return buffer(24).putInt(0, 24).putInt(4, flags).putLong(8, address).putLong(16, size);
    }

    static ByteBuffer argsz(int argsz, int len) {
        return buffer(len).putInt(0, argsz);
    }

    static ByteBuffer indexed(int argsz, int len, int index) {
        return buffer(len).putInt(0, argsz).putInt(8, index);
    }

    static ByteBuffer setIrqs(int flags, int index, int start, int count) {
        return buffer(20).putInt(0, 20).putInt(4, flags).putInt(8, index).putInt(12, start).putInt(16, count);
    }

    static ByteBuffer regionRead(int region, long offset, int count) {
        return buffer(16).putLong(0, offset).putInt(8, region).putInt(12, count);
    }

    static ByteBuffer regionWrite(int region, long offset, int count, long value) {
        ByteBuffer b = buffer(16 + count).putLong(0, offset).putInt(8, region).putInt(12, count);
        for (int i = 0; i < count; i++) {
            b.put(16 + i, (byte) (value >>> (8 * i)));
        }
        return b;
    }

    // ---- conveniences ----

    Reply negotiate() throws IOException {
        return call(VfioUserCommand.VERSION, version(0, 0, QEMU_CAPS));
    }

    long read(int region, long offset, int count) throws IOException {
        Reply r = call(VfioUserCommand.REGION_READ, regionRead(region, offset, count));
        if (r.isError()) {
            throw new IOException("read refused: " + r);
        }
        long v = 0;
        for (int i = 0; i < count; i++) {
            v |= (r.payload.get(16 + i) & 0xffL) << (8 * i);
        }
        return v;
    }

    Reply write(int region, long offset, int count, long value) throws IOException {
        return call(VfioUserCommand.REGION_WRITE, regionWrite(region, offset, count, value));
    }

    /** A posted write: NO_REPLY set, no reply expected. */
    void post(int region, long offset, int count, long value) throws IOException {
        send(VfioUserCommand.REGION_WRITE, VfioUserHeader.FLAG_NO_REPLY, regionWrite(region, offset, count, value));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
