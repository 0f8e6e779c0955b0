package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.RssCommand;
import dev.irdmaemu.fw.aq.VsiCommand;
import java.util.BitSet;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * The firmware's VSI table and each VSI's RSS key and lookup table: add/update/get/free VSI
 * (0x0210/0x0211/0x0212/0x0213) and set/get RSS key and LUT (0x0B02/0x0B04, 0x0B03/0x0B05).
 *
 * <p>ice_switch.c ice_aq_add_vsi either asks for a number (vsi_num with ICE_AQ_VSI_IS_VALID) or lets the firmware
 * pick one from its pool; the reply carries the number and the pool counts (vsi_used, vsi_free), which ice keeps
 * as vsis_allocd / vsis_unallocated. The 128-byte VSI context (struct ice_aqc_vsi_props) is kept as sent; the reply
 * buffer is the driver's context, unchanged (ice copies it back over its own); get VSI answers the kept one. VSI numbers are 10 bits (ICE_AQ_VSI_NUM_M); the pool is {@link #DEFAULT_CAPACITY}
 * (ICE_MAX_VSI). RSS state needs the VSI to exist (ICE_AQC_RSS_VSI_VALID names it in vsi_id).
 *
 * <p>set_rss_lut names the table it writes in its flags (ice_common.c __ice_aq_get_set_rss_lut, enum ice_lut_type in
 * bits 1:0): the VSI's own small table, the PF's 2K table or one of the 16 global 512-entry tables (index in bits
 * 7:4); a VSI hashes through the table its context's q_opt_rss selects (ice_lib.c ice_set_rss_vsi_ctx: the PF VSI
 * inherits the PF's). {@link #generation()} counts every change the Rx engine's RSS view depends on, so it re-reads
 * the tables only after one.
 */
public final class VsiTable {
    /** Where refused commands are reported: the function's, shared by its command handlers (AqRefusals). */
    private AqRefusals refusals = new AqRefusals();

    /** ice_type.h ICE_MAX_VSI. */
    public static final int DEFAULT_CAPACITY = 768;
    /** enum ice_lut_type as set_rss_lut's flags carry it. */
    public static final int LUT_TYPE_VSI = 0;
    public static final int LUT_TYPE_PF = 1;
    public static final int LUT_TYPE_GLOBAL = 2;
    /** ICE_AQC_LUT_GLOBAL_IDX: 4 bits. */
    public static final int GLOBAL_LUTS = 16;
    /** The VSI number space: 10 bits. */
    public static final int VSI_SPACE = VsiCommand.VSI_NUM_MASK + 1;

    private final int capacity;
    private final BitSet used = new BitSet(VSI_SPACE);
    private final byte[][] props = new byte[VSI_SPACE][];
    private final int[] type = new int[VSI_SPACE];
    private final byte[][] rssKey = new byte[VSI_SPACE][];
    private final byte[][] rssLut = new byte[VSI_SPACE][];
    private byte[] pfLut;
    private final byte[][] globalLut = new byte[GLOBAL_LUTS][];
    private long generation;
    private final VsiCommand vsi = new VsiCommand();
    private final byte[] update = new byte[VsiCommand.PROPS_SIZE];

    public VsiTable() {
        this(DEFAULT_CAPACITY);
    }

    public VsiTable(int capacity) {
        if (capacity < 1 || capacity > VSI_SPACE) {
            throw new IllegalArgumentException("VSI capacity " + capacity);
        }
        this.capacity = capacity;
    }

    public void reset() {
        used.clear();
        for (int i = 0; i < VSI_SPACE; i++) {
            props[i] = null;
            rssKey[i] = null;
            rssLut[i] = null;
        }
        pfLut = null;
        for (int i = 0; i < GLOBAL_LUTS; i++) {
            globalLut[i] = null;
        }
        generation++;
    }

    /** Bumped on every change of a VSI, its context, an RSS key or a LUT. */
    public long generation() {
        return generation;
    }

