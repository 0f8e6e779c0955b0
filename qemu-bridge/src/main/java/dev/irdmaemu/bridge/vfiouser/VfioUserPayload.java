package dev.irdmaemu.bridge.vfiouser;

import java.nio.ByteBuffer;

/**
 * What every vfio-user payload flyweight shares (vfio-user.rst, "Message Format"): it reads and writes the message
 * buffer in place, right after the 16-byte header, and knows the payload's length as the header gave it. A subclass
 * adds its fields and its own validation; nothing here allocates, so one instance per connection serves every
 * message. The structures that open with linux/vfio.h's argsz/flags pair extend {@link VfioArgszPayload}.
 *
 * @param <P> the subclass, so that {@link #wrap} reads as a call on it
 */
public abstract class VfioUserPayload<P extends VfioUserPayload<P>> {
    /** The payload's first byte in the message buffer. */
    protected static final int AT = VfioUserHeader.SIZE;

    protected ByteBuffer buf;
    protected int length;

    /** Reads and writes {@code buffer} (the whole message, header first) with a payload of {@code payloadLength}. */
    @SuppressWarnings("unchecked")
    public final P wrap(ByteBuffer buffer, int payloadLength) {
        this.buf = buffer;
        this.length = payloadLength;
        return (P) this;
    }

    /** The payload's length as the header said. */
    public final int length() {
        return length;
    }

    protected final int u32(int offset) {
        return buf.getInt(AT + offset);
    }

    protected final long u64(int offset) {
        return buf.getLong(AT + offset);
    }
}
