package dev.irdmaemu.driver;

/**
 * What one pble.c add_pble_prm came to ({@link HmcBacking#addPbleChunk}): the PBLE object's backed range grew to
 * {@link Backed#end()} (a PBLE index relative to the object's base), or no chunk could be added
 * ({@link NoChunk#ENOMEM}: fewer than a page of PBLEs left, an SD beyond sd_cnt, or no host memory for the pages).
 */
sealed interface PbleChunk permits PbleChunk.Backed, PbleChunk.NoChunk {
    /** The backed range now ends at PBLE index {@code end}. */
    record Backed(long end) implements PbleChunk {
    }

    /** add_pble_prm's -ENOMEM: nothing was taken. */
    enum NoChunk implements PbleChunk {
        ENOMEM
    }
}
