package dev.irdmaemu.bench;

import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.ProtectionDomain;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.QpOpFields;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.qp.IwarpOffloadInfo;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.qp.QpHostContextInfo;
import dev.irdmaemu.fw.qp.QpResources;
import dev.irdmaemu.fw.qp.TcpOffloadInfo;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.iwarp.IwarpQp;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Two E810 models on one link, brought up by the cm module's driver layer (irdma's probe), with one offloaded
 * iWARP connection between them made as irdma's CM hands it over (the passive side's LSMM and the active side's
 * RTR written at SQ index 0, the RTS-AE WQEs, Modify QP to RTS with the TCP context), tracing off: what the iWARP
 * benchmarks drive. Memory is registered by the cm module's verbs ({@link Node#register}: Register MR into the
 * model's own STag table, as verbs.c does for a kernel consumer's buffer), so every placement and every gather
 * goes through the device's STag checks and translation. The benchmarks post WQEs as uk.c does and poll CQEs by
 * their valid bit, allocation-free.
 */
final class IwarpBenchPair implements AutoCloseable {
    static final long MAC_A = 0x02_00_00_00_01_0aL;
    static final long MAC_B = 0x02_00_00_00_01_0bL;
    static final int IP_A = IpAddress.ipv4(10, 0, 0, 1);
    static final int IP_B = IpAddress.ipv4(10, 0, 0, 2);
    static final int QP = 10;
    static final int CQ = 10;
    static final int SQ_QUANTA = 2048;
    static final int RQ_WQES = 1024;
    static final int CQ_ENTRIES = 4096;

    final SimScheduler scheduler = new SimScheduler(1);
    final Link link = new Link(scheduler);
    final Node a;
    final Node b;

    /** A registered buffer: its address (also its iova) and its STag (lkey = rkey). */
    record Region(long address, int stag) {
    }

    /** One node and the driver's view of its QP's rings. */
    static final class Node {
        final HostMemory memory;
        final HostRam ram;
        final long mac;
        final IrdmaDriver driver;
        final E810RdmaFunction device;
        final IrdmaVerbs verbs;
        final ProtectionDomain pd;
        final BytesStore<?, ?> store;
        final SqWqe sqWqe = new SqWqe();
        final RqWqe rqWqe = new RqWqe();
        long sq;
        long rq;
        long cqRing;
        /** The QP's host context (Create QP and Modify QP point at it). */
        long context;
        int sqHead = SqWqe.CONNECTION_WQES;
        boolean sqPolarity = true;
        int rqHead;
        boolean rqPolarity;
        int cqHead;
        boolean cqPolarity = true;
        boolean established;

        Node(SimScheduler s, Link link, long mac) {
            this.mac = mac;
            BenchNode node = BenchNode.bringUp(s, link, mac);
            memory = node.memory();
            ram = node.ram();
            driver = node.driver();
            device = node.device();
            verbs = new IrdmaVerbs(driver);
            pd = verbs.allocatePd();
            store = driver.store();
            driver.attach(new IrdmaDriver.Upcalls() {
                @Override
                public void ilqReceive(BytesStore<?, ?> st, long o, int l) {
                }

                @Override
                public void asyncEvent(int qpId, int aeCode) {
                    if (qpId == QP && aeCode == AeCode.LLP_CONNECTION_ESTABLISHED.code()) {
                        established = true;
                    }
                }
            });
        }

        IwarpQp engine() {
            return device.iwarp().engine(QP);
        }

        /**
         * A zeroed buffer of {@code bytes} registered with {@code access} (ib_verbs.h IB_ACCESS_*) in the QP's PD:
         * physically contiguous, so registered by its address, as irdma_reg_user_mr_type_mem does once
         * irdma_check_mr_contiguous finds it so.
         */
        Region register(long bytes, int access) {
            long address = driver.allocate(bytes);
            return new Region(address, verbs.registerBuffer(pd, address, bytes, access).lkey());
        }

