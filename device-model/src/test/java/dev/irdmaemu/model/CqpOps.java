package dev.irdmaemu.model;

import dev.irdmaemu.fw.cqp.CqOpFields;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.EqOpFields;
import dev.irdmaemu.fw.cqp.QhashFields;
import dev.irdmaemu.fw.cqp.QpOpFields;
import dev.irdmaemu.fw.qp.IwarpOffloadInfo;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.qp.QpHostContextInfo;
import dev.irdmaemu.fw.qp.QpResources;
import dev.irdmaemu.fw.qp.TcpOffloadInfo;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.queue.Ceqe;
import dev.irdmaemu.fw.queue.Cqe;
import java.util.function.LongConsumer;

/**
 * CQ, QP and qhash ops exactly as a model test wants them, on a model the real driver brought up
 * ({@link DriverNode}): any id, any state, a context the test fills, what irdma would never send among them. Each is
 * written with the firmware-iface writers and posted on the driver's own CQP; nothing here brings anything up.
 */
final class CqpOps {
    final DriverNode d;
    final QpOpFields qpf = new QpOpFields();
    final CqOpFields cqf = new CqOpFields();
    final QhashFields qhf = new QhashFields();
    final EqOpFields eqf = new EqOpFields();
    /** The host context of the last {@link #createQp}. */
    long lastQpContext;

    CqpOps(DriverNode d) {
        this.d = d;
    }

    /** An offloaded iWARP connection as irdma_init_tcp_ctx / irdma_sc_qp_setctx describe it (IPv4). */
    record Conn(int local, int localPort, int remote, int remotePort, long sndNxt, long rcvNxt, int vlan) {
    }

    /** Create CQ {@code id} of {@code entries} on CEQ {@code ceq}, ring and shadow area in host memory. */
    DriverNode.Completion createCq(int id, int entries, int ceq, boolean ceqValid) {
        cqf.clear();
        cqf.cqId = id;
        cqf.cqSize = entries;
        cqf.cqAddress = d.alloc((long) Math.max(entries, 1) * Cqe.SIZE);
        cqf.shadowAreaAddress = d.alloc(64);
        cqf.ceqId = ceq;
        cqf.ceqIdValid = ceqValid;
        cqf.checkOverflow = true;
        cqf.shadowReadThreshold = 16;
        return d.op("CREATE_CQ", (o, v) -> CqpWqeWriter.createCq(d.store(), o, cqf, v));
    }

    DriverNode.Completion destroyCq(int id) {
        cqf.clear();
        cqf.cqId = id;
        return d.op("DESTROY_CQ", (o, v) -> CqpWqeWriter.destroyCq(d.store(), o, cqf, v));
    }

    /** Writes a QP host context with {@code fill} and posts Create QP. */
    DriverNode.Completion createQp(int id, int type, int nextState, boolean tcpValid, LongConsumer fill) {
        lastQpContext = d.alloc(QpContext.SIZE);
        fill.accept(lastQpContext);
        qpf.clear();
        qpf.qpId = id;
        qpf.qpType = type;
        qpf.hostContextAddress = lastQpContext;
        qpf.shadowAreaAddress = d.alloc(64);
        qpf.tcpContextValid = tcpValid;
        qpf.cqNumValid = true;
        qpf.nextIwarpState = nextState;
        return d.op("CREATE_QP", (o, v) -> CqpWqeWriter.createQp(d.store(), o, qpf, v));
    }

    DriverNode.Completion modifyQp(int id, int type, int nextState, boolean tcpValid, long hostContext) {
        qpf.clear();
        qpf.qpId = id;
        qpf.qpType = type;
        qpf.hostContextAddress = hostContext;
        qpf.tcpContextValid = tcpValid;
        qpf.nextIwarpState = nextState;
        return d.op("MODIFY_QP", (o, v) -> CqpWqeWriter.modifyQp(d.store(), o, qpf, v));
    }

    /** Destroy QP; {@code removeHash}: IRDMA_CQPSQ_QP_REMOVEHASHENTRY, which irdma always sets. */
    DriverNode.Completion destroyQp(int id, int type, boolean removeHash) {
        qpf.clear();
        qpf.qpId = id;
        qpf.qpType = type;
        qpf.removeHashEntry = removeHash;
        return d.op("DESTROY_QP", (o, v) -> CqpWqeWriter.destroyQp(d.store(), o, qpf, v));
    }

