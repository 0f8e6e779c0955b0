package dev.irdmaemu.bridge.vfiouser;

import java.nio.ByteBuffer;

/**
 * The 16-byte message header (vfio-user.rst "Header"; QEMU hw/vfio-user/protocol.h VFIOUserHdr), a flyweight over
 * a little-endian buffer at offset 0: id u16 (the sender's, echoed in the reply), command u16, size u32 (the whole
 * message, header included), flags u32 (bits 0-3 type, 0x10 NO_REPLY, 0x20 ERROR), error u32 (an errno when
 * ERROR is set).
 */
public final class VfioUserHeader {
    public static final int SIZE = 16;
    public static final int TYPE_MASK = 0xf;
    public static final int TYPE_REQUEST = 0;
    public static final int TYPE_REPLY = 1;
    public static final int FLAG_NO_REPLY = 0x10;
    public static final int FLAG_ERROR = 0x20;

    /** Why a header cannot start a message: each ends the connection (the stream cannot be resynchronised). */
    public enum Status {
        OK,
        /** size smaller than the header itself. */
        SIZE_BELOW_HEADER,
        /** size beyond the largest message this server accepts. */
        SIZE_TOO_LARGE,
        /** Not a request (we send no requests, so no reply can be due), or undefined flag bits set. */
        BAD_FLAGS
    }

    private ByteBuffer buf;

    public VfioUserHeader wrap(ByteBuffer buffer) {
        this.buf = buffer;
        return this;
    }

    public int id() {
        return buf.getShort(0) & 0xffff;
    }

    public int command() {
        return buf.getShort(2) & 0xffff;
    }

    /** The whole message's size, header included (u32). */
    public long size() {
        return buf.getInt(4) & 0xffffffffL;
    }

    public int flags() {
        return buf.getInt(8);
    }

    public int error() {
        return buf.getInt(12);
    }

    public boolean noReply() {
        return (flags() & FLAG_NO_REPLY) != 0;
    }

    /** Checks a request header against {@code maxSize}, the largest whole message accepted. */
    public Status validate(long maxSize) {
        long size = size();
        if (size < SIZE) {
            return Status.SIZE_BELOW_HEADER;
        }
        if (size > maxSize) {
            return Status.SIZE_TOO_LARGE;
        }
        int flags = flags();
        if ((flags & TYPE_MASK) != TYPE_REQUEST || (flags & ~(TYPE_MASK | FLAG_NO_REPLY)) != 0) {
            return Status.BAD_FLAGS;
        }
        return Status.OK;
    }

    /** Writes a reply header for request {@code id}/{@code command} of {@code size} bytes in all. */
    public VfioUserHeader writeReply(int id, int command, int size) {
        buf.putShort(0, (short) id).putShort(2, (short) command).putInt(4, size).putInt(8, TYPE_REPLY).putInt(12, 0);
        return this;
    }

    /** Writes an error reply (header only, flags REPLY|ERROR, the errno) for request {@code id}/{@code command}. */
    public VfioUserHeader writeError(int id, int command, int errno) {
        buf.putShort(0, (short) id).putShort(2, (short) command).putInt(4, SIZE)
                .putInt(8, TYPE_REPLY | FLAG_ERROR).putInt(12, errno);
        return this;
    }

    /** Writes a request header (the test client's side). */
    public VfioUserHeader writeRequest(int id, int command, int size, int flags) {
        buf.putShort(0, (short) id).putShort(2, (short) command).putInt(4, size).putInt(8, flags).putInt(12, 0);
        return this;
    }
}
