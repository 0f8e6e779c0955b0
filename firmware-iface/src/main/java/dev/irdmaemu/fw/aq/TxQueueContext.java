package dev.irdmaemu.fw.aq;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * The Tx LAN queue context as add_txqs carries it (ICE_TXQ_CTX_SZ = 22 bytes), bit-packed little-endian as
 * ice_common.c ice_pack_txq_ctx packs struct ice_tlan_ctx (the ice_tlan_ctx_fields table: width, lsb). Bit n lies
 * in byte n / 8 at bit n % 8. The model keeps each queue's context as these 22 bytes and reads them through this
 * flyweight on the LAN path; writers exist for tests and the Java driver.
 */
public final class TxQueueContext extends LeView {
    public static final int SIZE = 22;
    /** ice_lan_tx_rx.h ICE_TLAN_CTX_BASE_S: the ring base is stored in 128-byte units. */
    public static final int BASE_SHIFT = 7;

    public TxQueueContext wrap(BytesStore<?, ?> store, long offset) {
        attach(store, offset, SIZE);
        return this;
    }

    public boolean complete() {
        return has(0, SIZE);
    }

    /** Ring base address in bytes (the 57-bit field at 0 is in 128-byte units). */
    public long ringBase() {
        return field(0, 57) << BASE_SHIFT;
    }

    public int portNum() {
        return (int) field(57, 3);
    }

    public int cgdNum() {
        return (int) field(60, 5);
    }

    public int pfNum() {
        return (int) field(65, 3);
    }

    public int vmvfNum() {
        return (int) field(68, 10);
    }

    public int vmvfType() {
        return (int) field(78, 2);
    }

    public int sourceVsi() {
        return (int) field(80, 10);
    }

    public boolean tsynEnabled() {
        return field(90, 1) != 0;
    }

    public boolean writeBackMode() {
        return field(101, 1) != 0;
    }

    public int cmpqId() {
        return (int) field(105, 9);
    }

    public int queueInFunction() {
        return (int) field(114, 14);
    }

    /** Ring length in descriptors (13 bits at 135). */
    public int queueLength() {
        return (int) field(135, 13);
    }

    public int quantaProfile() {
        return (int) field(148, 4);
    }

    public boolean tsoEnabled() {
        return field(152, 1) != 0;
    }

    public int tsoQueue() {
        return (int) field(153, 11);
    }

    public boolean legacyInterrupt() {
        return field(164, 1) != 0;
    }

    public boolean dropEnabled() {
        return field(165, 1) != 0;
    }

    public TxQueueContext ringBase(long bytes) {
        return field(0, 57, bytes >>> BASE_SHIFT);
    }

    public TxQueueContext pfNum(int v) {
        return field(65, 3, v);
    }

    public TxQueueContext sourceVsi(int v) {
        return field(80, 10, v);
    }

    public TxQueueContext queueInFunction(int v) {
        return field(114, 14, v);
    }

    public TxQueueContext queueLength(int v) {
        return field(135, 13, v);
    }

    public TxQueueContext legacyInterrupt(boolean v) {
        return field(164, 1, v ? 1 : 0);
    }

    /** The field of {@code width} bits (at most 63) whose lowest bit is context bit {@code lsb}. */
    public long field(int lsb, int width) {
        return packedBits(lsb, width);
    }

    public TxQueueContext field(int lsb, int width, long value) {
        for (int i = 0; i < width; i++) {
            int bit = lsb + i;
            int b = u8(bit >>> 3);
            int m = 1 << (bit & 7);
            put8(bit >>> 3, (value >>> i & 1) != 0 ? b | m : b & ~m);
        }
        return this;
    }
}
