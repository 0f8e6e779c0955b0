package dev.irdmaemu.model.lan;

/** What the LAN path counted; plain fields read by tests, the node's summary and the benchmarks. */
public final class LanCounters {
    long rxFrames;
    long rxBytes;
    long rxDescriptors;
    /** Frames dropped for want of posted descriptors (the hardware's GLV_RDPC). */
    long rxNoDescriptor;
    /** Frames that arrived with no Rx queue enabled. */
    long rxNoQueue;
    /** Frames longer than the queue's rxmax, or empty. */
    long rxOversize;
    /** Frames dropped because a descriptor or buffer address was not in guest memory. */
    long rxDmaFault;
    /** Frames the RSS hash steered (their VSI had a key and a LUT). */
    long rxHashed;
    /** Frames whose LUT entry named a queue outside the VSI's map or not enabled: dropped. */
    long rxRssQueueDisabled;
    /** Frames a header-split queue split: the headers in the header buffer, the payload in the packet buffers. */
    long rxHeaderSplit;
    /** Frames whose headers did not fit a header-split queue's header buffer (written whole, HBO set). */
    long rxHeaderOverflow;
    long txFrames;
    long txBytes;
    long txPackets;
    long txTsoSegments;
    /** Packets dropped by the Tx engine (malformed chain, memory fault, bad lengths). */
    long txDropped;
    /** Doorbells on a queue without a Tx context, or with a tail beyond its ring. */
    long txBadDoorbell;
    /** Frames the MAC loopback (set_mac_lb) turned back into the receive side instead of the wire. */
    long txLoopedBack;
    long mddEvents;
    long rxInterrupts;
    long txInterrupts;

    public long rxFrames() {
        return rxFrames;
    }

    public long rxBytes() {
        return rxBytes;
    }

    public long rxDescriptors() {
        return rxDescriptors;
    }

    public long rxNoDescriptor() {
        return rxNoDescriptor;
    }

    public long rxNoQueue() {
        return rxNoQueue;
    }

    public long rxOversize() {
        return rxOversize;
    }

    public long rxDmaFault() {
        return rxDmaFault;
    }

    public long rxHashed() {
        return rxHashed;
    }

    public long rxRssQueueDisabled() {
        return rxRssQueueDisabled;
    }

    public long txFrames() {
        return txFrames;
    }

    public long txBytes() {
        return txBytes;
    }

    public long txPackets() {
        return txPackets;
    }

    public long txTsoSegments() {
        return txTsoSegments;
    }

    public long txDropped() {
        return txDropped;
    }

    public long txBadDoorbell() {
        return txBadDoorbell;
    }

    public long mddEvents() {
        return mddEvents;
    }

    public long rxInterrupts() {
        return rxInterrupts;
    }

    public long txInterrupts() {
        return txInterrupts;
    }

    public long txLoopedBack() {
        return txLoopedBack;
    }

    public long rxHeaderSplit() {
        return rxHeaderSplit;
    }

    public long rxHeaderOverflow() {
        return rxHeaderOverflow;
    }
}
