package dev.irdmaemu.fw;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * A codec the caller lays over any number of bytes, as the kernel lays a header struct over a buffer by casting
 * a pointer to it (ip_hdr() and tcp_hdr() in include/linux/ip.h and tcp.h, or irdma's get_64bit_val over a WQE):
 * {@link #wrap} attaches the window, clamped to the bytes the store really holds ({@link ByteWindow}), and answers
 * the codec itself, typed as its own class, so that a caller chains {@code ipv4.wrap(frame, at, n).validate()}.
 * This is the one home of the wrap every codec would otherwise spell out again (the fixed-size RoCEv2 headers take
 * it through their base, {@code roce.FixedLengthHeader}); a codec whose wrap does more (TcpHeader forgets its parsed
 * options, Fpdu takes its CRC switch) keeps a wrap of its own and does not implement this.
 *
 * <p>Per frame and per WQE: the call is bound at compile time to a final codec class and inlined, the cast is on
 * the codec's own class, and nothing is allocated.
 *
 * @param <V> the codec's own class
 */
public interface Flyweight<V extends ByteWindow & Flyweight<V>> {
    /** Wraps {@code length} bytes at {@code offset}; a range reaching outside the store is cut at its end. */
    @SuppressWarnings("unchecked")
    default V wrap(BytesStore<?, ?> store, long offset, long length) {
        V codec = (V) this;
        codec.attach(store, offset, length);
        return codec;
    }
}
