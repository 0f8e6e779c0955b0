package dev.irdmaemu.cm;

import dev.irdmaemu.driver.verbs.MpaOutcome;
import dev.irdmaemu.driver.verbs.QpEvent;
import dev.irdmaemu.driver.verbs.TcpOffloadContext;
import dev.irdmaemu.fw.sim.SimScheduler;
import java.util.List;
import java.util.OptionalLong;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Everything the CM needs from the device, in the terms a driver has: address handles and the ILQ to send CM
 * segments through them, the quad hash
 * and the accelerated-port table to steer what arrives, neighbour resolution, and the QP hooks that take a
 * connection over. No threads: everything happens on {@link #scheduler()}'s thread. The device delivers received
 * frames and QP events to the {@link Receiver} the CM attaches.
 */
public interface CmHardwarePort {
    /** Where the device delivers what is meant for the CM. */
    interface Receiver {
        /** A frame the quad hash steered to the ILQ (irdma_receive_ilq). The bytes are valid only during the call. */
        void receive(BytesStore<?, ?> frame, long offset, int length);

        /** An asynchronous event of an offloaded QP. */
        void qpEvent(int qpn, QpEvent event);
    }

    void attach(Receiver receiver);

    SimScheduler scheduler();

    /** This port's MAC, as a 48-bit value. */
    long macAddress();

    /** The VSI MTU; the CM's MSS is derived from it (cm.c irdma_make_cm_node). */
    int mtu();

    /** Device limits {@code hw_attrs.max_hw_ird} / {@code max_hw_ord}. */
    int maxIrd();

    int maxOrd();

    /** Addresses on the netdev and its VLAN sub-interfaces. */
    List<LocalAddress> localAddresses();

    /**
     * The 802.1p priority the VLAN sub-interface {@code vlanId} puts in the tag of a frame of skb priority {@code
     * priority} (0..7): its egress QoS map (net/8021q vlan_dev_get_egress_qos_mask, {@code ip link ... type vlan
     * egress-qos-map}), which irdma applies to a connection's user priority (cm.c irdma_iw_get_vlan_prio). The
     * priority itself when the sub-interface maps nothing, as Linux's default map does.
     */
    default int egressPriority(int vlanId, int priority) {
        return priority;
    }

    /** The MAC of the next hop for {@code remote} (ARP/ND); empty when it does not resolve. */
    OptionalLong neighbourMac(boolean ipv4, long remoteHi, long remoteLo);

    /** utils.c irdma_ilq_ah_cb: the device's answer to an address handle created without waiting. */
    @FunctionalInterface
    interface AhCompletion {
        /** {@code valid}: the device took the AH (ah_info.ah_valid); a frame through an invalid AH is not sent. */
        void ahCreated(int ah, boolean valid);
    }

    /**
     * cm.c irdma_cm_create_ah(cm_node, true), as irdma_connect calls it (uda.c irdma_sc_access_ah,
     * CREATE_ADDR_HANDLE, waited for): an address handle for a CM node's frames, valid on return. Answers its
     * index, or the refusal (irdma_connect then fails the node).
     */
    AhResult createAh(AhInfo info);

    /**
     * cm.c irdma_cm_create_ah(cm_node, false), as irdma_handle_syn_pkt calls it: CREATE_ADDR_HANDLE posted and not
     * waited for. Answers the index (not valid yet), or the refusal when none could be taken; {@code done} runs
     * later, from the op's completion, never inside this call, not at all after a refusal, and not at all once
     * {@link #destroyAh} freed the index.
     */
    AhResult createAh(AhInfo info, AhCompletion done);

    /** cm.c irdma_cm_free_ah (DESTROY_ADDR_HANDLE, not waited for). */
    void destroyAh(int ah);

    /**
     * Sends one CM segment on the ILQ through address handle {@code ah} (puda.c irdma_puda_send, gen2): the bytes
     * begin at the TCP header ({@code tcpHeaderLength} bytes with options) and hold the payload after it; the
     * device adds Ethernet, VLAN and IP and the checksums. The port copies them before returning.
     */
    void transmit(int ah, BytesStore<?, ?> segment, long offset, int length, int tcpHeaderLength);

    /** irdma_manage_qhash ADD; false when the device refuses. */
    boolean addQhash(Qhash entry);

    /** hw.c irdma_send_syn_cqp_callback: the answer to a qhash add posted without waiting. */
    @FunctionalInterface
    interface QhashCompletion {
        /** {@code added}: the device took the entry (the kernel's callback does not look, it sends the SYN-ACK). */
        void qhashDone(boolean added);
    }

    /**
     * irdma_manage_qhash ADD with wait = false and the cm_node as its param, as cm.c irdma_add_conn_est_qh calls it
     * from utils.c irdma_ilq_ah_cb: posted, not waited for; {@code done} runs from its completion, never inside this
     * call (hw.c irdma_send_syn_cqp_callback). False when nothing could be posted (irdma_handle_cqp_op failed, e.g.
     * after a reset request); {@code done} then never runs.
     */
    boolean addQhash(Qhash entry, QhashCompletion done);

    /** irdma_manage_qhash DELETE. */
    void deleteQhash(Qhash entry);

    /** irdma_add_apbvt: the port is accelerated (use-counted by the device). */
    boolean addAcceleratedPort(int port);

    void deleteAcceleratedPort(int port);

    /**
     * Creates a QP for the connection and moves it to RTS with this TCP context and MPA outcome (irdma_cm_init_tsa_conn
     * + irdma_modify_qp RTS); the QP takes over the connection's four-tuple from the CM's quad hash entry.
     * Answers the QP, or why it cannot.
     */
    OffloadResult offload(TcpOffloadContext tcp, MpaOutcome mpa);

    /**
     * Hands the connection to the consumer's QP {@code qpn} (iw_cm_conn_param.qpn, irdma_get_qp), or to a QP of the
     * port's own when {@code qpn} is negative. Answers the QP, or why that QP cannot take it. A port without
     * consumer QPs (the in-memory stand-in) offloads as {@link #offload(TcpOffloadContext, MpaOutcome)}.
     */
    default OffloadResult offload(TcpOffloadContext tcp, MpaOutcome mpa, int qpn) {
        return offload(tcp, mpa);
    }

    /**
     * True when the device raises {@link QpEvent#ESTABLISHED} once the QP has sent its connection WQEs
     * (IRDMA_FEATURE_RTS_AE): the CM then reports ESTABLISHED / CONNECT_REPLY on that event, not at offload.
     */
    default boolean reportsEstablished() {
        return false;
    }

    /** Closes the QP's connection: gracefully (FIN) or abortively (RST); completion comes as a {@link QpEvent}. */
    void closeQp(int qpn, boolean abortive);

    /** Destroys the QP; its four-tuple is no longer steered anywhere. */
    void destroyQp(int qpn);
}
