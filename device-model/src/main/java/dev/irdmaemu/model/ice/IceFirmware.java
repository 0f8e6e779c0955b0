package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.*;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.fw.bus.Mmio;
import dev.irdmaemu.fw.reg.IceRegisterMap;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.reg.RegisterFile;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The register block and firmware of one E810 PF as ice.ko sees them (Linux 7.3 drivers/net/ethernet/intel/ice):
 * the registers ice reads before its admin queue works (ice_probe, ice_init_hw, ice_check_reset, ice_pf_reset,
 * ice_init_nvm), the admin queue and mailbox rings ({@link AdminQueue}), the misc/OICR interrupt causes, the
 * adapter's core, global and EMP resets ({@link AdapterResets}, this PF's share of them here), and the
 * admin queue commands of probe step A, each a class of its own ({@link BasicCommands}, {@link ResourceLocks},
 * {@link NvmCommands}, {@link Capabilities}, {@link PortLink}, {@link ResourcePool}). Other commands (scheduler, VSI,
 * switch, DDP, queues) are registered from outside through {@link #register}.
 *
 * <p>Bus glue only: one {@link RegisterFile} table with named handlers (offsets from ice_hw_autogen.h via
 * {@link dev.irdmaemu.fw.reg.IceRegister}); every other offset ice writes is kept in plain storage so it reads back.
 * GLINT_DYN_CTL is not here: it is shared with irdma and lives in the RDMA block; this block raises its vectors
 * through the {@link InterruptSink} the PCI function gives it, which applies that gating.
 */
public final class IceFirmware implements Mmio {
    private static final Logger LOG = LoggerFactory.getLogger(IceFirmware.class);

    /** GLNVM_ULD: every "reset done" bit ice_check_reset waits for, plus PE_DONE (irdma's). */
    public static final int ULD_ALL_DONE = GLNVM_ULD_PCIER_DONE_M | GLNVM_ULD_PCIER_DONE_1_M | GLNVM_ULD_CORER_DONE_M
            | GLNVM_ULD_GLOBR_DONE_M | GLNVM_ULD_POR_DONE_M | GLNVM_ULD_POR_DONE_1_M | GLNVM_ULD_PCIER_DONE_2_M
            | GLNVM_ULD_PE_DONE_M;
    /** GLNVM_GENS SR_SIZE: 2^6 KiB = 64 KiB of Shadow RAM (ice_init_nvm: sr_words = BIT(n) * 512). */
    public static final int SR_SIZE_LOG2_KB = 6;
    /** GLGEN_RSTCTL GRSTDEL: ice_check_reset waits (GRSTDEL * 100 ms + 1 s) for a global reset. */
    public static final int GRSTDEL = 8;

    private final int pfId;
    private final int msixVectors;
    private final int firstVector;
    private final InterruptSink irq;
    private final Trace trace;
    private final RegisterFile regs;
    private final SparseRegisters other = new SparseRegisters(8192);
    private final AdminQueue adminQueue;
    private final AdminQueue mailbox;
    private final ResourceLocks locks = new ResourceLocks();
    private final NvmImage nvm = new NvmImage();
    private final PortLink port;
    private final ResourcePool resources = new ResourcePool();
    private final BasicCommands basic;
    private final FirmwareLog fwLog = new FirmwareLog();
    private final LldpAgent lldp = new LldpAgent();
    private final PtpTimer ptp;
    private final AqRefusals refusals = new AqRefusals();
    private final MacLoopback macLoopback;
    private final PortIdentifyLed identifyLed;
    private final QsfpModuleEeprom module;
    private final int pfgenCtrl;
    private final int oicrEna;
    private final int oicrCtl;
    private final int fwCtl;
    private final int mbxCtl;
    private final int sbCtl;
    private final int pfpmWus;
    private final int pwrModeCtl;
    private final int fdEna;
    private int oicr;
    private Runnable pfResetHook = () -> { };
    private Consumer<AdapterResets.Kind> adapterResetHook = k -> { };
    private Runnable pfConfigClearHook = () -> { };
    /** The adapter's resets this PF takes part in: its own until {@link AdapterResets#adopt} moves it. */
    AdapterResets adapterResets = new AdapterResets();
    private LanRegisters lan;
    private long pfResets;
    private long droppedVectors;

    /**
     * @param pfId         PF number (PF_FUNC_RID), 0..7
     * @param msixVectors  the PCI function's MSI-X table size, reported in the MSIX capability; at least 2
     * @param permanentMac the port's permanent MAC address in the low 48 bits, first octet most significant
     */
    public IceFirmware(int pfId, HostMemory memory, InterruptSink irq, Trace trace, int msixVectors,
                       long permanentMac) {
        if (pfId < 0 || pfId > PF_FUNC_RID_FUNC_NUM_M || msixVectors < 2 || msixVectors > 2048) {
            throw new IllegalArgumentException("pf " + pfId + ", " + msixVectors + " MSI-X vectors");
        }
        this.pfId = pfId;
        this.msixVectors = msixVectors;
        this.firstVector = pfId * msixVectors & CTL_MSIX_INDX_M;
        this.irq = irq;
        this.trace = trace;
        this.adminQueue = new AdminQueue("fw", memory, trace, this::raiseFwCause);
        this.mailbox = new AdminQueue("mbx", memory, trace, this::raiseMbxCause);
        this.port = new PortLink(pfId, permanentMac, adminQueue);
        this.basic = new BasicCommands();
        this.ptp = new PtpTimer(pfId, System::nanoTime);
        refusals.traceTo(trace);
        this.macLoopback = new MacLoopback(refusals, on -> {
            if (lan != null) {
                lan.macLoopback(on);
            }
        });
        this.identifyLed = new PortIdentifyLed(pfId, refusals);
        this.module = new QsfpModuleEeprom(refusals);
        this.regs = new RegisterFile(trace);

        regs.defineReadOnly("GL_MNG_FWSM", GL_MNG_FWSM, 1, 0, null, null);
        regs.defineReadOnly("PF_FUNC_RID", PF_FUNC_RID, 1, 0, "pf_number", (e, s) -> this.pfId);
        regs.defineReadOnly("GLGEN_RSTAT", GLGEN_RSTAT, 1, 0, "reset_status", (e, s) -> adapterResets.status());
        regs.defineReadOnly("GLNVM_ULD", GLNVM_ULD, 1, 0, "resets_done", (e, s) -> adapterResets.resetsDone());
        regs.define("GLGEN_RTRIG", GLGEN_RTRIG, 1, 0, "reset_under_way", (e, s) -> adapterResets.triggerBits(),
                "reset_trigger", (e, v) -> adapterResets.triggerWritten(v));
        pfgenCtrl = regs.define("PFGEN_CTRL", PFGEN_CTRL, 1, 0, null, null, "pf_software_reset",
                (e, v) -> pfgenCtrlWrite(v));
        regs.defineReadOnly("GLGEN_RSTCTL", GLGEN_RSTCTL, 1, 0, "grstdel", (e, s) -> GRSTDEL);
        pwrModeCtl = regs.define("GL_PWR_MODE_CTL", GL_PWR_MODE_CTL);
        regs.defineReadOnly("GLNVM_GENS", GLNVM_GENS, 1, 0, "sr_size",
                (e, s) -> SR_SIZE_LOG2_KB << GLNVM_GENS_SR_SIZE_S);
        regs.defineReadOnly("GLNVM_FLA", GLNVM_FLA, 1, 0, "nvm_locked", (e, s) -> GLNVM_FLA_LOCKED_M);
        regs.defineReadOnly("GLGEN_CLKSTAT_SRC", GLGEN_CLKSTAT_SRC, 1, 0, null, null);
        regs.defineReadOnly("GLPCI_CNF2", GLPCI_CNF2, 1, 0, null, null);
        fdEna = regs.define("PFQF_FD_ENA", PFQF_FD_ENA);
        regs.defineReadOnly("PRTDCB_GENS", PRTDCB_GENS, 1, 0, "dcbx_status", (e, s) -> lldp.dcbxStatus());
        ptp.defineRegisters(regs);
        regs.defineReadOnly("GLQF_FD_SIZE", GLQF_FD_SIZE, 1, 0, "fd_sizes", (e, s) -> Capabilities.FD_GUARANTEED
                | Capabilities.FD_BEST_EFFORT << GLQF_FD_SIZE_FD_BSIZE_S);
        pfpmWus = regs.define("PFPM_WUS", PFPM_WUS, 1, 0, null, null, "write_one_to_clear",
                (e, v) -> pfpmWusWrite(v));
        oicrEna = regs.define("PFINT_OICR_ENA", PFINT_OICR_ENA);
        regs.define("PFINT_OICR", PFINT_OICR, 1, 0, "read_to_clear", (e, s) -> takeOicr(), "ignored", (e, v) -> { });
        oicrCtl = regs.define("PFINT_OICR_CTL", PFINT_OICR_CTL);
        fwCtl = regs.define("PFINT_FW_CTL", PFINT_FW_CTL);
        mbxCtl = regs.define("PFINT_MBX_CTL", PFINT_MBX_CTL);
        sbCtl = regs.define("PFINT_SB_CTL", PFINT_SB_CTL);
        regs.defineReadOnly("PFINT_ALLOC", PFINT_ALLOC, 1, 0, "first_vector", (e, s) -> firstVector);
        defineQueue("PF_FW", adminQueue, PF_FW_ATQBAL, PF_FW_ATQBAH, PF_FW_ATQLEN, PF_FW_ATQH, PF_FW_ATQT,
                PF_FW_ARQBAL, PF_FW_ARQBAH, PF_FW_ARQLEN, PF_FW_ARQH, PF_FW_ARQT);
        defineQueue("PF_MBX", mailbox, PF_MBX_ATQBAL, PF_MBX_ATQBAH, PF_MBX_ATQLEN, PF_MBX_ATQH, PF_MBX_ATQT,
                PF_MBX_ARQBAL, PF_MBX_ARQBAH, PF_MBX_ARQLEN, PF_MBX_ARQH, PF_MBX_ARQT);

        adapterResets.join(this);
        // clear_pf_cfg (ice_clear_pf_cfg): the PF's resource ids, then its switch and scheduler (the hook)
        basic.onClearPfConfig(() -> {
            resources.clear();
            pfConfigClearHook.run();
        });
        basic.registerWith(adminQueue::register);
        fwLog.registerWith(adminQueue::register);
        lldp.registerWith(adminQueue::register);
        new PhySideband().registerWith(adminQueue::register);
        locks.registerWith(adminQueue::register);
        new NvmCommands(nvm).registerWith(adminQueue::register);
        new Capabilities(pfId, msixVectors, firstVector).registerWith(adminQueue::register);
        port.registerWith(adminQueue::register);
        resources.registerWith(adminQueue::register);
        macLoopback.registerWith(adminQueue::register);
        identifyLed.registerWith(adminQueue::register);
        module.registerWith(adminQueue::register);
    }

    private void defineQueue(String p, AdminQueue q, int atqBal, int atqBah, int atqLen, int atqH, int atqT,
                             int arqBal, int arqBah, int arqLen, int arqH, int arqT) {
        regs.define(p + "_ATQBAL", atqBal, 1, 0, "atq_bal", (e, s) -> q.atqBal(), "atq_bal", (e, v) -> q.atqBal(v));
        regs.define(p + "_ATQBAH", atqBah, 1, 0, "atq_bah", (e, s) -> q.atqBah(), "atq_bah", (e, v) -> q.atqBah(v));
        regs.define(p + "_ATQLEN", atqLen, 1, 0, "atq_len", (e, s) -> q.atqLen(), "atq_len", (e, v) -> q.atqLen(v));
        regs.define(p + "_ATQH", atqH, 1, 0, "atq_head", (e, s) -> q.atqHead(), "atq_head", (e, v) -> q.atqHead(v));
        regs.define(p + "_ATQT", atqT, 1, 0, "atq_tail", (e, s) -> q.atqTail(), "atq_doorbell",
                (e, v) -> q.atqTail(v));
        regs.define(p + "_ARQBAL", arqBal, 1, 0, "arq_bal", (e, s) -> q.arqBal(), "arq_bal", (e, v) -> q.arqBal(v));
        regs.define(p + "_ARQBAH", arqBah, 1, 0, "arq_bah", (e, s) -> q.arqBah(), "arq_bah", (e, v) -> q.arqBah(v));
        regs.define(p + "_ARQLEN", arqLen, 1, 0, "arq_len", (e, s) -> q.arqLen(), "arq_len", (e, v) -> q.arqLen(v));
        regs.define(p + "_ARQH", arqH, 1, 0, "arq_head", (e, s) -> q.arqHead(), "arq_head", (e, v) -> q.arqHead(v));
        regs.define(p + "_ARQT", arqT, 1, 0, "arq_tail", (e, s) -> q.arqTail(), "arq_post", (e, v) -> q.arqTail(v));
    }

    // ---- Mmio ----

    /** True for an offset this block's register table defines (the PCI function's BAR0 dispatch may ask). */
    public boolean owns(long offset) {
        return regs.lookup(offset) >= 0 || lan != null && lan.owns(offset);
    }

    @Override
    public int read32(long offset) {
        if (regs.lookup(offset) >= 0) {
            return regs.read32(offset);
        }
        if (lan != null && lan.owns(offset)) {
            return lan.read32(offset);
        }
        int v = other.read(offset);
        traceStorage(TraceKind.REG_READ, offset, v);
        return v;
    }

    @Override
    public void write32(long offset, int value) {
        if (regs.lookup(offset) >= 0) {
            regs.write32(offset, value);
            return;
        }
        if (lan != null && lan.owns(offset)) {
            lan.write32(offset, value);
            return;
        }
        traceStorage(TraceKind.REG_WRITE, offset, value);
        if (!other.write(offset, value) && other.dropped() == 1) {
            LOG.warn("ice register write of 0x{} to 0x{} dropped (storage full or an unaligned offset); "
                    + "later drops only counted", Integer.toHexString(value), Long.toHexString(offset));
        }
    }

    /**
     * Traces an access to a register the model keeps as plain storage, by its ice_hw_autogen.h name when
     * {@link IceRegisterMap} knows the offset ({@code "reg":"GLPRT_GORCL","idx":0}), else as {@code ice_storage}.
     */
    private void traceStorage(TraceKind kind, long offset, int value) {
        TraceEvent t = trace.start(kind);
        if (t == null) {
            return;
        }
        int e = IceRegisterMap.find(offset);
        if (e < 0) {
            t.text("reg", "ice_storage");
        } else {
            t.text("reg", IceRegisterMap.name(e)).num("idx", IceRegisterMap.index(e, offset));
            if (IceRegisterMap.twoDimensional(e)) {
                t.num("idx2", IceRegisterMap.index2(e, offset));
            }
        }
        t.hex("off", offset).hex("val", value & 0xffff_ffffL).text("handler", "storage").emit();
    }

    // ---- side effects ----

    private void pfgenCtrlWrite(int v) {
        // PFSWR self-clears: the reset is done by the time the driver polls (ice_pf_reset, 1 ms steps)
        regs.store(pfgenCtrl, 0, v & ~PFGEN_CTRL_PFSWR_M);
        if ((v & PFGEN_CTRL_PFSWR_M) != 0) {
            pfReset();
        }
    }

    /**
     * A PF software reset (PFGEN_CTRL.PFSWR, or the PCI function's FLR path): both control queues disabled with
     * every register 0, the PF's locks released, its resource ids freed, link events off, interrupt causes
     * disabled; then the PF-reset hook (the RDMA block's reset). The NVM, the port's link and the "package
     * downloaded" state of the global config lock are device state and stay.
     */
    public void pfReset() {
        pfResets++;
        adminQueue.reset();
        mailbox.reset();
        locks.releaseAll();
        resources.clear();
        port.pfReset();
        basic.pfReset();
        fwLog.pfReset();
        ptp.pfReset();
        regs.store(oicrEna, 0, 0);
        regs.store(oicrCtl, 0, 0);
        regs.store(fwCtl, 0, 0);
        regs.store(mbxCtl, 0, 0);
        regs.store(sbCtl, 0, 0);
        regs.store(fdEna, 0, 0);
        oicr = 0;
        if (lan != null) {
            lan.reset();
        }
        TraceEvent t = trace.start(TraceKind.AQ);
        if (t != null) {
            t.text("q", "pf").text("dir", "reset").num("pf", pfId).num("count", pfResets).emit();
        }
        pfResetHook.run();
    }

    /** Power-on state: a PF reset plus the device-wide state (global config lock, register storage). */
    public void reset() {
        clearFunctionRegisters();
        locks.powerOn();
        port.powerOn();
        macLoopback.macReset();
        identifyLed.powerOn();
        pfReset();
    }

    /**
     * A function-level reset (PCIe FLR): the PF's state back to power-on, as {@link #reset()}, but what belongs to
     * the whole adapter stays: the global config lock's "done" after a package download (ice_ddp.c: a reloaded
     * driver's ice_acquire_global_cfg_lock then answers -EALREADY and ice takes the package as loaded), like the
     * package itself, which the function's switch block keeps.
     */
    public void functionLevelReset() {
        clearFunctionRegisters();
        locks.releaseAll();
        port.powerOn();
        pfReset();
    }

    private void clearFunctionRegisters() {
        regs.store(pfgenCtrl, 0, 0);
        regs.store(pwrModeCtl, 0, 0);
        regs.store(pfpmWus, 0, 0);
        other.clear();
    }

    /**
     * This PF's part of a core, global or EMP reset once it is done: everything a PF reset clears (both control
     * queues, interrupt causes, the PF's locks and resource ids, the LAN queues, the switch, scheduler and RDMA
     * block through the hooks), and what only an adapter reset clears: the downloaded DDP package and the global
     * config lock's "done" (ice_rebuild loads the package again after CORER and GLOBR), the registers kept as
     * storage, and PFGEN_CTRL. A global or EMP reset also takes the MAC and PHY back to their defaults; an EMP
     * reset reloads the firmware, which forgets the driver version (as every reset here does). A GRST cause ice has
     * not read yet stays pending: its interrupt handler reads it after the reset.
     */
    void adapterReset(AdapterResets.Kind kind) {
        boolean grstUnread = (oicr & PFINT_OICR_GRST_M) != 0;
        clearFunctionRegisters();
        locks.powerOn();
        if (kind == AdapterResets.Kind.CORER) {
            port.coreReset();
        } else {
            port.powerOn();
            macLoopback.macReset();
        }
        pfReset();
        adapterResetHook.accept(kind);
        if (grstUnread) {
            oicr |= PFINT_OICR_GRST_M;
        }
        TraceEvent t = trace.start(TraceKind.FUNCTION_RESET);
        if (t != null) {
            t.text("block", "ice").text("cause", kind.name().toLowerCase(java.util.Locale.ROOT)).num("pf", pfId)
                    .emit();
        }
    }

    /** The core, global and EMP resets this PF takes part in. */
    public AdapterResets adapterResets() {
        return adapterResets;
    }

    /** Connects an adapter reset to the rest of the function (the DDP package and profile tables it clears). */
    public void onAdapterReset(Consumer<AdapterResets.Kind> hook) {
        this.adapterResetHook = hook == null ? k -> { } : hook;
    }

    /** Connects clear_pf_cfg to the switch and scheduler commands registered from outside. */
    public void onClearPfConfig(Runnable hook) {
        this.pfConfigClearHook = hook == null ? () -> { } : hook;
    }

    /**
     * Puts the LAN queue registers ({@link LanRegisters}, the model.lan queues) behind this block: their offsets are
     * forwarded, a PF reset resets them, and their MDD events raise PFINT_OICR MAL_DETECT.
     */
    public void attachLan(LanRegisters queues) {
        this.lan = queues;
        if (queues != null) {
            queues.onMdd(() -> raiseOicr(PFINT_OICR_MAL_DETECT_M));
            queues.macLoopback(macLoopback.on());
        }
    }

    /** Connects the PF reset to the rest of the function (the RDMA block's reset). */
    public void onPfReset(Runnable hook) {
        this.pfResetHook = hook == null ? () -> { } : hook;
    }

    private void pfpmWusWrite(int v) {
        regs.store(pfpmWus, 0, regs.stored(pfpmWus, 0) & ~v);
    }

    private int takeOicr() {
        int v = oicr;
        oicr = 0;
        return v;
    }

    /** Sets PFINT_OICR cause bits and raises the OICR vector when an enabled cause is pending. */
    public void raiseOicr(int causes) {
        oicr |= causes;
        if ((oicr & regs.stored(oicrEna, 0)) != 0) {
            raise(regs.stored(oicrCtl, 0), "oicr");
        }
    }

    /**
     * A GLINT_DYN_CTL SWINT_TRIG write on {@code vector}: when it is the OICR vector (PFINT_OICR_CTL's MSIX_INDX,
     * cause enabled) the software cause is latched in PFINT_OICR SWINT before the vector fires, so ice_misc_intr
     * counts it (ice_ethtool.c ice_intr_test compares that count).
     */
    public void softwareInterrupt(int vector) {
        int ctl = regs.stored(oicrCtl, 0);
        if ((ctl & CTL_CAUSE_ENA_M) != 0 && (ctl & CTL_MSIX_INDX_M) == vector) {
            oicr |= PFINT_OICR_SWINT_M;
        }
    }

    private void raiseFwCause() {
        raise(regs.stored(fwCtl, 0), "fw");
    }

    private void raiseMbxCause() {
        raise(regs.stored(mbxCtl, 0), "mbx");
    }

    /** Raises the MSI-X index of a PFINT_*_CTL value when its CAUSE_ENA is set (ice_ena_ctrlq_interrupts). */
    private void raise(int ctl, String cause) {
        if ((ctl & CTL_CAUSE_ENA_M) == 0) {
            return;
        }
        int vector = ctl & CTL_MSIX_INDX_M;
        TraceEvent t = trace.start(TraceKind.INTERRUPT);
        if (vector >= msixVectors) {
            droppedVectors++;
            if (t != null) {
                t.text("cause", cause).num("vector", vector).text("dropped", "beyond_msix_table").emit();
            }
            return;
        }
        if (t != null) {
            t.text("cause", cause).num("vector", vector).emit();
        }
        irq.raise(vector);
    }

    // ---- the firmware's API toward the rest of the model ----

    /** Installs the admin queue handler of {@code opcode} (the scheduler/VSI/switch/DDP/queue commands). */
    public void register(int opcode, AqCommandHandler handler) {
        adminQueue.register(opcode, handler);
    }

    /** Posts an ARQ event ({@link AdminQueue#postEvent}). */
    public AdminQueue.EventPost postEvent(int opcode, BytesStore<?, ?> params, BytesStore<?, ?> buffer,
                                          long bufferOffset, int length) {
        return adminQueue.postEvent(opcode, params, buffer, bufferOffset, length);
    }

    /** Sets the port's carrier; a change posts a link status event when ice enabled them. */
    public void setLink(boolean up) {
        port.setLink(up);
    }

    public boolean linkUp() {
        return port.linkUp();
    }

    public AdminQueue adminQueue() {
        return adminQueue;
    }

    public AdminQueue mailbox() {
        return mailbox;
    }

    public ResourceLocks locks() {
        return locks;
    }

    public NvmImage nvm() {
        return nvm;
    }

    public PortLink port() {
        return port;
    }

    public ResourcePool resources() {
        return resources;
    }

    /** The version string ice sent with driver_ver (0x0002), or null before it did. */
    public String driverVersion() {
        return basic.driverVersion();
    }

    public int pfId() {
        return pfId;
    }

    public int msixVectors() {
        return msixVectors;
    }

    public long pfResets() {
        return pfResets;
    }

    public long droppedVectors() {
        return droppedVectors;
    }

    public RegisterFile registers() {
        return regs;
    }
}
