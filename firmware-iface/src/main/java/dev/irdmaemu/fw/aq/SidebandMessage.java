package dev.irdmaemu.fw.aq;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * The buffer of a neighbour device request (0x0C00; ice_sbq_cmd.h struct ice_sbq_msg_req and, in the reply, struct
 * ice_sbq_msg_cmpl): on an E810, which has no sideband queue, ice sends it on the admin queue to reach the PHY's
 * registers (ice_controlq.c ice_get_sbq, ice_common.c ice_sbq_rw_reg), with the message length in the descriptor's
 * first params word. A read is 12 bytes (no data) and its data comes back at byte 4 of the completion; a write is
 * 16 bytes.
 */
public final class SidebandMessage extends LeView {
    /** The descriptor's param0.cmd_len. */
    public static final int PARAM_CMD_LEN = 0;
    public static final int READ_SIZE = 12;
    public static final int WRITE_SIZE = 16;
    /** enum ice_sbq_dev_id: ice_sbq_dev_phy_0, the E810's PHY. */
    public static final int DEV_PHY_0 = 0x02;
    /** enum ice_sbq_msg_opcode. */
    public static final int OP_READ = 0x00;
    public static final int OP_WRITE = 0x01;
    public static final int OP_WRITE_NP = 0x02;
    private static final int DEST_DEV = 0;
    private static final int OPCODE = 2;
    private static final int ADDR_LOW = 6;
    private static final int ADDR_HIGH = 8;
    private static final int DATA = 12;
    private static final int CMPL_DATA = 4;

    public SidebandMessage wrap(BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, length);
        return this;
    }

    public int destDev() {
        return u8(DEST_DEV);
    }

    public int opcode() {
        return u8(OPCODE);
    }

    /** msg_addr_high holds the address's upper 16 bits (ice_read_phy_reg_e810), msg_addr_low the lower. */
    public long address() {
        return (u32(ADDR_HIGH) << 16 | u16(ADDR_LOW)) & 0xFFFF_FFFF_FFFFL;
    }

    public long data() {
        return u32(DATA);
    }

    /** Writes a read's completion: the request's first four bytes stay, the data goes to byte 4. */
    public SidebandMessage completeRead(long data) {
        put32(CMPL_DATA, data);
        return this;
    }

    public long completionData() {
        return u32(CMPL_DATA);
    }

    /** Writes a request as ice_sbq_rw_reg does (for tests and the driver side). */
    public SidebandMessage request(int destDev, int opcode, long address, long data) {
        zero(0, opcode == OP_READ ? READ_SIZE : WRITE_SIZE);
        put8(DEST_DEV, destDev);
        put8(OPCODE, opcode);
        put8(3, 0x40);
        put8(4, 0x0F);
        put16(ADDR_LOW, (int) (address & 0xFFFF));
        put32(ADDR_HIGH, address >>> 16);
        if (opcode != OP_READ) {
            put32(DATA, data);
        }
        return this;
    }
}