    /** An untagged IPv4 qhash entry for this node's MAC: listen when {@code remote} is 0, else established. */
    DriverNode.Completion qhashV4(int manage, int local, int localPort, int remote, int remotePort, int qpn) {
        qhf.clear();
        qhf.ipv4 = true;
        qhf.destIp[0] = local;
        qhf.destPort = localPort;
        qhf.entryType = remote == 0 ? CqpWqe.QHASH_TYPE_TCP_SYN : CqpWqe.QHASH_TYPE_TCP_ESTABLISHED;
        if (remote != 0) {
            qhf.srcIp[0] = remote;
            qhf.srcPort = remotePort;
        }
        qhf.qpNumber = qpn;
        qhf.manage = manage;
        qhf.mac = d.driver.macAddress();
        return d.op("MANAGE_QHASH", (o, v) -> CqpWqeWriter.manageQhash(d.store(), o, qhf, v));
    }

    /**
     * Writes an iWARP QP context (irdma_sc_qp_setctx layout) at {@code ctx} through the fw.qp codecs, with the
     * driver's IEQ as the exception LAN queue; {@code conn} null: no TCP half.
     */
    void writeIwarpContext(long ctx, int txCq, int rxCq, Conn conn) {
        writeIwarpContext(ctx, txCq, rxCq, conn, dev.irdmaemu.driver.IrdmaDriver.IEQ_QP);
    }

    /** The same with {@code ieqQp} as the exception LAN queue (IRDMAQPC_EXCEPTION_LAN_QUEUE), any QP id. */
    void writeIwarpContext(long ctx, int txCq, int rxCq, Conn conn, int ieqQp) {
        long ring = d.alloc(4096);
        var r = new QpResources(0, false, false, false, false,
                QpResources.NO_PUSH_PAGE, ring, ring + 2048, 2, 2, 0, 0, 0, 0, ieqQp);
        var info = new QpHostContextInfo(0xC0DE_0000L + txCq, txCq, rxCq, 0, 0, false,
                conn != null, true);
        var iw = new IwarpOffloadInfo.Builder().ddpVer(1).rdmapVer(1).pdId(1).ordSize(32).irdSize(32).wrRdrespEn(true)
                .bindEn(true).fastRegEn(true).rdEn(true).macAddr(d.driver.macAddress()).build();
        TcpOffloadInfo tcp = conn == null ? null : new TcpOffloadInfo.Builder().ipv4(conn.local(), conn.remote())
                .ports(conn.localPort(), conn.remotePort()).ipHeader(64, 0, 0)
                .vlan(conn.vlan() >= 0, Math.max(conn.vlan(), 0)).noNagle(true).windowScale(true, 7, 7).sndMss(1460)
                .tcpState(5).sendSequence(conn.sndNxt(), conn.sndNxt(), conn.sndNxt())
                .sendWindow(65535, conn.rcvNxt(), conn.sndNxt(), 65535).receive(conn.rcvNxt(), 65535)
                .congestion(14600, 0x7fff_ffffL).rexmitThresh(8).build();
        new QpContext().wrap(d.store(), d.off(ctx), QpContext.SIZE).write(r, info, iw, tcp);
    }

    /** Create CEQ {@code id} of {@code elements} on a fresh ring (ctrl.c irdma_sc_ceq_create's fields). */
    DriverNode.Completion createCeq(int id, int elements) {
        eqf.clear();
        eqf.ceqId = id;
        eqf.elementCount = elements;
        eqf.address = d.alloc((long) Math.max(elements, 1) * Ceqe.SIZE);
        return d.op("CREATE_CEQ", (o, v) -> CqpWqeWriter.createCeq(d.store(), o, eqf, v));
    }

    DriverNode.Completion destroyCeq(int id) {
        eqf.clear();
        eqf.ceqId = id;
        return d.op("DESTROY_CEQ", (o, v) -> CqpWqeWriter.destroyCeq(d.store(), o, eqf, v));
    }

    /** Create AEQ of {@code elements} on a fresh ring (ctrl.c irdma_sc_aeq_create's fields). */
    DriverNode.Completion createAeq(int elements) {
        eqf.clear();
        eqf.elementCount = elements;
        eqf.address = d.alloc((long) Math.max(elements, 1) * Aeqe.SIZE);
        return d.op("CREATE_AEQ", (o, v) -> CqpWqeWriter.createAeq(d.store(), o, eqf, v));
    }

    /** Destroy AEQ: the driver's own one too, which irdma destroys only at remove. */
    DriverNode.Completion destroyAeq() {
        eqf.clear();
        return d.op("DESTROY_AEQ", (o, v) -> CqpWqeWriter.destroyAeq(d.store(), o, eqf, v));
    }

    /** Modify CQ with resize: CQ {@code id}'s ring becomes {@code entries} CQEs at {@code ring}. */
    DriverNode.Completion resizeCq(int id, int entries, long ring) {
        cqf.clear();
        cqf.cqId = id;
        cqf.resize = true;
        cqf.cqSize = entries;
        cqf.cqAddress = ring;
        return d.op("MODIFY_CQ", (o, v) -> CqpWqeWriter.modifyCq(d.store(), o, cqf, v));
    }
}
