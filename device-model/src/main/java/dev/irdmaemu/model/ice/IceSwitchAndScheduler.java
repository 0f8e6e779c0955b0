package dev.irdmaemu.model.ice;

import java.util.function.BiConsumer;

/**
 * The E810 firmware's switch, Tx scheduler, VSI, DDP package, Tx queue and RDMA qset commands for one PF, as one
 * unit the AQ engine installs: {@link SwitchRules} (ice_switch.c, ice_vlan_mode.c), {@link VsiTable} (VSIs and RSS,
 * ice_lib.c), {@link TxScheduler} (ice_sched.c) with the reports of {@link TxTopology} and {@link PortEtsQuery},
 * {@link TxQueues}
 * (ice_common.c Tx queues and RDMA qsets, ice_idc.c) {@link DdpPackageLoader} (ice_ddp.c) and {@link PackageUpdates}
 * with the {@link FlowProfiles} they write (ice_flex_pipe.c). {@link #resetPf()} is what a PF software reset (PFGEN_CTRL.PFSWR) does
 * to them.
 */
public final class IceSwitchAndScheduler {
    private final VsiTable vsis;
    private final SwitchRules switchRules;
    private final TxScheduler scheduler;
    private final TxQueues txQueues;
    private final DdpPackageLoader ddp;
    private final FlowProfiles profiles;
    private final PackageUpdates packageUpdates;
    private final AqRefusals refusals = new AqRefusals();

    /** PF {@code pfId} on logical port {@code lport}; its switch id is the PF number. */
    public IceSwitchAndScheduler(int pfId, int lport) {
        this.vsis = new VsiTable();
        this.switchRules = new SwitchRules(pfId, lport, pfId, vsis);
        this.scheduler = new TxScheduler(lport);
        this.txQueues = new TxQueues(scheduler);
        this.profiles = new FlowProfiles();
        this.ddp = new DdpPackageLoader(profiles);
        this.packageUpdates = new PackageUpdates(profiles);
        vsis.reportRefusalsTo(refusals);
        switchRules.reportRefusalsTo(refusals);
        scheduler.reportRefusalsTo(refusals);
        txQueues.reportRefusalsTo(refusals);
        ddp.reportRefusalsTo(refusals);
        packageUpdates.reportRefusalsTo(refusals);
    }

    /** Where these commands report why they refused one: the function hands it its trace. */
    public AqRefusals refusals() {
        return refusals;
    }

    public void install(BiConsumer<Integer, AqCommandHandler> register) {
        switchRules.install(register);
        vsis.install(register);
        scheduler.install(register);
        new TxTopology().registerWith(register);
        new PortEtsQuery(scheduler).registerWith(register);
        txQueues.install(register);
        ddp.install(register);
        packageUpdates.install(register);
    }

    /**
     * PF reset: VSIs, rules, the scheduler tree (back to its default), queues and qsets; the DDP package and the
     * profile tables stay (device state, as the global config lock's "package loaded").
     */
    public void resetPf() {
        vsis.reset();
        switchRules.reset();
        txQueues.reset();
        scheduler.reset();
        ddp.reset();
    }

    /**
     * clear_pf_cfg: the PF's VSIs, switch rules, Tx queues and qsets, and the scheduler tree back to its default;
     * unlike a PF reset, a package download under way goes on (ice_rebuild loads the package first).
     */
    public void clearPfConfig() {
        vsis.reset();
        switchRules.reset();
        txQueues.reset();
        scheduler.reset();
    }

    /** Power-on (and the adapter's core, global and EMP resets): a PF reset, and the NVM's DDP package again. */
    public void powerOn() {
        resetPf();
        ddp.powerOn();
    }

    public VsiTable vsis() {
        return vsis;
    }

    public SwitchRules switchRules() {
        return switchRules;
    }

    public TxScheduler scheduler() {
        return scheduler;
    }

    public TxQueues txQueues() {
        return txQueues;
    }

    public DdpPackageLoader ddp() {
        return ddp;
    }

    /** The flexible pipeline's profile tables (the package's, as update_pkg changed them); device state. */
    public FlowProfiles profiles() {
        return profiles;
    }

    public PackageUpdates packageUpdates() {
        return packageUpdates;
    }
}