    public void install(BiConsumer<Integer, AqCommandHandler> register) {
        register.accept(AqOpcode.ADD_VSI, this::add);
        register.accept(AqOpcode.UPDATE_VSI, this::update);
        register.accept(AqOpcode.GET_VSI, this::get);
        register.accept(AqOpcode.FREE_VSI, this::free);
        register.accept(AqOpcode.SET_RSS_KEY, this::setRssKey);
        register.accept(AqOpcode.GET_RSS_KEY, this::getRssKey);
        register.accept(AqOpcode.SET_RSS_LUT, this::setRssLut);
        register.accept(AqOpcode.GET_RSS_LUT, this::getRssLut);
    }

    public boolean exists(int vsiNum) {
        return vsiNum >= 0 && vsiNum < capacity && used.get(vsiNum);
    }

    public int allocated() {
        return used.cardinality();
    }

    public int capacity() {
        return capacity;
    }

    /**
     * The VSI's type as add_vsi gave it (vsi_flags bits 1:0). Like the other accessors of one VSI's state, it
     * asks for a VSI that {@link #exists}: callers check that first.
     *
     * @throws IllegalArgumentException when no VSI {@code vsiNum} exists
     */
    public int type(int vsiNum) {
        return type[existing(vsiNum)];
    }

    /** A copy of the VSI's 128-byte context, or null. */
    public byte[] context(int vsiNum) {
        return exists(vsiNum) ? props[vsiNum].clone() : null;
    }

    /** A copy of the LUT the VSI hashes through (its context's q_opt_rss selects it), or null when unset. */
    public byte[] rssLut(int vsiNum) {
        byte[] lut = lutInUse(vsiNum);
        return lut != null ? lut.clone() : null;
    }

    /** Entries of the LUT the VSI hashes through, 0 when that table is unset. */
    public int rssLutEntries(int vsiNum) {
        byte[] lut = lutInUse(vsiNum);
        return lut != null ? lut.length : 0;
    }

    /**
     * Entry {@code i} of the LUT the VSI hashes through (a queue index within the VSI).
     *
     * @throws IndexOutOfBoundsException unless {@code i} is below {@link #rssLutEntries}
     */
    public int rssLutEntry(int vsiNum, int i) {
        byte[] lut = lutInUse(vsiNum);
        return lut[Objects.checkIndex(i, lut != null ? lut.length : 0)] & 0xFF;
    }

    /** Copies the VSI's RSS key into {@code dst} (52 bytes, zeroes after a 40-byte key); false when none was set. */
    public boolean rssKey(int vsiNum, byte[] dst) {
        if (!exists(vsiNum) || rssKey[vsiNum] == null) {
            return false;
        }
        System.arraycopy(rssKey[vsiNum], 0, dst, 0, RssCommand.EXTENDED_KEY_SIZE);
        return true;
    }

    /**
     * A little-endian u16 of the VSI's kept context at {@code offset} (VsiCommand's offsets).
     *
     * @throws IllegalArgumentException when no VSI {@code vsiNum} exists
     */
    public int contextU16(int vsiNum, int offset) {
        return VsiCommand.propsU16(props[existing(vsiNum)], offset);
    }

    /** sw_flags of the VSI's kept context (VsiCommand.SW_FLAG_*), 0 for a VSI that does not exist. */
    public int switchFlags(int vsiNum) {
        return exists(vsiNum) ? props[vsiNum][VsiCommand.SW_FLAGS] & 0xFF : 0;
    }

    /**
     * The PF's own VSI: the lowest-numbered VSI of type PF (ice's main LAN VSI, whose queues ice's netdev and the RDMA
     * block transmit on), if there is one.
     */
    public OptionalInt pfVsi() {
        for (int v = used.nextSetBit(0); v >= 0; v = used.nextSetBit(v + 1)) {
            if (type[v] == VsiCommand.TYPE_PF) {
                return OptionalInt.of(v);
            }
        }
        return OptionalInt.empty();
    }

    /**
     * q_opt_rss of the VSI's kept context.
     *
     * @throws IllegalArgumentException when no VSI {@code vsiNum} exists
     */
    public int rssOptions(int vsiNum) {
        return props[existing(vsiNum)][VsiCommand.Q_OPT_RSS] & 0xFF;
    }

    /** {@code vsiNum}, checked to name a VSI that exists. */
    private int existing(int vsiNum) {
        if (!exists(vsiNum)) {
            throw new IllegalArgumentException("no VSI " + vsiNum);
        }
        return vsiNum;
    }