        long off(long gpa) {
            return driver.offsetOf(gpa);
        }

        /** irdma_qp_get_next_send_wqe for one-quantum WQEs (no chunk padding needed). */
        SqWqe nextWqe() {
            int idx = sqHead;
            if (idx == 0) {
                sqPolarity = !sqPolarity;
            }
            sqHead = (sqHead + 1) % SQ_QUANTA;
            return sqWqe.wrap(store, off(sq + idx * 32L), 32);
        }

        void ring() {
            device.write32(Gen2Register.WQEALLOC.offset(), QP);
        }

        void postRecv(SgeList sges) {
            int idx = rqHead;
            if (idx == 0) {
                rqPolarity = !rqPolarity;
            }
            rqHead = (rqHead + 1) % RQ_WQES;
            rqWqe.wrap(store, off(rq + idx * 32L), 32).write(rqPolarity, sges);
        }

        /** Consumes the new CQEs (by valid bit, as irdma_uk_cq_poll_cmpl); answers how many. */
        int consume() {
            int n = 0;
            while (true) {
                long q3 = store.readLong(off(cqRing + (long) cqHead * Cqe.SIZE) + Cqe.OFF_QW3);
                if ((q3 < 0) != cqPolarity) {
                    return n;
                }
                cqHead++;
                if (cqHead == CQ_ENTRIES) {
                    cqHead = 0;
                    cqPolarity = !cqPolarity;
                }
                n++;
            }
        }
    }

    IwarpBenchPair() {
        a = new Node(scheduler, link, MAC_A);
        b = new Node(scheduler, link, MAC_B);
        a.driver.cqp().manageArp(3, MAC_B, true);
        b.driver.cqp().manageArp(3, MAC_A, true);
        long isnA = 0x1000;
        long isnB = 0x9000;
        int lsmm = 24;
        setUpQp(a, IP_A, 40000, IP_B, 20000, isnA, isnB + lsmm);
        setUpQp(b, IP_B, 20000, IP_A, 40000, isnB, isnA);
        // B (passive): the LSMM (24 bytes of "MPA reply" from its own RAM, registered as cm.c irdma_accept
        // registers ietf_mem: irdma_reg_phys_mr with local write), RTS.
        long reply = b.driver.allocate(64);
        int replyStag = b.verbs.registerPhysical(b.pd, reply, 64, Access.LOCAL_WRITE, reply).lkey();
        b.store.writeLong(b.off(reply), 0x4d5041204944L);
        b.driver.cqp().manageQhash(CqpWqe.QHASH_MANAGE_ADD, true, new int[] {IP_B}, 20000, new int[] {IP_A}, 40000, true,
                -1, MAC_B, QP);
        b.sqWqe.wrap(b.store, b.off(b.sq), 32).writeLsmm(true, reply, lsmm, replyStag);
        rtsAe(b);
        modifyToRts(b);
        scheduler.runFor(1_000_000);
        // A (active): the connection to its QP, the zero-length Write RTR, RTS.
        a.driver.cqp().manageQhash(CqpWqe.QHASH_MANAGE_ADD, true, new int[] {IP_A}, 40000, new int[] {IP_B}, 20000, true,
                -1, MAC_A, QP);
        a.sqWqe.wrap(a.store, a.off(a.sq), 32).writeRtr(true, false);
        rtsAe(a);
        modifyToRts(a);
        long limit = scheduler.now() + 5_000_000_000L;
        while (!(a.established && b.established)) {
            if (!scheduler.runNext() || scheduler.now() > limit) {
                throw new IllegalStateException("the connection did not come up");
            }
        }
    }

    private static void rtsAe(Node n) {
        n.sqWqe.wrap(n.store, n.off(n.sq + 32), 32).writeRtsAeRequest(true, false);
        n.sqWqe.wrap(n.store, n.off(n.sq + 64), 32).writeRtsAeRequest(true, true);
    }

