package dev.irdmaemu.model.pci;

import dev.irdmaemu.fw.bus.Mmio;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.HashSet;
import java.util.Set;

/**
 * BAR0 of the E810 PF: one register space shared by ice and irdma (irdma reaches it through ice's mapping,
 * ice_idc.c hands it the PF's hw_addr). Each 32-bit access goes to the RDMA block when its {@code RegisterFile}
 * defines the offset (GLINT_DYN_CTL, the PE registers) or the offset lies in irdma's doorbell page
 * (ICRDMA_DB_ADDR_OFFSET, 64 KiB), else to the ice block when it backs the offset; offsets nobody backs read 0,
 * ignore writes, and are traced once each, as the RDMA block's register file does. The lookup allocates nothing.
 */
public final class Bar0Dispatcher implements Mmio {
    /** irdma's doorbell page: BAR0 + 8 MiB - 64 KiB, 64 KiB long (icrdma_hw.h ICRDMA_DB_ADDR_OFFSET). */
    public static final long DB_PAGE = Gen2Register.DB_ADDR_OFFSET.offset();
    public static final long DB_PAGE_SIZE = 64 * 1024;

    private final RdmaBlock rdma;
    private final FunctionBlock ice;
    private final Trace trace;
    private final Set<Long> unknownSeen = new HashSet<>();
    private long unknownReads;
    private long unknownWrites;

    public Bar0Dispatcher(RdmaBlock rdma, FunctionBlock ice, Trace trace) {
        this.rdma = rdma;
        this.ice = ice;
        this.trace = trace;
    }

    /** Whether BAR0 offset {@code offset} belongs to the RDMA block. */
    public boolean rdmaOwns(long offset) {
        return rdma.registers().lookup(offset) >= 0 || (offset >= DB_PAGE && offset < DB_PAGE + DB_PAGE_SIZE);
    }

    @Override
    public int read32(long offset) {
        if (rdmaOwns(offset)) {
            return rdma.read32(offset);
        }
        if (ice.defines(offset)) {
            return ice.read32(offset);
        }
        unknownReads++;
        unknown("read", offset, 0);
        return 0;
    }

    @Override
    public void write32(long offset, int value) {
        if (rdmaOwns(offset)) {
            rdma.write32(offset, value);
            return;
        }
        if (ice.defines(offset)) {
            ice.write32(offset, value);
            return;
        }
        unknownWrites++;
        unknown("write", offset, value);
    }

    private void unknown(String access, long offset, int value) {
        if (unknownSeen.size() < 4096 && unknownSeen.add(offset)) {
            TraceEvent t = trace.start(TraceKind.REG_UNKNOWN);
            if (t != null) {
                t.text("access", access).hex("off", offset).hex("val", value & 0xffff_ffffL).text("block", "none")
                        .emit();
            }
        }
    }

    public long unknownReads() {
        return unknownReads;
    }

    public long unknownWrites() {
        return unknownWrites;
    }
}
