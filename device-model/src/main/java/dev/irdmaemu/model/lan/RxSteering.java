package dev.irdmaemu.model.lan;

/**
 * Where the Rx engine learns how a VSI spreads its frames over its queues (the firmware's VSI table with the RSS
 * keys and LUTs set_rss_key / set_rss_lut stored). The engine asks again only when {@link #generation()} moved.
 */
public interface RxSteering {
    /** No VSI hashes: every frame goes to the lowest enabled queue. */
    RxSteering NONE = new RxSteering() {
        @Override
        public long generation() {
            return 0;
        }

        @Override
        public boolean lookup(int queue, RssView out) {
            return false;
        }
    };

    /** Changes with every VSI, key or LUT change. */
    long generation();

    /**
     * Fills {@code out} with the RSS view of the VSI whose queue map holds device queue {@code queue}; false when
     * no VSI holds it or that VSI hashes nothing (no key, no LUT, or a hash function other than Toeplitz).
     */
    boolean lookup(int queue, RssView out);
}
