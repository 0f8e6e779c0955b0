package dev.irdmaemu.fw.reg;

import java.util.HashMap;
import java.util.Map;

/**
 * The field layout of a BAR0 register the drivers program, by the register's name as the model's register tables
 * and the trace spell it, to show a value as its fields: {@code GLINT_DYN_CTL = 0x1b} is {@code INTENA=1 CLEARPBA=1
 * ITR_INDX=3}. Field names are the kernel's, without the register prefix and the {@code _M} / {@code _S} suffixes:
 * irdma.h (IRDMA_CQPTAIL_*, IRDMA_CQPERRCODES_*, IRDMA_GLINT_*, IRDMA_PFINT_AEQCTL_*, IRDMA_PFHMC_PDINV_*,
 * IRDMA_WQEALLOC_WQE_DESC_INDEX, IRDMA_GLPCI_LBARCTRL_PE_DB_SIZE), icrdma_hw.h (ICRDMA_CCQPSTATUS_*), and
 * drivers/net/ethernet/intel/ice/ice_hw_autogen.h for the ice and LAN registers (GLINT_DYN_CTL_*, PFINT_*_CTL_*,
 * PFINT_OICR_*, PF_FW_ATQLEN_*, QRX_CTRL_*, QINT_RQCTL_*, GL_MDET_*, ...). Where the kernel writes a whole value
 * with no field macro (the CQP doorbell's SQ head in ctrl.c irdma_sc_cqp_post_sq, the CQ id in uk.c
 * irdma_uk_cq_request_notification, the Tx tail in ice_txrx.c ice_tx_map), the field is named after what is
 * written. A register with no layout here is shown as its raw value.
 *
 * <p>Built once; {@link #decode} appends to the caller's builder. For the trace command and tests, not for the
 * model's hot paths.
 */
public final class RegisterLayout {
    /** Which block of the PF a register belongs to. */
    public enum Block {
        /** The RDMA (PE) block irdma drives: CQP, doorbells, AEQ/CEQ routing, HMC. */
        RDMA,
        /** The interrupt registers ice and irdma share (GLINT_DYN_CTL, GLINT_ITR, GLINT_RATE). */
        INT,
        /** ice's LAN queues: Rx/Tx rings, queue interrupts, malicious-driver detection. */
        LAN,
        /** Everything else ice touches: admin queue, resets, NVM, misc interrupt causes, statistics. */
        ICE;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One field: bits {@code lo..hi} of the register. */
    public record Field(String name, int lo, int hi) {
        public long get(long value) {
            return Bits.get(value, Bits.genmask(hi, lo));
        }
    }

    private static final Map<String, RegisterLayout> BY_NAME = new HashMap<>();