    private byte[] lutInUse(int vsiNum) {
        if (!exists(vsiNum)) {
            return null;
        }
        int opt = props[vsiNum][VsiCommand.Q_OPT_RSS] & 0xFF;
        switch (opt & VsiCommand.RSS_LUT_M) {
            case VsiCommand.RSS_LUT_VSI:
                return rssLut[vsiNum];
            case VsiCommand.RSS_LUT_PF:
                return pfLut;
            case VsiCommand.RSS_LUT_GBL:
                return globalLut[opt >>> VsiCommand.RSS_GBL_LUT_S & VsiCommand.RSS_GBL_LUT_M];
            default:
                return null;
        }
    }

    public byte[] rssKey(int vsiNum) {
        return exists(vsiNum) && rssKey[vsiNum] != null ? rssKey[vsiNum].clone() : null;
    }

    // ---- 0x0210

    private int add(AqDescriptor desc, Bytes<?> buf) {
        if (!wrapProps(desc, buf)) {
            return refusals.refuse("add_vsi", "VSI context shorter than " + VsiCommand.PROPS_SIZE + " bytes", AqError.EINVAL);
        }
        int req = desc.paramU16(VsiCommand.PARAM_VSI_NUM);
        int num;
        if ((req & VsiCommand.VSI_IS_VALID) != 0) {
            num = req & VsiCommand.VSI_NUM_MASK;
            if (num >= capacity) {
                return refusals.refuse("add_vsi", "VSI " + num + " beyond the pool of " + capacity, AqError.EINVAL);
            }
            if (used.get(num)) {
                return refusals.refuse("add_vsi", "VSI " + num + " is in use", AqError.EEXIST);
            }
        } else {
            num = used.nextClearBit(0);
            if (num >= capacity) {
                return refusals.refuse("add_vsi", "no free VSI", AqError.ENOSPC);
            }
        }
        used.set(num);
        props[num] = new byte[VsiCommand.PROPS_SIZE];
        vsi.readProps(props[num]);
        type[num] = desc.paramU16(VsiCommand.PARAM_VSI_FLAGS) & 0x3;
        rssKey[num] = null;
        rssLut[num] = null;
        generation++;
        reply(desc, num);
        return AqError.OK;
    }

    // ---- 0x0211: the firmware applies the sections the update flags in valid_sections and keeps the others: ice
    // sends the whole of vsi->info for most updates, but some build a zeroed context with one section (ice_switch.c
    // ice_cfg_rdma_fltr: the queueing options alone, when irdma turns its PE filter on), whose other bytes must not
    // wipe the VSI's switch flags or queue map. valid_sections kept is the union. The buffer goes back as the driver
    // sent it: ice copies the reply over its ctxt->info.

    private int update(AqDescriptor desc, Bytes<?> buf) {
        int num = desc.paramU16(VsiCommand.PARAM_VSI_NUM) & VsiCommand.VSI_NUM_MASK;
        if (!exists(num)) {
            return refusals.refuse("update_vsi", "VSI " + num + " does not exist", AqError.ENOENT);
        }
        if (!wrapProps(desc, buf)) {
            return refusals.refuse("update_vsi", "VSI context shorter than " + VsiCommand.PROPS_SIZE + " bytes",
                    AqError.EINVAL);
        }
        byte[] mine = props[num];
        int sent = vsi.validSections();
        int merged = ((mine[0] & 0xFF) | (mine[1] & 0xFF) << 8) | sent;
        vsi.readProps(update);
        for (VsiCommand.Section section : VsiCommand.SECTIONS) {
            if ((sent & 1 << section.bit()) != 0) {
                System.arraycopy(update, section.offset(), mine, section.offset(), section.length());
            }
        }
        mine[0] = (byte) merged;
        mine[1] = (byte) (merged >>> 8);
        generation++;
        reply(desc, num);
        return AqError.OK;
    }

    // ---- 0x0212

