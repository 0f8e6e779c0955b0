package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.Flyweight;
import dev.irdmaemu.fw.WireView;

/**
 * The part every fixed-length InfiniBand transport header flyweight shares (the BTH and the extension headers of IBA
 * Vol. 1 §9.2-§9.3, the CNP's reserved bytes of Annex A17; rxe_hdr.h gives each a fixed size): the
 * {@link Flyweight} wrap, and whether the wrapped range holds the whole header. {@code H} is the header's own class,
 * so that {@code wrap} answers it for chaining.
 */
public abstract sealed class FixedLengthHeader<H extends FixedLengthHeader<H>> extends WireView implements Flyweight<H>
        permits Bth, Deth, RemoteAddressHeader, Aeth, AtomicAckEth, ImmDt, Ieth, Cnp {
    private final int headerLength;

    FixedLengthHeader(int headerLength) {
        this.headerLength = headerLength;
    }

    /** True when the wrapped bytes hold the whole header. */
    public final boolean complete() {
        return has(0, headerLength);
    }
}