    static {
        // ---- RDMA block (irdma.h, icrdma_hw.h)
        rdma("CQPTAIL", f("WQTAIL", 0, 10), f("CQP_OP_ERR", 31, 31));
        rdma("CQPDB", f("SQ_HEAD", 0, 31));
        rdma("CCQPSTATUS", f("CCQP_DONE", 0, 0), f("CCQP_ERR", 31, 31));
        rdma("CCQPHIGH");
        rdma("CCQPLOW");
        rdma("CQARM", f("CQ_ID", 0, 31));
        rdma("DB_PAGE_CQARM", f("CQ_ID", 0, 31));
        rdma("CQACK", f("CQ_ID", 0, 31));
        rdma("AEQALLOC", f("COUNT", 0, 31));
        rdma("CQPERRCODES", f("CQP_MINOR_CODE", 0, 15), f("CQP_MAJOR_CODE", 16, 31));
        rdma("WQEALLOC", f("QP_ID", 0, 19), f("WQE_DESC_INDEX", 20, 31));
        rdma("DB_PAGE_WQEALLOC", f("QP_ID", 0, 19), f("WQE_DESC_INDEX", 20, 31));
        rdma("GLPCI_LBARCTRL", f("PE_DB_SIZE", 4, 5));
        rdma("PFINT_AEQCTL", f("MSIX_INDX", 0, 10), f("ITR_INDX", 11, 12), f("CAUSE_ENA", 30, 30));
        rdma("GLINT_CEQCTL", f("MSIX_INDX", 0, 10), f("ITR_INDX", 11, 12), f("CAUSE_ENA", 30, 30));
        rdma("PFHMC_PDINV", f("PMSDIDX", 0, 11), f("PMSDPARTSEL", 15, 15), f("PMPDIDX", 16, 24));
        rdma("GLPE_CPUSTATUS0");
        rdma("GLPE_CPUSTATUS1");
        rdma("GLPE_CPUSTATUS2");
        rdma("VSIQF_PE_CTL1");
        rdma("GLHMC_VFPDINV");
        rdma("GLPE_CRITERR");
        rdma("PFHMC_ERRORINFO");
        rdma("PFHMC_ERRORDATA");

        // ---- shared interrupt registers (ice_hw_autogen.h GLINT_*; irdma.h IRDMA_GLINT_*)
        add("GLINT_DYN_CTL", Block.INT, f("INTENA", 0, 0), f("CLEARPBA", 1, 1), f("SWINT_TRIG", 2, 2),
                f("ITR_INDX", 3, 4), f("INTERVAL", 5, 16), f("SW_ITR_INDX_ENA", 24, 24), f("SW_ITR_INDX", 25, 26),
                f("WB_ON_ITR", 30, 30), f("INTENA_MSK", 31, 31));
        add("GLINT_RATE", Block.INT, f("INTERVAL", 0, 5), f("INTRL_ENA", 6, 6));
        add("GLINT_ITR", Block.INT, f("INTERVAL", 0, 11));
        add("GLINT_CTL", Block.INT, f("DIS_AUTOMASK", 0, 0), f("ITR_GRAN_200", 16, 19), f("ITR_GRAN_100", 20, 23),
                f("ITR_GRAN_50", 24, 27), f("ITR_GRAN_25", 28, 31));

        // ---- ice: control queues (PF_FW_* admin queue, PF_MBX_* mailbox: the same layout)
        for (String q : new String[] {"PF_FW_", "PF_MBX_"}) {
            for (String r : new String[] {"ATQ", "ARQ"}) {
                ice(q + r + "LEN", f(r + "LEN", 0, 9), f(r + "VFE", 28, 28), f(r + "OVFL", 29, 29),
                        f(r + "CRIT", 30, 30), f(r + "ENABLE", 31, 31));
                ice(q + r + "H", f(r + "H", 0, 9));
                ice(q + r + "T", f(r + "T", 0, 9));
                ice(q + r + "BAL");
                ice(q + r + "BAH");
            }
        }
        // ---- ice: resets, NVM, firmware state
        ice("PFGEN_CTRL", f("PFSWR", 0, 0));
        ice("GLGEN_RSTAT", f("DEVSTATE", 0, 1), f("RESET_TYPE", 2, 3));
        ice("GLGEN_RTRIG", f("CORER", 0, 0), f("GLOBR", 1, 1));
        ice("GLGEN_RSTCTL", f("GRSTDEL", 0, 5));
        ice("GLNVM_ULD", f("PCIER_DONE", 0, 0), f("PCIER_DONE_1", 1, 1), f("CORER_DONE", 3, 3),
                f("GLOBR_DONE", 4, 4), f("POR_DONE", 5, 5), f("POR_DONE_1", 8, 8), f("PCIER_DONE_2", 9, 9),
                f("PE_DONE", 10, 10));
        ice("GLNVM_GENS", f("SR_SIZE", 5, 7));
        ice("GLNVM_FLA", f("LOCKED", 6, 6));
        ice("GL_MNG_FWSM", f("FW_MODES", 0, 2), f("FW_LOADING", 30, 30));
        ice("PF_FUNC_RID", f("FUNC_NUM", 0, 2));
        ice("PFPM_WUS", f("LNKC", 0, 0), f("MAG", 1, 1), f("MNG", 3, 3), f("FW_RST_WK", 31, 31));
        ice("PFPM_APM", f("APME", 0, 0));
        ice("PFPM_WUFC", f("MAG", 1, 1));
        ice("GLPCI_CNF2", f("CACHELINE_SIZE", 1, 1));
        // ---- ice: misc interrupt causes (ice_main.c ice_ena_misc_vector, ice_ena_ctrlq_interrupts)
        Field[] oicr = {f("TSYN_TX", 11, 11), f("TSYN_EVNT", 12, 12), f("ECC_ERR", 16, 16),
            f("MAL_DETECT", 19, 19), f("GRST", 20, 20), f("PCI_EXCEPTION", 21, 21), f("HMC_ERR", 26, 26),
            f("PE_PUSH", 27, 27), f("PE_CRITERR", 28, 28), f("VFLR", 29, 29), f("SWINT", 31, 31)};
        ice("PFINT_OICR", oicr);
        ice("PFINT_OICR_ENA", oicr);
        Field[] ctl = {f("MSIX_INDX", 0, 10), f("ITR_INDX", 11, 12), f("CAUSE_ENA", 30, 30)};
        ice("PFINT_FW_CTL", ctl);
        ice("PFINT_MBX_CTL", ctl);
        ice("PFINT_OICR_CTL", ctl);
        ice("PFINT_SB_CTL", f("MSIX_INDX", 0, 10), f("CAUSE_ENA", 30, 30));
        ice("PFINT_ALLOC", f("FIRST", 0, 10));

        // ---- LAN queues (ice_hw_autogen.h QRX_*, QTX_*, QINT_*, *_MDET_*)
        lan("QRX_CTRL", f("QENA_REQ", 0, 0), f("QENA_STAT", 2, 2));
        lan("QRX_TAIL", f("TAIL", 0, 12));
        lan("QTX_COMM_DBELL", f("TAIL", 0, 31));
        lan("QTX_COMM_HEAD", f("HEAD", 0, 12));
        lan("QRXFLXP_CNTXT", f("RXDID_IDX", 0, 5), f("RXDID_PRIO", 8, 10), f("TS", 11, 11));
        lan("QINT_RQCTL", ctl);
        lan("QINT_TQCTL", ctl);
        Field[] mdet = {f("QNUM", 0, 14), f("VF_NUM", 15, 22), f("PF_NUM", 23, 25), f("MAL_TYPE", 26, 30),
            f("VALID", 31, 31)};
        lan("GL_MDET_RX", mdet);
        lan("GL_MDET_TX_TCLAN", mdet);
        lan("PF_MDET_RX", f("VALID", 0, 0));
        lan("PF_MDET_TX_TCLAN", f("VALID", 0, 0));
        lan("GLV_RDPC");
        for (int i = 0; i < 8; i++) {
            lan("QRX_CONTEXT" + i);
        }
    }