    private int get(AqDescriptor desc, Bytes<?> buf) {
        int num = desc.paramU16(VsiCommand.PARAM_VSI_NUM) & VsiCommand.VSI_NUM_MASK;
        if (!exists(num)) {
            return refusals.refuse("get_vsi_params", "VSI " + num + " does not exist", AqError.ENOENT);
        }
        if (!wrapProps(desc, buf)) {
            return refusals.refuse("get_vsi_params", "reply buffer shorter than the VSI context", AqError.ENOMEM);
        }
        vsi.writeProps(props[num]);
        reply(desc, num);
        return AqError.OK;
    }

    // ---- 0x0213

    private int free(AqDescriptor desc, Bytes<?> buf) {
        int num = desc.paramU16(VsiCommand.PARAM_VSI_NUM) & VsiCommand.VSI_NUM_MASK;
        if (!exists(num)) {
            return refusals.refuse("free_vsi", "VSI " + num + " does not exist", AqError.ENOENT);
        }
        used.clear(num);
        props[num] = null;
        rssKey[num] = null;
        rssLut[num] = null;
        generation++;
        desc.paramU16(VsiCommand.RESP_VSI_NUM, num);
        desc.paramU16(VsiCommand.RESP_EXT_STATUS, 0);
        desc.paramU16(VsiCommand.RESP_VSI_USED, used.cardinality());
        desc.paramU16(VsiCommand.RESP_VSI_FREE, capacity - used.cardinality());
        if (buf != null) {
            desc.datalen(0);
        }
        return AqError.OK;
    }

    // ---- RSS

    private int setRssKey(AqDescriptor desc, Bytes<?> buf) {
        OptionalInt vsiNum = rssVsi(desc);
        if (vsiNum.isEmpty()) {
            return refusals.refuse("set_rss_key", "vsi_id names no VSI", AqError.ENOENT);
        }
        int num = vsiNum.getAsInt();
        long len = CommandBuffer.length(desc, buf);
        if (len != RssCommand.STANDARD_KEY_SIZE && len != RssCommand.EXTENDED_KEY_SIZE) {
            return refusals.refuse("set_rss_key", "key of " + len + " bytes", AqError.EINVAL);
        }
        byte[] key = new byte[RssCommand.EXTENDED_KEY_SIZE];
        long at = CommandBuffer.start(buf);
        for (int i = 0; i < len; i++) {
            key[i] = buf.readByte(at + i);
        }
        rssKey[num] = key;
        generation++;
        return AqError.OK;
    }

    private int getRssKey(AqDescriptor desc, Bytes<?> buf) {
        OptionalInt vsiNum = rssVsi(desc);
        if (vsiNum.isEmpty()) {
            return refusals.refuse("get_rss_key", "vsi_id names no VSI", AqError.ENOENT);
        }
        int num = vsiNum.getAsInt();
        long len = CommandBuffer.length(desc, buf);
        if (len < RssCommand.EXTENDED_KEY_SIZE) {
            return refusals.refuse("get_rss_key", "reply buffer of " + len + " bytes", AqError.ENOMEM);
        }
        byte[] key = rssKey[num] != null ? rssKey[num] : new byte[RssCommand.EXTENDED_KEY_SIZE];
        long at = CommandBuffer.start(buf);
        for (int i = 0; i < key.length; i++) {
            buf.writeByte(at + i, key[i]);
        }
        desc.datalen(RssCommand.EXTENDED_KEY_SIZE);
        return AqError.OK;
    }