    private void setUpQp(Node n, int local, int localPort, int remote, int remotePort, long sndNxt, long rcvNxt) {
        n.cqRing = n.driver.cqp().createCq(CQ, CQ_ENTRIES);
        n.sq = n.driver.allocate(SQ_QUANTA * 32L);
        n.rq = n.driver.allocate(RQ_WQES * 32L);
        long q2 = n.driver.allocate(256);
        long ctx = n.driver.allocate(QpContext.SIZE);
        n.context = ctx;
        int hwSq = Integer.numberOfTrailingZeros(SQ_QUANTA) - 2;
        int hwRq = Integer.numberOfTrailingZeros(RQ_WQES) - 2;
        var r = new QpResources(0, false, false, false, false, QpResources.NO_PUSH_PAGE, n.sq, n.rq, hwRq, hwSq, q2,
                0, 0, 0, 2);
        var info = new QpHostContextInfo(0xbe_0000_0000L | QP, CQ, CQ, 0, 0, false, true, true);
        var iw = new IwarpOffloadInfo.Builder().ddpVer(1).rdmapVer(1).pdId(n.pd.id()).ordSize(64).irdSize(64)
                .wrRdrespEn(true).bindEn(true).rdEn(true).macAddr(n.mac).rtomin(5).build();
        var tcp = new TcpOffloadInfo.Builder().ipv4(local, remote).ports(localPort, remotePort).ipHeader(64, 0, 0)
                .noNagle(true).windowScale(true, 7, 7).sndMss(1460).arpIdx(3).tcpState(5)
                .sendSequence(sndNxt, sndNxt, sndNxt).sendWindow(256 * 1024, rcvNxt, sndNxt, 256 * 1024)
                .receive(rcvNxt, 256 * 1024).rtt(0, 6).congestion(0, 0x3fffffffL).build();
        new QpContext().wrap(n.store, n.off(ctx), QpContext.SIZE).write(r, info, iw, tcp);
        QpOpFields f = new QpOpFields();
        f.qpId = QP;
        f.qpType = 1;
        f.hostContextAddress = ctx;
        f.shadowAreaAddress = n.driver.allocate(64);
        f.cqNumValid = true;
        f.nextIwarpState = 1;
        n.driver.cqp().createQp(f);
    }

    /** Modify QP to RTS (iWARP state 2) with the TCP context and the ORD. */
    private static void modifyToRts(Node n) {
        QpOpFields f = new QpOpFields();
        f.qpId = QP;
        f.qpType = 1;
        f.hostContextAddress = n.context;
        f.tcpContextValid = true;
        f.ordValid = true;
        f.cqNumValid = true;
        f.arpIndexValid = true;
        f.nextIwarpState = 2;
        n.driver.cqp().modifyQp(f);
    }

    /** Posts an RDMA Write of {@code sges} from A to B's region {@code rkey} at {@code remoteTo} (at most 1 SGE). */
    void write(SgeList sges, int rkey, long remoteTo, boolean signaled) {
        a.nextWqe().writeRdmaWrite(a.sqPolarity, SqOpcode.RDMA_WRITE, sges, rkey, remoteTo,
                signaled ? SqWqe.SIGNALED : 0, 0);
    }

    void send(SgeList sges, boolean signaled) {
        a.nextWqe().writeSend(a.sqPolarity, SqOpcode.RDMA_SEND, sges, signaled ? SqWqe.SIGNALED : 0, 0, 0);
    }

    /** Runs the simulation until A's CQ has {@code n} new completions; false if it stalls. */
    boolean awaitCompletions(Node n, int count) {
        int got = 0;
        while (got < count) {
            if (!scheduler.runNext()) {
                return false;
            }
            got += n.consume();
        }
        return true;
    }

    @Override
    public void close() {
        a.ram.close();
        b.ram.close();
    }
}
