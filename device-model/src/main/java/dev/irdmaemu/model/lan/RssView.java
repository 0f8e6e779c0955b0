package dev.irdmaemu.model.lan;

import dev.irdmaemu.fw.aq.VsiCommand;
import dev.irdmaemu.fw.lan.ToeplitzHash;
import dev.irdmaemu.model.ice.FlowProfiles;
import java.util.Arrays;

/**
 * What the Rx engine keeps of one VSI's receive-side scaling, re-read only when the firmware's VSI or RSS state
 * changes ({@link RxSteering#generation()}): the Toeplitz key, the lookup table the VSI hashes through, and its
 * queue map (struct ice_aqc_vsi_props: mapping_flags, q_mapping, tc_mapping of TC 0). A hash picks a LUT entry by
 * its low bits (the table is a power of two: 64, 512 or 2048 entries, enum ice_lut_size); the entry, masked to TC
 * 0's power-of-two queue count and offset by its first queue (ice_lib.c ice_vsi_setup_q_map writes both), is a queue
 * index within the VSI, which the queue map turns into the device queue. Per packet type, the input set the RSS
 * block's profile for the VSI selects ({@link FlowProfiles#rssInputSet}), or {@link FlowProfiles#NO_PROFILE} for ice's
 * default input sets. Nothing allocates after construction.
 */
public final class RssView {
    final ToeplitzHash hash = new ToeplitzHash();
    private final int[] lut = new int[2048];
    private final int[] queueList = new int[VsiCommand.Q_MAPPINGS];
    /** The packet types the Rx engine tells apart (fw.lan.RxPacketType) all lie below this. */
    public static final int PTYPES = 128;
    private final byte[] inputSets = new byte[PTYPES];
    private int lutEntries;
    private boolean contiguous;
    private int firstQueue;
    private int queueCount;
    private int tcOffset;
    private int tcMask;

    /** Sets the key (first {@code length} bytes of {@code key}). */
    public RssView key(byte[] key, int length) {
        hash.key(key, length);
        return this;
    }

    /** Sets the LUT's entries (the table's length must be a power of two of at most 2048). */
    public RssView lutEntries(int entries) {
        if (entries <= 0 || entries > lut.length || Integer.bitCount(entries) != 1) {
            throw new IllegalArgumentException("RSS LUT of " + entries + " entries");
        }
        this.lutEntries = entries;
        return this;
    }

    public RssView lutEntry(int i, int value) {
        lut[i] = value;
        return this;
    }

    /** A contiguous queue map: {@code count} queues from {@code first} (ICE_AQ_VSI_Q_MAP_CONTIG). */
    public RssView contiguousQueues(int first, int count) {
        contiguous = true;
        firstQueue = first;
        queueCount = Math.max(0, Math.min(count, LanQueues.QUEUES - first));
        return this;
    }

    /** A scattered queue map: q_mapping lists each queue (ICE_AQ_VSI_Q_MAP_NONCONTIG, at most 16). */
    public RssView scatteredQueue(int index, int queue) {
        contiguous = false;
        queueList[index] = queue;
        queueCount = Math.max(queueCount, index + 1);
        return this;
    }

    {
        defaultInputSets();
    }

    public RssView clearQueues() {
        contiguous = true;
        firstQueue = 0;
        queueCount = 0;
        return this;
    }

    /** TC 0's region: {@code offset} and 2^{@code log2Count} queues (tc_mapping[0]). */
    public RssView tc0(int offset, int log2Count) {
        tcOffset = offset;
        tcMask = (1 << Math.min(log2Count, 11)) - 1;
        return this;
    }

    /** Every packet type back to ice's default input set. */
    public RssView defaultInputSets() {
        Arrays.fill(inputSets, (byte) FlowProfiles.NO_PROFILE);
        return this;
    }

    /** What the VSI's RSS profile hashes of packet type {@code ptype} (a set, or {@link FlowProfiles#NO_PROFILE}). */
    public RssView inputSet(int ptype, int set) {
        inputSets[ptype] = (byte) set;
        return this;
    }

    /** The input set of {@code ptype}, or {@link FlowProfiles#NO_PROFILE} when no profile applies. */
    public int inputSet(int ptype) {
        return ptype >= 0 && ptype < PTYPES ? inputSets[ptype] : FlowProfiles.NO_PROFILE;
    }

    /**
     * Whether the LUT entry {@code rssHash} selects names a queue inside the VSI's map (a guest may program a LUT
     * whose entries run past its TC's queues); only then does {@link #queue} answer. Allocation-free, per frame.
     */
    public boolean inMap(int rssHash) {
        return mapIndex(rssHash) < queueCount;
    }

    /** The device queue {@code rssHash} steers to, for a hash {@link #inMap} accepts. */
    public int queue(int rssHash) {
        int index = mapIndex(rssHash);
        return contiguous ? firstQueue + index : queueList[index];
    }

    /** The index into the VSI's queue map that the LUT entry {@code rssHash} selects names. */
    private int mapIndex(int rssHash) {
        int entry = lut[rssHash & lutEntries - 1];
        return tcOffset + (entry & tcMask);
    }

    /** The VSI's first queue (where a frame goes when the VSI does not hash it). */
    public int firstQueue() {
        return contiguous ? firstQueue : queueList[0];
    }

    public int lutEntries() {
        return lutEntries;
    }

    public int queueCount() {
        return queueCount;
    }
}
