package dev.irdmaemu.model.eq;

/**
 * The device's producer position in a ring the driver consumes by valid bit: the next index and the polarity to
 * write there. Polarity starts at 1 (ctrl.c irdma_sc_ceq_init / irdma_sc_aeq_init, uk.c irdma_uk_cq_init set the
 * consumer's polarity to 1) and flips each time the index wraps to 0.
 */
public final class RingCursor {
    private int size;
    private int index;
    private boolean polarity = true;

    public void reset(int ringSize) {
        this.size = ringSize;
        this.index = 0;
        this.polarity = true;
    }

    public int size() {
        return size;
    }

    public int index() {
        return index;
    }

    public boolean polarity() {
        return polarity;
    }

    /** Moves past the current slot. */
    public void advance() {
        index++;
        if (index == size) {
            index = 0;
            polarity = !polarity;
        }
    }

    /** The index {@code n} slots ahead (mod size). */
    public int ahead(int n) {
        return (int) ((index + (long) n) % size);
    }

    /** The polarity of the slot {@code n} ahead. */
    public boolean polarityAhead(int n) {
        long wraps = (index + (long) n) / size;
        return (wraps & 1) == 0 ? polarity : !polarity;
    }
}