    private final String register;
    private final Block block;
    private final Field[] fields;

    private RegisterLayout(String register, Block block, Field[] fields) {
        this.register = register;
        this.block = block;
        this.fields = fields;
    }

    private static Field f(String name, int lo, int hi) {
        return new Field(name, lo, hi);
    }

    private static void rdma(String name, Field... fields) {
        add(name, Block.RDMA, fields);
    }

    private static void ice(String name, Field... fields) {
        add(name, Block.ICE, fields);
    }

    private static void lan(String name, Field... fields) {
        add(name, Block.LAN, fields);
    }

    private static void add(String name, Block block, Field... fields) {
        if (BY_NAME.put(name, new RegisterLayout(name, block, fields)) != null) {
            throw new IllegalStateException("register layout " + name + " twice");
        }
    }

    /** The RDMA block's registers icrdma_hw.h spells with a PFPE_ prefix (the model's table drops it). */
    private static final java.util.Set<String> PFPE = java.util.Set.of("CQPTAIL", "CQPDB", "CCQPSTATUS", "CCQPHIGH",
            "CCQPLOW", "CQARM", "CQACK", "AEQALLOC", "CQPERRCODES", "WQEALLOC");

    /**
     * The kernel's name of the register the trace names {@code name}: {@code PFPE_CQPTAIL} for {@code CQPTAIL}
     * (icrdma_hw.h), the name itself otherwise.
     */
    public static String kernelName(String name) {
        return name != null && PFPE.contains(name) ? "PFPE_" + name : name;
    }

    /** The layout of the register the trace names {@code name}, or null when none is known. */
    public static RegisterLayout of(String name) {
        return name == null ? null : BY_NAME.get(name);
    }

    /**
     * The block of register {@code name}: its layout's, else {@link Block#RDMA} for a {@link Gen2Register} name,
     * {@link Block#INT} for the interrupt arrays, {@link Block#ICE} for the rest (ice's storage).
     */
    public static Block blockOf(String name) {
        RegisterLayout l = of(name);
        if (l != null) {
            return l.block;
        }
        if (name != null && name.startsWith("GLINT_")) {
            return Block.INT;
        }
        return Block.ICE;
    }

    public String register() {
        return register;
    }

    public Block block() {
        return block;
    }

    /** The fields, lowest bit first (a copy). */
    public Field[] fields() {
        return fields.clone();
    }

    /** The field called {@code name}, or null. */
    public Field field(String name) {
        for (Field f : fields) {
            if (f.name.equals(name)) {
                return f;
            }
        }
        return null;
    }

    /**
     * Appends the non-zero fields of {@code value} as {@code " NAME=v"} (decimal), and {@code " rsvd=0x..."} for
     * set bits no field covers. Appends nothing for 0, nor for a register shown raw (no fields).
     */
    public void decode(long value, StringBuilder out) {
        long covered = 0;
        for (Field f : fields) {
            long mask = Bits.genmask(f.hi, f.lo);
            covered |= mask;
            long v = Bits.get(value, mask);
            if (v == 0) {
                continue;
            }
            out.append(' ').append(f.name).append('=').append(v);
        }
        long rest = value & 0xffff_ffffL & ~covered;
        if (rest != 0 && fields.length > 0) {
            out.append(" rsvd=0x").append(Long.toHexString(rest));
        }
    }
}
