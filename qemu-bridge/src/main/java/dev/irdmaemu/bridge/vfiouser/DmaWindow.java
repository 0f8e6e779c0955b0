package dev.irdmaemu.bridge.vfiouser;

import dev.irdmaemu.bridge.shm.SharedFileMapping;

/**
 * One DMA_MAP: the guest-physical range {@code [address, address + size)}, readable, maybe writable, and directly
 * mapped when the client sent a file descriptor (QEMU sends its RAM memfd, and no descriptor for pc.bios).
 */
public final class DmaWindow {
    private final long address;
    private final long size;
    private final boolean writable;
    private final SharedFileMapping mapping;

    DmaWindow(long address, long size, boolean writable, SharedFileMapping mapping) {
        this.address = address;
        this.size = size;
        this.writable = writable;
        this.mapping = mapping;
    }

    public long address() {
        return address;
    }

    public long size() {
        return size;
    }

    public boolean writable() {
        return writable;
    }

    /** True when the window's memory is mapped here (a descriptor came); false for message-only windows. */
    public boolean direct() {
        return mapping != null;
    }

    SharedFileMapping mapping() {
        return mapping;
    }

    boolean overlaps(long otherAddress, long otherSize) {
        return address < otherAddress + otherSize && otherAddress < address + size;
    }

    @Override
    public String toString() {
        return "0x" + Long.toHexString(address) + "+0x" + Long.toHexString(size) + (writable ? " rw" : " ro")
                + (direct() ? "" : " no-fd");
    }
}
