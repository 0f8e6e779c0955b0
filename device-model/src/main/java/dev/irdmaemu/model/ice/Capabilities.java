package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.aq.AqLayout.ListCaps.*;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;

/**
 * Device (0x000B) and function (0x000A) capabilities, struct libie_aqc_list_caps with 32-byte
 * libie_aqc_list_caps_elem entries, as ice_common.c ice_parse_common_caps / ice_parse_dev_caps /
 * ice_parse_func_caps read them. The minimal set of the fact sheet (e810-probe-facts §1.5): VALID_FUNCTIONS (one
 * bit, this PF: ice computes its VSI share as 768 / popcount, and more than 4 functions turn RDMA off), VSI,
 * RXQS / TXQS / MSIX (number and first id), MAX_MTU 9728 and RDMA = 1 (ice_init_dev sets ICE_FLAG_RDMA_ENA from
 * it), FD (below) and TX_SCHED_TOPO_COMP_MODE = 1 (the NVM can report its Tx topology: ice_ddp.c ice_cfg_tx_topo
 * then asks get_tx_topo, {@link TxTopology}, instead of logging that it cannot apply one) and DCB = 1 with TC 0
 * active of 8 ({@link LldpAgent}: ice prints "DCB is enabled in the hardware, max number of TCs supported on this
 * port are 8" and runs DCB in software, as on a card whose FW LLDP agent is off) and 1588: the device's timer 0,
 * owned by PF 0, whose function cap makes it the clock's owner ({@link PtpTimer}, {@link PhySideband}; ice's "PTP
 * init successful"); the other functions of a multi-function adapter list no 1588 function cap. SR-IOV, LAG, NVM_MGMT
 * and sensor caps are left out on purpose: each would pull in a feature the model does not serve (fact sheet §1.5).
 *
 * <p>FD is listed although the model serves no flow director: every E810 lists it, and ice depends on it beyond
 * the feature. ice_main.c ice_set_pf_caps sets {@code pf->ctrl_vsi_idx = ICE_NO_VSI} only when the function has FD
 * filters; without them the index stays 0, the PF VSI's: ice_deinit_fdir (rmmod ice, devlink reload) takes the PF
 * VSI for the FD control VSI and releases it, and ice_lib.c ice_vsi_cfg of a control VSI trips its
 * WARN_ON(pf->ctrl_vsi_idx != ICE_NO_VSI), as the second probe of ice on the model did (E810LifecycleBootTest).
 * With the cap listed, ice_init_fdir still fails on the model (it cannot
 * program FD profiles) and unwinds with the index back at ICE_NO_VSI. The table sizes come from GLQF_FD_SIZE
 * ({@link #FD_GUARANTEED}, {@link #FD_BEST_EFFORT}); the device cap's number is their sum (ice_parse_fdir_dev_caps).
 *
 * <p>RSS (0x0040: rss_table_size 2048, the PF's LUT; rss_table_entry_width 8, one byte per LUT entry as
 * set_rss_lut carries them) is reported unless the system property {@value #RSS_PROPERTY} is {@code false} (an
 * opt-out for comparisons with the single-queue bring-up): with it ice sets ICE_FLAG_RSS_ENA (ice_main.c
 * ice_set_pf_caps), asks for one Rx queue per CPU instead of one, programs the key and LUT the Rx engine hashes
 * through, and sends the flow-profile commands of ice_add_rss_cfg (update_pkg 0x0C42, {@link PackageUpdates}),
 * whose RSS profiles then choose what the Rx engine hashes per packet type ({@link FlowProfiles}).
 *
 * <p>The count field: ice sends a 4 KiB buffer and reads back {@code count}; a buffer too small for every element
 * gets ENOMEM with {@code count} = the elements needed and no buffer (the size ice would retry with).
 */
public final class Capabilities {
    public static final int MAX_MTU = 9728;
    public static final int VSIS = 768;
    public static final int QUEUES_PER_PF = 64;
    public static final int DEVICE_QUEUES = 2048;
    /** Flow director filters: guaranteed (FD_GSIZE) and best effort (FD_BSIZE); 16 K in all. */
    public static final int FD_GUARANTEED = 512;
    public static final int FD_BEST_EFFORT = 16384 - FD_GUARANTEED;
    /** DCB: the active TC bitmap (TC 0) and the TCs the port supports. */
    public static final int DCB_ACTIVE_TCS = 1;
    public static final int DCB_MAX_TCS = 8;
    /** 1588 function cap of the timer's owner: ICE_TS_FUNC_ENA, ICE_TS_SRC_TMR_OWND, ICE_TS_TMR_ENA; timer 0. */
    public static final int PTP_FUNC_OWNER = 0x7;
    /** 1588 device cap: ICE_TS_DEV_ENA, ICE_TS_TMR0_ENA, ICE_TS_TMR0_OWND with PF 0 the owner; no low-latency bits. */
    public static final int PTP_DEV_TIMER0 = 1 << 24 | 1 << 25 | 1 << 3;

