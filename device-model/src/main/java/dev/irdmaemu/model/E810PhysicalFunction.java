package dev.irdmaemu.model;

import dev.irdmaemu.model.timing.LatencyTable;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.ice.AqCommandHandler;
import dev.irdmaemu.model.ice.IceFirmware;
import dev.irdmaemu.model.ice.IceSwitchAndScheduler;
import dev.irdmaemu.model.lan.AddTxqsContexts;
import dev.irdmaemu.model.lan.LanQueues;
import dev.irdmaemu.model.lan.VsiRssSteering;
import dev.irdmaemu.model.pci.E810PciFunction;
import dev.irdmaemu.model.pci.FunctionBlock;
import dev.irdmaemu.model.sw.AdapterSwitch;
import dev.irdmaemu.model.trace.Trace;

/**
 * One E810 physical function as a guest's ice.ko and irdma.ko see it: the PCI Express function ({@link
 * E810PciFunction}: configuration space, BAR0, MSI-X in BAR3, FLR) over the two blocks behind BAR0, the firmware
 * and registers ice drives ({@link IceFirmware} with the switch, scheduler, VSI, DDP and queue commands of {@link
 * IceSwitchAndScheduler}) and the RDMA block irdma drives ({@link E810RdmaFunction}). This class only wires them,
 * the way the silicon ties them together:
 * <ul>
 *   <li>one GLINT_DYN_CTL array: the ice block raises its causes (admin queue events, OICR) through the RDMA
 *       block's interrupt controller, so both drivers' vectors are gated alike;</li>
 *   <li>a PF software reset (PFGEN_CTRL.PFSWR, which ice writes at probe and irdma asks for through ice after a
 *       CQP timeout) resets the PF's switch and scheduler state and the RDMA block (gap sheet T4; ice_common.c
 *       ice_reset / ice_check_reset wait for GLNVM_ULD with PE_DONE afterwards);</li>
 *   <li>a finished DDP download marks the global configuration lock "done", which the next probe of the same
 *       function (a reload of ice) takes as "package already loaded" (ice_ddp.c ice_acquire_global_cfg_lock);</li>
 *   <li>a core, global or EMP reset ({@link dev.irdmaemu.model.ice.AdapterResets}, GLGEN_RTRIG) does what a PF
 *       reset does and also forgets the downloaded DDP package (ice_rebuild downloads it again); clear_pf_cfg
 *       clears the PF's switch and scheduler, the package kept;</li>
 *   <li>the transport's device reset returns everything to power-on ({@link E810PciFunction#reset()}); an FLR does
 *       too, except the adapter-wide DDP package and global config lock, which stay.</li>
 * </ul>
 * Like the rest of the model it has no threads: every call comes on the scheduler's owner thread.
 */
public final class E810PhysicalFunction {
    private final E810RdmaFunction rdma;
    private final IceFirmware ice;
    private final IceSwitchAndScheduler switchAndScheduler;
    private final LanQueues lan;
    private final E810PciFunction pci;

    /**
     * PF {@code pfId} with permanent MAC {@code mac} (low 48 bits, first octet most significant), doing DMA in
     * {@code memory} and raising MSI-X messages on {@code msix} (the transport: a vfio-user client's eventfds, or a
     * test). The Device Serial Number derives from the MAC, so two NICs with different MACs never share one (ice
     * keys its adapter structure by it: ice_adapter.c).
     */
    public E810PhysicalFunction(SimScheduler scheduler, HostMemory memory, Trace trace, LatencyTable latency,
                                int pfId, long mac, InterruptSink msix) {
        this(scheduler, memory, trace, latency, pfId, mac, E810PciFunction.serialNumberFromMac(mac), msix);
    }

    /**
     * As above, with the Device Serial Number {@code serialNumber}: the functions of one adapter share it, as the
     * PFs of a multi-port card do (ice_adapter.c keys the adapter it shares between them by it).
     */
    public E810PhysicalFunction(SimScheduler scheduler, HostMemory memory, Trace trace, LatencyTable latency,
                                int pfId, long mac, long serialNumber, InterruptSink msix) {
        this.rdma = new E810RdmaFunction(scheduler, memory, InterruptSink.NONE, trace, latency, pfId);
        this.ice = new IceFirmware(pfId, memory, rdma.vectorCauses(), trace, E810PciFunction.MSIX_VECTORS, mac);
        this.switchAndScheduler = new IceSwitchAndScheduler(pfId, pfId);
        switchAndScheduler.refusals().traceTo(trace);
        switchAndScheduler.install(this::register);
        ice.onPfReset(this::pfSoftwareReset);
        rdma.onSoftwareInterrupt(ice::softwareInterrupt);
        ice.onAdapterReset(kind -> switchAndScheduler.powerOn());
        ice.onClearPfConfig(switchAndScheduler::clearPfConfig);
        ice.resources().onFree(switchAndScheduler.switchRules()::resourceFreed);
        ice.adapterResets().useScheduler(scheduler);
        ice.locks().clock(scheduler::now);
        // ice's LAN rings: registers behind the ice block, Tx contexts from add_txqs, frames to and from the port
        this.lan = new LanQueues(pfId, memory, trace);
        lan.interrupts(rdma.throttledVectorCauses());
        lan.msixVectors(E810PciFunction.MSIX_VECTORS);
        lan.txContexts(new AddTxqsContexts(switchAndScheduler.txQueues(), lan.tx()));
        lan.rxSteering(new VsiRssSteering(switchAndScheduler.vsis(), switchAndScheduler.profiles()));
        lan.wire((store, offset, length) -> rdma.port().transmitLan(store, offset, length));
        rdma.port().setLanSink(lan);
        ice.attachLan(lan);
        this.pci = new E810PciFunction(rdma, new IceBlock(), serialNumber, msix);
    }