    private int setRssLut(AqDescriptor desc, Bytes<?> buf) {
        OptionalInt vsiNum = rssVsi(desc);
        if (vsiNum.isEmpty()) {
            return refusals.refuse("set_rss_lut", "vsi_id names no VSI", AqError.ENOENT);
        }
        int num = vsiNum.getAsInt();
        int flags = desc.paramU16(RssCommand.PARAM_LUT_FLAGS);
        int lutType = flags & RssCommand.LUT_TYPE_M;
        if (lutType > LUT_TYPE_GLOBAL) {
            return refusals.refuse("set_rss_lut", "LUT type " + lutType, AqError.EINVAL);
        }
        int size = RssCommand.lutSize(flags);
        // ice_lut_type_to_size: the PF's table is 2K, a global one 512, a VSI's the small one; the size flag follows
        int typeSize = lutType == LUT_TYPE_PF ? RssCommand.LUT_PF_SIZE
                : lutType == LUT_TYPE_GLOBAL ? RssCommand.LUT_GLOBAL_SIZE : RssCommand.LUT_VSI_SIZE;
        if (size != typeSize) {
            return refusals.refuse("set_rss_lut", "LUT type " + lutType + " with a " + size + "-entry size flag",
                    AqError.EINVAL);
        }
        long len = CommandBuffer.length(desc, buf);
        boolean fits = len == size || size == RssCommand.LUT_VSI_SIZE && len == 2 * RssCommand.LUT_VSI_SIZE;
        if (!fits) {
            return refusals.refuse("set_rss_lut", "LUT of " + len + " bytes for a " + size + "-entry table", AqError.EINVAL);
        }
        byte[] lut = new byte[(int) len];
        long at = CommandBuffer.start(buf);
        for (int i = 0; i < len; i++) {
            lut[i] = buf.readByte(at + i);
        }
        switch (lutType) {
            case LUT_TYPE_PF:
                pfLut = lut;
                break;
            case LUT_TYPE_GLOBAL:
                globalLut[flags >>> RssCommand.LUT_GLOBAL_IDX_S & RssCommand.LUT_GLOBAL_IDX_M] = lut;
                break;
            default:
                rssLut[num] = lut;
                break;
        }
        generation++;
        return AqError.OK;
    }

    private int getRssLut(AqDescriptor desc, Bytes<?> buf) {
        OptionalInt vsiNum = rssVsi(desc);
        if (vsiNum.isEmpty()) {
            return refusals.refuse("get_rss_lut", "vsi_id names no VSI", AqError.ENOENT);
        }
        int num = vsiNum.getAsInt();
        int flags = desc.paramU16(RssCommand.PARAM_LUT_FLAGS);
        byte[] kept;
        switch (flags & RssCommand.LUT_TYPE_M) {
            case LUT_TYPE_VSI:
                kept = rssLut[num];
                break;
            case LUT_TYPE_PF:
                kept = pfLut;
                break;
            case LUT_TYPE_GLOBAL:
                kept = globalLut[flags >>> RssCommand.LUT_GLOBAL_IDX_S & RssCommand.LUT_GLOBAL_IDX_M];
                break;
            default:
                return refusals.refuse("get_rss_lut", "LUT type " + (flags & RssCommand.LUT_TYPE_M), AqError.EINVAL);
        }
        byte[] lut = kept != null ? kept : new byte[RssCommand.lutSize(flags)];
        long len = CommandBuffer.length(desc, buf);
        if (len < lut.length) {
            return refusals.refuse("get_rss_lut", "reply buffer of " + len + " bytes for " + lut.length, AqError.ENOMEM);
        }
        long at = CommandBuffer.start(buf);
        for (int i = 0; i < lut.length; i++) {
            buf.writeByte(at + i, lut[i]);
        }
        desc.datalen(lut.length);
        return AqError.OK;
    }

    // ---- plumbing

    private boolean wrapProps(AqDescriptor desc, Bytes<?> buf) {
        vsi.wrap(buf, CommandBuffer.start(buf), CommandBuffer.length(desc, buf));
        return buf != null && vsi.complete();
    }

    /** The VSI an RSS command's vsi_id names, if it is valid and exists. */
    private OptionalInt rssVsi(AqDescriptor desc) {
        int id = desc.paramU16(RssCommand.PARAM_VSI_ID);
        int num = id & RssCommand.VSI_MASK;
        return (id & RssCommand.VSI_VALID) != 0 && exists(num) ? OptionalInt.of(num) : OptionalInt.empty();
    }

    private void reply(AqDescriptor desc, int num) {
        desc.paramU16(VsiCommand.RESP_VSI_NUM, num);
        desc.paramU16(VsiCommand.RESP_EXT_STATUS, 0);
        desc.paramU16(VsiCommand.RESP_VSI_USED, used.cardinality());
        desc.paramU16(VsiCommand.RESP_VSI_FREE, capacity - used.cardinality());
        desc.datalen(VsiCommand.PROPS_SIZE);
    }


    /** Reports refused commands to {@code r} (the function's shared {@link AqRefusals}). */
    void reportRefusalsTo(AqRefusals r) {
        this.refusals = r;
    }
}
