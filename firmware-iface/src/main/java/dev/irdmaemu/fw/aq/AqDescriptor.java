package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.ByteWindow;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over one 32-byte admin queue descriptor, struct libie_aq_desc of include/linux/net/intel/libie/adminq.h,
 * the same layout on the ATQ (commands ice posts, answered in place) and on the ARQ (events the firmware writes):
 * <pre>
 *  byte  0  flags u16    LIBIE_AQ_FLAG_* ({@link #DD} .. {@link #FE})
 *  byte  2  opcode u16   {@link AqOpcode}
 *  byte  4  datalen u16  bytes of the indirect buffer; on completion, the bytes the firmware returned
 *  byte  6  retval u16   {@link AqError}; ice_sq_send_cmd keeps only the low 8 bits
 *  byte  8  cookie_high u32, byte 12 cookie_low u32 (opaque, echoed)
 *  byte 16  params[16]   command specific; for indirect commands libie_aqc_generic puts addr_high at params
 *                        byte 8 and addr_low at params byte 12
 * </pre>
 * All fields are little-endian. Reads outside the wrapped window answer 0 and writes there are dropped, so a
 * truncated wrap never throws; {@link #validate()} says whether the descriptor was really there. The param accessors
 * take a byte offset {@code i} within the 16-byte params area; an offset that does not fit the field is a
 * programming error of the command handler (the offsets are constants of adminq.h / ice_adminq_cmd.h, never guest
 * input) and throws {@link IndexOutOfBoundsException}.
 */
public final class AqDescriptor extends ByteWindow {
    /** sizeof(struct libie_aq_desc). */
    public static final int SIZE = 32;
    /** Byte offset of the params union. */
    public static final int PARAMS = 16;
    public static final int PARAMS_SIZE = 16;
    /** LIBIE_AQ_MAX_BUF_LEN: the largest indirect buffer. */
    public static final int MAX_BUF_LEN = 4096;
    /** LIBIE_AQ_LG_BUF: buffers above this carry {@link #LB} (ice_sq_send_cmd). */
    public static final int LG_BUF = 512;

    /** libie adminq.h LIBIE_AQ_FLAG_*: descriptor done (set by the firmware). */
    public static final int DD = 0x0001;
    /** Command completed (set by the firmware). */
    public static final int CMP = 0x0002;
    /** Command ended in error; retval holds the code (set by the firmware). */
    public static final int ERR = 0x0004;
    /** VF error (VF queues only). */
    public static final int VFE = 0x0008;
    /** Large buffer: the indirect buffer is larger than {@link #LG_BUF}. */
    public static final int LB = 0x0200;
    /** The buffer carries data the firmware reads (driver to firmware). */
    public static final int RD = 0x0400;
    /** VF command (VF queues only). */
    public static final int VFC = 0x0800;
    /** An indirect buffer is attached (addr_high/addr_low, datalen). */
    public static final int BUF = 0x1000;
    /** Interrupt on completion suppressed (ice sets it on every command: ice_fill_dflt_direct_cmd_desc). */
    public static final int SI = 0x2000;
    /** Interrupt on error. */
    public static final int EI = 0x4000;
    /** Flush on error. */
    public static final int FE = 0x8000;
    /** Bits 4..8 of the flags word: reserved in adminq.h's flags diagram. */
    public static final int RESERVED = 0x01F0;
    /** The flags a driver may set on a PF command (what ice_controlq.c and ice_common.c ever set). */
    public static final int DRIVER_FLAGS = LB | RD | BUF | SI | EI | FE;

    public AqDescriptor wrap(BytesStore<?, ?> s, long offset) {
        attach(s, offset, SIZE);
        return this;
    }

    /**
     * Checks a command descriptor as fetched from the ATQ: all 32 bytes there, no reserved or VF flag, no
     * firmware-owned flag (DD/CMP/ERR) set by the driver, and a buffer length that agrees with BUF: ice_sq_send_cmd
     * sets BUF exactly when it attaches a buffer of 1..sq_buf_size (4096) bytes and puts its size in datalen.
     */
    public AqDescriptorCheck validate() {
        failedAt = -1;
        if (!has(0, SIZE)) {
            return fail(AqDescriptorCheck.TRUNCATED, length);
        }
        int f = flags();
        if ((f & RESERVED) != 0) {
            return fail(AqDescriptorCheck.RESERVED_FLAGS, 0);
        }
        if ((f & (VFE | VFC)) != 0) {
            return fail(AqDescriptorCheck.VF_FLAGS, 0);
        }
        if ((f & (DD | CMP | ERR)) != 0) {
            return fail(AqDescriptorCheck.FIRMWARE_FLAGS, 0);
        }
        int len = datalen();
        if ((f & BUF) != 0) {
            if (len == 0) {
                return fail(AqDescriptorCheck.BUFFER_WITHOUT_LENGTH, 4);
            }
            if (len > MAX_BUF_LEN) {
                return fail(AqDescriptorCheck.BUFFER_TOO_LARGE, 4);
            }
        } else if (len != 0) {
            return fail(AqDescriptorCheck.LENGTH_WITHOUT_BUFFER, 4);
        }
        return AqDescriptorCheck.ACCEPTED;
    }

    public int flags() {
        return u16(0);
    }

    public AqDescriptor flags(int v) {
        putU16(0, v);
        return this;
    }

    public boolean flag(int mask) {
        return (flags() & mask) == mask;
    }

    public int opcode() {
        return u16(2);
    }

    public AqDescriptor opcode(int v) {
        putU16(2, v);
        return this;
    }

    public int datalen() {
        return u16(4);
    }

    public AqDescriptor datalen(int v) {
        putU16(4, v);
        return this;
    }

    public int retval() {
        return u16(6);
    }

    public AqDescriptor retval(int v) {
        putU16(6, v);
        return this;
    }

    public long cookieHigh() {
        return u32(8);
    }

    public long cookieLow() {
        return u32(12);
    }

    public AqDescriptor cookieHigh(long v) {
        putU32(8, v);
        return this;
    }

    public AqDescriptor cookieLow(long v) {
        putU32(12, v);
        return this;
    }

    /** libie_aqc_generic addr_high:addr_low, the guest-physical address of the indirect buffer. */
    public long bufferAddress() {
        return paramU32(8) << 32 | paramU32(12);
    }

    public AqDescriptor bufferAddress(long gpa) {
        paramU32(8, gpa >>> 32);
        paramU32(12, gpa & 0xffff_ffffL);
        return this;
    }

    public int paramU8(int i) {
        checkParam(i, 1);
        return has(PARAMS + i, 1) ? store.readUnsignedByte(base + PARAMS + i) : 0;
    }

    public int paramU16(int i) {
        checkParam(i, 2);
        return u16(PARAMS + i);
    }

    public long paramU32(int i) {
        checkParam(i, 4);
        return u32(PARAMS + i);
    }

    public long paramU64(int i) {
        checkParam(i, 8);
        return has(PARAMS + i, 8) ? store.readLong(base + PARAMS + i) : 0L;
    }

    public AqDescriptor paramU8(int i, int v) {
        checkParam(i, 1);
        if (has(PARAMS + i, 1)) {
            store.writeByte(base + PARAMS + i, (byte) v);
        }
        return this;
    }

    public AqDescriptor paramU16(int i, int v) {
        checkParam(i, 2);
        putU16(PARAMS + i, v);
        return this;
    }

    public AqDescriptor paramU32(int i, long v) {
        checkParam(i, 4);
        putU32(PARAMS + i, v);
        return this;
    }

    public AqDescriptor paramU64(int i, long v) {
        checkParam(i, 8);
        if (has(PARAMS + i, 8)) {
            store.writeLong(base + PARAMS + i, v);
        }
        return this;
    }

    /** Zeroes all 32 bytes (as ice_fill_dflt_direct_cmd_desc does before filling a command). */
    public AqDescriptor clear() {
        if (has(0, SIZE)) {
            store.zeroOut(base, base + SIZE);
        }
        return this;
    }

    /** Zeroes the 16 params bytes. */
    public AqDescriptor clearParams() {
        if (has(PARAMS, PARAMS_SIZE)) {
            store.zeroOut(base + PARAMS, base + PARAMS + PARAMS_SIZE);
        }
        return this;
    }

    private static void checkParam(int i, int width) {
        if (i < 0 || i > PARAMS_SIZE - width) {
            throw new IndexOutOfBoundsException("AQ param offset " + i + " width " + width);
        }
    }

    private int u16(int rel) {
        return has(rel, 2) ? store.readUnsignedShort(base + rel) : 0;
    }

    private long u32(int rel) {
        return has(rel, 4) ? store.readUnsignedInt(base + rel) : 0L;
    }

    private void putU16(int rel, int v) {
        if (has(rel, 2)) {
            store.writeShort(base + rel, (short) v);
        }
    }

    private void putU32(int rel, long v) {
        if (has(rel, 4)) {
            store.writeInt(base + rel, (int) v);
        }
    }
}
