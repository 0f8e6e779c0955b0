package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.WireView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The part every fixed-length InfiniBand transport header flyweight shares (the BTH and the extension headers of IBA
 * Vol. 1 §9.2-§9.3, the CNP's reserved bytes of Annex A17; rxe_hdr.h gives each a fixed size): wrapping it on a
 * range of a store, and whether that range holds the whole header. {@code H} is the header's own class, so that
 * {@link #wrap} answers it for chaining.
 */
public abstract sealed class FixedLengthHeader<H extends FixedLengthHeader<H>> extends WireView
        permits Bth, Deth, RemoteAddressHeader, Aeth, AtomicAckEth, ImmDt, Ieth, Cnp {
    private final int headerLength;

    FixedLengthHeader(int headerLength) {
        this.headerLength = headerLength;
    }

    /** Wraps {@code length} bytes at absolute {@code offset}; accessors read 0 past them. */
    @SuppressWarnings("unchecked")
    public final H wrap(BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, length);
        return (H) this;
    }

    /** True when the wrapped bytes hold the whole header. */
    public final boolean complete() {
        return has(0, headerLength);
    }
}