    /**
     * Puts this function on its adapter's embedded switch: what its LAN queues and RDMA block transmit enters the
     * switch (each source told apart), and what the switch forwards to it enters its port's receive side. The port
     * is rebuilt by a function reset, so the switch reaches it through this function each time. Call once, before
     * traffic.
     */
    public AdapterSwitch.Port attachTo(AdapterSwitch fabric) {
        AdapterSwitch.Port p = fabric.attach(switchAndScheduler.vsis(), switchAndScheduler.switchRules(),
                (store, offset, length) -> rdma.port().receive(store, offset, length));
        rdma.port().setTransmitter(p.fromRdma());
        rdma.port().setLanTransmitter(p.fromLan());
        return p;
    }

    /**
     * Makes this function one of the adapter {@code first} belongs to for core, global and EMP resets (the PFs of
     * one E810 share them). Call before the guest drives either.
     */
    public void sameAdapterAs(E810PhysicalFunction first) {
        first.ice.adapterResets().adopt(ice);
    }

    /** Installs {@code handler}; the package download also completes the global configuration lock. */
    private void register(int opcode, AqCommandHandler handler) {
        if (opcode == AqOpcode.DOWNLOAD_PKG) {
            ice.register(opcode, (desc, buf) -> {
                int retval = handler.handle(desc, buf);
                if (retval == AqError.OK && switchAndScheduler.ddp().packageDownloaded()) {
                    ice.locks().globalConfigDone();
                }
                return retval;
            });
        } else {
            ice.register(opcode, handler);
        }
    }

    private void pfSoftwareReset() {
        switchAndScheduler.resetPf();
        rdma.reset();
    }

    public E810PciFunction pci() {
        return pci;
    }

    public E810RdmaFunction rdma() {
        return rdma;
    }

    public IceFirmware ice() {
        return ice;
    }

    public IceSwitchAndScheduler switchAndScheduler() {
        return switchAndScheduler;
    }

    /**
     * What the function holds for its drivers now ({@link E810Holdings}): the check that an unload or a reset
     * left nothing behind. On the model's thread.
     */
    public E810Holdings holdings() {
        return E810Holdings.of(this);
    }

    /**
     * Fault injection for debugging and tests, off unless called (the guest cannot arm it): the RDMA block's CQP
     * withholds the CCQ completion of the next {@code op} (any op when null), so that irdma times out, asks ice for
     * a PF reset and is probed again (CqpEngine#withholdNextCompletion). The PF software reset that follows
     * rebuilds the RDMA block, so whatever irdma left on it (irdma skips its destroy ops once rf->reset is set)
     * goes with it. On the model's thread.
     */
    public void withholdNextCqpCompletion(CqpOpcode op) {
        rdma.cqp().withholdNextCompletion(op);
    }

    /** ice's LAN Rx/Tx queues. */
    public LanQueues lan() {
        return lan;
    }

    /** The ice side of BAR0 as the PCI function sees it: every offset the RDMA block does not define. */
    private final class IceBlock implements FunctionBlock {
        @Override
        public int read32(long offset) {
            return ice.read32(offset);
        }

        @Override
        public void write32(long offset, int value) {
            ice.write32(offset, value);
        }

        /**
         * The PCI function's reset (FLR, device reset) resets the RDMA block itself right after this one, so the
         * firmware's power-on here runs without its PF-reset hook: the block is reset once, not twice.
         */
        @Override
        public void reset() {
            ice.onPfReset(null);
            try {
                ice.reset();
            } finally {
                ice.onPfReset(E810PhysicalFunction.this::pfSoftwareReset);
            }
            switchAndScheduler.powerOn();
        }

        /** As {@link #reset()}, but the DDP package and the global config lock's state stay (adapter-wide). */
        @Override
        public void functionLevelReset() {
            ice.onPfReset(null);
            try {
                ice.functionLevelReset();
            } finally {
                ice.onPfReset(E810PhysicalFunction.this::pfSoftwareReset);
            }
            switchAndScheduler.resetPf();
        }
    }
}