    private final int pfId;
    private final int msixVectors;
    private final int firstVector;
    private final boolean reportRss;

    /** {@code -Dirdmaemu.ice.rss=false} turns the RSS capability off (see the class comment). */
    public static final String RSS_PROPERTY = "irdmaemu.ice.rss";
    /** ICE_LUT_PF_SIZE: the PF's LUT. */
    public static final int RSS_TABLE_SIZE = 2048;
    public static final int RSS_ENTRY_WIDTH = 8;

    public Capabilities(int pfId, int msixVectors, int firstVector) {
        this(pfId, msixVectors, firstVector, reportRssByDefault());
    }

    public Capabilities(int pfId, int msixVectors, int firstVector, boolean reportRss) {
        this.pfId = pfId;
        this.msixVectors = msixVectors;
        this.firstVector = firstVector;
        this.reportRss = reportRss;
    }

    /** True unless {@value #RSS_PROPERTY} is {@code false}. */
    public static boolean reportRssByDefault() {
        return !"false".equalsIgnoreCase(System.getProperty(RSS_PROPERTY, "true").trim());
    }

    public void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.LIST_DEV_CAPS, (d, b) -> list(d, b, true));
        r.accept(AqOpcode.LIST_FUNC_CAPS, (d, b) -> list(d, b, false));
    }

    private int list(AqDescriptor d, Bytes<?> b, boolean device) {
        if (b == null) {
            return AqError.EINVAL;
        }
        int n = (device ? 9 : reportRss ? 11 : 10) + (device || pfId == 0 ? 1 : 0);
        if (b.readRemaining() < (long) n * ELEM_SIZE) {
            d.paramU32(COUNT, n).datalen(0);
            return AqError.ENOMEM;
        }
        int at = 0;
        at = elem(b, at, CAP_VALID_FUNCTIONS, 1L << pfId, 0, 0);
        at = elem(b, at, CAP_VSI, VSIS, 0, 0);
        if (device) {
            at = elem(b, at, CAP_RXQS, DEVICE_QUEUES, 0, 0);
            at = elem(b, at, CAP_TXQS, DEVICE_QUEUES, 0, 0);
        } else {
            at = elem(b, at, CAP_RXQS, QUEUES_PER_PF, 0, (long) pfId * QUEUES_PER_PF);
            at = elem(b, at, CAP_TXQS, QUEUES_PER_PF, 0, (long) pfId * QUEUES_PER_PF);
            at = elem(b, at, CAP_MSIX, msixVectors, 0, firstVector);
            if (reportRss) {
                at = elem(b, at, CAP_RSS, RSS_TABLE_SIZE, RSS_ENTRY_WIDTH, 0);
            }
        }
        at = elem(b, at, CAP_MAX_MTU, MAX_MTU, 0, 0);
        at = elem(b, at, CAP_RDMA, 1, 0, 0);
        at = elem(b, at, CAP_FD, device ? FD_GUARANTEED + FD_BEST_EFFORT : 0, 0, 0);
        // ice_cfg_tx_topo: with number 1 ice asks get_tx_topo (TxTopology) and keeps the default 9 layers silently
        at = elem(b, at, CAP_TX_SCHED_TOPO_COMP_MODE, 1, 0, 0);
        // ice_parse_common_caps: dcb, active_tc_bitmap (TC 0) and maxtc (the "8" of ice's DCB line)
        at = elem(b, at, CAP_DCB, 1, DCB_ACTIVE_TCS, DCB_MAX_TCS);
        // 1588 (ice_parse_1588_dev_caps / _func_caps): timer 0, owned and run by PF 0 (PtpTimer, PhySideband)
        if (device) {
            at = elem(b, at, CAP_1588, PTP_DEV_TIMER0, 1, 1);
        } else if (pfId == 0) {
            at = elem(b, at, CAP_1588, PTP_FUNC_OWNER, 0, 0);
        }
        d.paramU32(COUNT, at / ELEM_SIZE).datalen(at);
        return AqError.OK;
    }

    private static int elem(Bytes<?> b, int at, int cap, long number, long logicalId, long physId) {
        b.zeroOut(at, at + ELEM_SIZE);
        b.writeShort(at + ELEM_CAP, (short) cap);
        b.writeByte(at + ELEM_MAJOR_VER, (byte) 1);
        b.writeByte(at + ELEM_MINOR_VER, (byte) 0);
        b.writeInt(at + ELEM_NUMBER, (int) number);
        b.writeInt(at + ELEM_LOGICAL_ID, (int) logicalId);
        b.writeInt(at + ELEM_PHYS_ID, (int) physId);
        return at + ELEM_SIZE;
    }
}
