package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.driver.AsyncEvent;
import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.IrdmaDriver;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IrdmaVerbs;
import dev.irdmaemu.driver.verbs.IwarpConnection;
import dev.irdmaemu.driver.verbs.MemoryRegion;
import dev.irdmaemu.driver.verbs.MpaOutcome;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.ProtectionDomain;
import dev.irdmaemu.driver.verbs.QpEvent;
import dev.irdmaemu.driver.verbs.QpInit;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.driver.verbs.Rdma0;
import dev.irdmaemu.driver.verbs.ReceiveWorkRequest;
import dev.irdmaemu.driver.verbs.SendWorkRequest;
import dev.irdmaemu.driver.verbs.TcpOffloadContext;
import dev.irdmaemu.driver.verbs.WcOpcode;
import dev.irdmaemu.driver.verbs.WcStatus;
import dev.irdmaemu.driver.verbs.WorkCompletion;
import dev.irdmaemu.fw.cqp.CqOpFields;
import dev.irdmaemu.fw.cqp.CqpErrorCode;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.cqp.QpFlushFields;
import dev.irdmaemu.fw.cqp.QpOpFields;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.TcpPacket;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.qp.IwarpOffloadInfo;
import dev.irdmaemu.fw.qp.QpContext;
import dev.irdmaemu.fw.qp.QpHostContextInfo;
import dev.irdmaemu.fw.qp.QpResources;
import dev.irdmaemu.fw.qp.TcpOffloadInfo;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.fw.wire.LinkPort;
import dev.irdmaemu.model.DriverNode;
import dev.irdmaemu.model.E810RdmaFunction;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.TraceKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Two model nodes on one simulated link, each brought up by the real driver ({@link DriverNode}), with ARP entries
 * for each other, and connections handed to the hardware the way irdma's CM does it through the driver's verbs
 * (what cm's ModelHardwarePort does): both sides steer the four-tuple to their ILQ (established qhash entry) with
 * the local port in the APBVT; the passive side (B) writes the LSMM and the RTS-AE WQEs, the QP context with the
 * TCP connection and goes to RTS (the device takes the four-tuple over; its MPA Reply leaves on the stream raw and
 * reaches A's ILQ, where A's CM reads it); then the active side (A) writes the RTR, its context with a receive
 * sequence past the Reply, and goes to RTS. Both sides wait for IRDMA_AE_LLP_CONNECTION_ESTABLISHED.
 */
final class DriverPair implements AutoCloseable {
    static final long MAC_A = 0x02_00_00_00_00_0aL;
    static final long MAC_B = 0x02_00_00_00_00_0bL;
    static final int IP_A = IpAddress.ipv4(192, 0, 2, 1);
    static final int IP_B = IpAddress.ipv4(192, 0, 2, 2);
    static final int ARP_INDEX = 3;
    /** What B's CM sends as its MPA Reply (RFC 6581 framing is the CM's business; the device sends it raw). */
    static final byte[] MPA_REPLY = "MPA ID Rep frame\u0000\u0000\u0000\u0008\u0080\u0010\u0000\u0010pd-bytes"
            .getBytes(StandardCharsets.ISO_8859_1);
    /** IRD / ORD the CM negotiates by default. */
    static final int DEFAULT_IRD = 8;
    static final int DEFAULT_ORD = 8;

    /** Room for what the driver allocates at bring-up, next to the test's buffers. */
    static final long DRIVER_RAM = DriverNode.RAM_SIZE;

    final SimScheduler scheduler;
    final Link link;
    final Node a;
    final Node b;
    /** Entries of the CQ each side of a connection gets. */
    int cqEntries = 4096;
    private int nextPort = 0;

    DriverPair(long ramBytes) {
        this(ramBytes, FaultProfile.NONE, FaultProfile.NONE, 5);
    }

    DriverPair(long ramBytes, FaultProfile aOut, FaultProfile bOut, long seed) {
        this(ramBytes, aOut, bOut, seed, FrameTap.NONE);
    }

    /** With {@code tap} seeing every frame the link carries. */
    DriverPair(long ramBytes, FaultProfile aOut, FaultProfile bOut, long seed, FrameTap tap) {
        this(ramBytes, aOut, bOut, seed, tap, d -> { });
    }

    /**
     * With A's driver configured by {@code beforeBringUpA} before its probe runs (e.g.
     * {@link IrdmaDriver#withVirtualAeq()}).
     */
    DriverPair(long ramBytes, Consumer<IrdmaDriver> beforeBringUpA) {
        this(ramBytes, FaultProfile.NONE, FaultProfile.NONE, 5, FrameTap.NONE, beforeBringUpA);
    }

    private DriverPair(long ramBytes, FaultProfile aOut, FaultProfile bOut, long seed, FrameTap tap,
                       Consumer<IrdmaDriver> beforeBringUpA) {
        scheduler = new SimScheduler(seed);
        link = new Link(scheduler, tap);
        // the driver's own memory (HMC backing, CQP, PUDA, rings) comes on top of what the test asks for
        a = new Node(new DriverNode(ramBytes + DRIVER_RAM, scheduler, link, MAC_A, aOut, beforeBringUpA), MAC_A,
                IP_A);
        b = new Node(new DriverNode(ramBytes + DRIVER_RAM, scheduler, link, MAC_B, bOut), MAC_B, IP_B);
        a.driver().cqp().manageArp(ARP_INDEX, MAC_B, true);
        b.driver().cqp().manageArp(ARP_INDEX, MAC_A, true);
    }

    /** One AEQE as the driver decoded it (irdma_sc_get_next_aeqe), with the simulated time it was handled. */
    record Ae(int code, int qpId, long context, int source, int iwarpState, int tcpState, int wqeIndex, int q2Data,
              long time) {
    }

    /** One work completion as verbs.c irdma_poll_cq hands it to the consumer. */
    record Completion(long wrId, WcStatus status, WcOpcode opcode, int vendorErr, long bytes, int qpNum,
                      boolean withInvalidate, int invalidatedRkey, boolean solicited) {
        boolean error() {
            return status != WcStatus.SUCCESS;
        }

        /** The CQE's major error code (ib_wc.vendor_err: major &lt;&lt; 16 | minor). */
        int major() {
            return vendorErr >>> 16;
        }

        int minor() {
            return vendorErr & 0xffff;
        }

        /** An SQ completion (the receive opcodes are the RQ's). */
        boolean sq() {
            return opcode != WcOpcode.RECV && opcode != WcOpcode.RECV_RDMA_WITH_IMM;
        }
    }

    /** A registered buffer: guest address (also its iova: the region is VA-based), length and STag. */
    record Buffer(long gpa, long length, int stag, MemoryRegion mr) {
    }

    /** One node: the model, the real driver and its verbs, a PD, and what the driver handed up (AEs, ILQ). */
    static final class Node {
        final DriverNode n;
        private IrdmaDriver driver;
        IrdmaVerbs verbs;
        ProtectionDomain pd;
        final long mac;
        final int ip;
        private final List<Ae> aes = new ArrayList<>();
        private int aesSeen;
        private final ArrayDeque<byte[]> ilqPayloads = new ArrayDeque<>();
        private final TcpPacket view = new TcpPacket();
        private final SendWorkRequest swr = new SendWorkRequest();
        private final ReceiveWorkRequest rwr = new ReceiveWorkRequest();
        private final WorkCompletion wc = new WorkCompletion();
        private long nextWrId = 1;

        Node(DriverNode n, long mac, int ip) {
            this.n = n;
            this.mac = mac;
            this.ip = ip;
            this.driver = n.driver;
            this.verbs = n.verbs;
            this.pd = verbs.allocatePd();
            listen();
        }

        /** Every AEQE the driver decodes is recorded, then handled by the verbs; ILQ receives go to the CM's queue. */
        private void listen() {
            IrdmaVerbs v = verbs;
            driver.attachEvents(new IrdmaDriver.DeviceEvents() {
                @Override
                public void completionEvent(int cqId) {
                    v.completionEvent(cqId);
                }

                @Override
                public void asyncEvent(AsyncEvent e) {
                    aes.add(new Ae(e.aeCode, e.qpCqId, e.completionContext, e.source, e.iwarpState, e.tcpState,
                            e.wqeIndex, e.q2DataWritten, n.scheduler.now()));
                    v.asyncEvent(e);
                }
            });
            // cm.c irdma_receive_ilq: the CM reads the segment's TCP payload
            driver.attach(new IrdmaDriver.Upcalls() {
                @Override
                public void ilqReceive(BytesStore<?, ?> s, long o, int l) {
                    if (view.wrap(s, o, l).validate().accepted()) {
                        byte[] data = new byte[(int) view.tcpPayloadLength()];
                        s.read(o + view.tcpPayloadOffset(), data, 0, data.length);
                        ilqPayloads.add(data);
                    }
                }

                @Override
                public void asyncEvent(int qpId, int aeCode) {
                }
            });
        }

        /**
         * irdma's remove before a function reset (main.c irdma_remove: the driver's timers stopped, no interrupt
         * answered).
         */
        void removeDriver() {
            driver.tearDown();
        }

        /**
         * A new probe of the same function after {@link E810RdmaFunction#reset} (irdma's remove and probe): a new
         * driver on the same device, host memory and link, its interrupts routed to it, brought up, with new verbs
         * and a PD; what the old driver allocated in host memory stays allocated.
         */
        void probeAgain() {
            IrdmaDriver d = new IrdmaDriver(n.ram, n.scheduler);
            d.bind(n.dev);
            d.macAddress(mac);
            n.dev.routeInterrupts(d.interruptSink());
            d.bringUp();
            driver = d;
            verbs = new IrdmaVerbs(d);
            pd = verbs.allocatePd();
            aes.clear();
            aesSeen = 0;
            ilqPayloads.clear();
            listen();
        }

        /** One op on the driver's CQP written by {@code writer}; an error completion is answered, not thrown. */
        DriverNode.Completion op(String name, IrdmaDriver.WqeWriter writer) {
            try {
                return new DriverNode.Completion(false, 0, 0, driver.cqp().op(name, writer));
            } catch (CqpException e) {
                if (!e.errorCompletion()) {
                    throw e;
                }
                return new DriverNode.Completion(true, e.major(), e.minor(), 0);
            }
        }

        IrdmaDriver driver() {
            return driver;
        }

        E810RdmaFunction dev() {
            return n.dev;
        }

        LinkPort linkPort() {
            return n.linkPort();
        }

        BytesStore<?, ?> store() {
            return n.store();
        }

        long off(long gpa) {
            return n.off(gpa);
        }

        long alloc(long bytes) {
            return n.alloc(bytes);
        }

        RecordingTraceSink traceSink() {
            return n.sink;
        }

        /** Stops recording trace events (large transfers would otherwise keep millions of them). */
        void traceOff() {
            n.trace.off();
        }

        /** The TCP payload of the next segment the ILQ handed to the CM; null when none. */
        byte[] pollIlqPayload() {
            return ilqPayloads.poll();
        }

        /** Every AE the driver handled so far. */
        List<Ae> allAes() {
            return aes;
        }

        /** The AEs the driver handled since the last call. */
        List<Ae> pollAes() {
            List<Ae> l = new ArrayList<>(aes.subList(aesSeen, aes.size()));
            aesSeen = aes.size();
            return l;
        }

        /**
         * Allocates {@code bytes} of host memory and registers them as a consumer does (verbs.c irdma_reg_user_mr:
         * the pages in a PBL, given back when contiguous: registered by the first page).
         */
        Buffer buffer(long bytes, int access) {
            long gpa = n.alloc(bytes);
            MemoryRegion mr = verbs.registerBuffer(pd, gpa, bytes, access);
            return new Buffer(gpa, bytes, mr.lkey(), mr);
        }

        /** A kernel consumer's DMA buffer registered by its address (verbs.c irdma_reg_phys_mr: no PBL). */
        Buffer physicalBuffer(long bytes, int access) {
            long gpa = n.alloc(bytes);
            MemoryRegion mr = verbs.registerPhysical(pd, gpa, bytes, access, gpa);
            return new Buffer(gpa, bytes, mr.lkey(), mr);
        }

        /**
         * {@code bytes} registered over {@code n} scattered pages (every other page of a block, in reverse
         * order, as ib_umem may pin them): a PBL the device must walk. Answers the region; its iova is
         * {@code va}.
         */
        MemoryRegion scatteredRegion(long va, long bytes, int access) {
            int pages = (int) ((bytes + 4095) / 4096);
            return verbs.registerPages(pd, va, scatteredPages(pages), bytes, access);
        }

        /**
         * {@code bytes} of host memory registered with its pages swapped pairwise (page 2k+1 first, then 2k: a user
         * buffer as ib_umem may pin it), so the region is not contiguous and the device walks its PBL; the iova is
         * the block's address. Read and write it through {@link #fill(Buffer, long)} and
         * {@link #checksum(Buffer)}, which follow the page list.
         */
        Buffer pagedBuffer(long bytes, int access) {
            int count = (int) ((bytes + 4095) / 4096);
            long gpa = n.alloc((long) count * 4096);
            long[] pages = new long[count];
            for (int i = 0; i < count; i++) {
                int j = (i ^ 1) < count ? i ^ 1 : i;
                pages[i] = gpa + (long) j * 4096;
            }
            MemoryRegion mr = verbs.registerPages(pd, gpa, pages, bytes, access);
            return new Buffer(gpa, bytes, mr.lkey(), mr);
        }

        /** Fills a region (a multiple of 8 bytes) through its page list with the pattern of {@link #fill(long, long, long)}. */
        void fill(Buffer b, long seed) {
            if (b.mr().pbleLevel() == 0) {
                fill(b.gpa(), b.length(), seed);
                return;
            }
            long x = seed;
            for (long i = 0; i < b.length(); i += 8) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                n.store().writeLong(b.mr().storeOffset(b.gpa() + i), x ^ x >>> 29);
            }
        }

        /** {@link #checksum(long, long)} of a region read through its page list. */
        long checksum(Buffer b) {
            if (b.mr().pbleLevel() == 0) {
                return checksum(b.gpa(), b.length());
            }
            java.util.zip.CRC32C c = new java.util.zip.CRC32C();
            byte[] page = new byte[4096];
            for (long done = 0; done < b.length(); ) {
                int k = (int) Math.min(4096 - (b.gpa() + done) % 4096, b.length() - done);
                n.store().read(b.mr().storeOffset(b.gpa() + done), page, 0, k);
                c.update(page, 0, k);
                done += k;
            }
            return c.getValue() << 32 | b.length();
        }

        /** {@code count} non-contiguous, descending 4 KiB pages. */
        long[] scatteredPages(int count) {
            long block = n.alloc(2L * count * 4096);
            long[] p = new long[count];
            for (int i = 0; i < count; i++) {
                p[i] = block + 2L * (count - 1 - i) * 4096;
            }
            return p;
        }

        /** A fresh send work request with its own wr_id ({@link #post}). */
        SendWorkRequest wr() {
            return new SendWorkRequest().wrId(nextWrId++);
        }

        /** verbs.c irdma_post_send; fails the test unless it is accepted. Answers the wr_id. */
        long post(QueuePair qp, SendWorkRequest wr) {
            PostStatus s = qp.postSend(wr);
            if (s != PostStatus.OK) {
                throw new AssertionError("post send on " + qp + ": " + s);
            }
            return wr.wrId();
        }

        /** The node's reused request (allocation-free paths): cleared, with {@code wrId}. */
        SendWorkRequest reusedWr(long wrId) {
            return swr.clear().wrId(wrId);
        }

        /** verbs.c irdma_post_recv of one SGE; answers the wr_id. */
        long postRecv(QueuePair qp, long gpa, int length, int lkey) {
            long id = nextWrId++;
            postRecv(qp, id, gpa, length, lkey);
            return id;
        }

        /** The same, allocation-free, with {@code wrId}. */
        void postRecv(QueuePair qp, long wrId, long gpa, int length, int lkey) {
            PostStatus s = qp.postRecv(rwr.clear().wrId(wrId).sge(gpa, length, lkey));
            if (s != PostStatus.OK) {
                throw new AssertionError("post recv on " + qp + ": " + s);
            }
        }

        /** verbs.c irdma_poll_cq for one completion; null when none. */
        Completion poll(CompletionQueue cq) {
            if (!cq.poll(wc)) {
                return null;
            }
            return new Completion(wc.wrId(), wc.status(), wc.opcode(), wc.vendorErr(), wc.byteLen(), wc.qpNum(),
                    wc.withInvalidate(), wc.invalidatedRkey(), wc.solicited());
        }

        List<Completion> pollAll(CompletionQueue cq) {
            List<Completion> l = new ArrayList<>();
            for (Completion c = poll(cq); c != null; c = poll(cq)) {
                l.add(c);
            }
            return l;
        }

        /** Consumes every completion waiting on {@code cq} without keeping it (allocates nothing). */
        int consume(CompletionQueue cq) {
            int count = 0;
            while (cq.poll(wc)) {
                count++;
            }
            return count;
        }

        /** Fills a guest range with a seeded pseudo-random pattern. */
        void fill(long gpa, long bytes, long seed) {
            long o = n.off(gpa);
            long x = seed;
            long i = 0;
            for (; i + 8 <= bytes; i += 8) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                n.store().writeLong(o + i, x ^ x >>> 29);
            }
            for (; i < bytes; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                n.store().writeByte(o + i, (byte) (x >>> 56));
            }
        }

        byte[] read(long gpa, int len) {
            byte[] out = new byte[len];
            n.store().read(n.off(gpa), out, 0, len);
            return out;
        }

        /** CRC32C of a guest range with its length (for the big transfers). */
        long checksum(long gpa, long bytes) {
            java.util.zip.CRC32C c = new java.util.zip.CRC32C();
            long o = n.off(gpa);
            byte[] chunk = new byte[65536];
            for (long done = 0; done < bytes; ) {
                int k = (int) Math.min(chunk.length, bytes - done);
                n.store().read(o + done, chunk, 0, k);
                c.update(chunk, 0, k);
                done += k;
            }
            return c.getValue() << 32 | bytes;
        }

        /** The STag is a valid region of the device's table, under this very key (not freed, not invalidated). */
        boolean stagValid(int stag) {
            var t = n.dev.stags();
            int idx = t.indexOf(stag >>> 8);
            return t.registered(idx) && t.stagAt(idx) == stag;
        }

        /**
         * The WQE indexes of the completions the device wrote for {@code qp}, SQ or RQ, in order (its CQE trace:
         * the quantum index irdma_uk_cq_poll_cmpl reads from IRDMA_CQ_WQEIDX).
         */
        List<Integer> cqeWqeIndexes(QueuePair qp, boolean sq) {
            List<Integer> l = new ArrayList<>();
            for (RecordingTraceSink.Recorded e : n.sink.of(TraceKind.CQE)) {
                if ((sq ? "sq_completion" : "rq_completion").equals(e.get("action"))
                        && String.valueOf(qp.id()).equals(e.get("qp"))) {
                    l.add(Integer.parseInt(e.get("wqe")));
                }
            }
            return l;
        }

        /**
         * Destroy CQ {@code cq} on the device behind the verbs' back (irdma refuses while a QP uses it: a hostile
         * driver's op, written with the firmware-iface writer on the driver's CQP). Answers whether it succeeded.
         */
        boolean destroyCqUnderItsQp(CompletionQueue cq) {
            CqOpFields f = new CqOpFields();
            f.cqId = cq.id();
            return !op("DESTROY_CQ", (o, v) -> CqpWqeWriter.destroyCq(n.store(), o, f, v)).error();
        }

        /** The CQP ops the device completed (with or without error) named {@code op}, in order, from its trace. */
        List<RecordingTraceSink.Recorded> cqpOps(String op) {
            List<RecordingTraceSink.Recorded> l = new ArrayList<>();
            for (RecordingTraceSink.Recorded e : n.sink.events()) {
                if ((e.kind() == TraceKind.CQP_OP || e.kind() == TraceKind.CQP_ERROR) && op.equals(e.get("op"))) {
                    l.add(e);
                }
            }
            return l;
        }

        /**
         * Modify QP {@code qp} to {@code nextState} with IRDMA_CQPSQ_QP_RESETCON as {@code reset} says, behind the
         * verbs' back (a second reset of a QP already in ERROR: irdma_modify_qp would not send it), written with
         * the firmware-iface writer on the driver's CQP.
         */
        DriverNode.Completion rawModifyQp(QueuePair qp, int nextState, boolean reset) {
            return rawModifyQp(qp, nextState, reset, 0);
        }

        /** The same with IRDMA_CQPSQ_QP_TERMACT {@code termActions} (3: neither Terminate nor FIN). */
        DriverNode.Completion rawModifyQp(QueuePair qp, int nextState, boolean reset, int termActions) {
            QpOpFields f = new QpOpFields();
            f.termActions = termActions;
            f.qpId = qp.id();
            f.qpType = 1;
            f.hostContextAddress = qp.hostContextAddress();
            f.nextIwarpState = nextState;
            f.resetConnection = reset;
            return op("MODIFY_QP", (o, v) -> CqpWqeWriter.modifyQp(n.store(), o, f, v));
        }

        /**
         * Flush WQEs of the queues asked for with irdma_flush_wqes' user codes, through the driver's own op
         * (irdma_hw_flush_wqes) but when the verbs would not send it. Answers the completion: its minor code on
         * success (IRDMA_CQP_COMPL_RQ_WQE_FLUSHED / _SQ_WQE_FLUSHED), the error codes otherwise.
         */
        DriverNode.Completion rawFlush(QueuePair qp, boolean sq, boolean rq) {
            QpFlushFields f = new QpFlushFields();
            f.qpId = qp.id();
            f.flushSq = sq;
            f.flushRq = rq;
            f.userFlushCode = true;
            f.sqMajor = Cqe.MAJOR_FLUSH;
            f.sqMinor = Cqe.MINOR_FLUSH_GENERAL;
            f.rqMajor = Cqe.MAJOR_FLUSH;
            f.rqMinor = Cqe.MINOR_FLUSH_GENERAL;
            try {
                return new DriverNode.Completion(false, 0, driver.cqp().flushWqes(f), 0);
            } catch (CqpException e) {
                if (!e.errorCompletion()) {
                    throw e;
                }
                return new DriverNode.Completion(true, e.major(), e.minor(), 0);
            }
        }

        /**
         * The device's last flush of {@code qp} as its CQE trace reports which queues had WQEs flushed, as the
         * completion's minor code says it (IRDMA_CQP_COMPL_SQ_WQE_FLUSHED, _RQ_WQE_FLUSHED, both: 1; 0 for none).
         * -1 when the QP was never flushed.
         */
        int lastFlushed(QueuePair qp) {
            int r = -1;
            for (RecordingTraceSink.Recorded e : n.sink.of(TraceKind.CQE)) {
                if ("flush".equals(e.get("action")) && String.valueOf(qp.id()).equals(e.get("qp"))) {
                    boolean sq = "true".equals(e.get("sq_flushed"));
                    boolean rq = "true".equals(e.get("rq_flushed"));
                    r = sq && rq ? 1 : sq ? CqpErrorCode.COMPL_SQ_WQE_FLUSHED
                            : rq ? CqpErrorCode.COMPL_RQ_WQE_FLUSHED : 0;
                }
            }
            return r;
        }

        /** ctrl.c irdma_sc_gen_ae for {@code qp} (hw.c irdma_gen_ae: what irdma_hw_modify_qp's failure path posts). */
        DriverNode.Completion generateAe(QueuePair qp, int aeCode, int source) {
            return op("GEN_AE", (o, v) -> CqpWqeWriter.generateAe(n.store(), o, qp.id(), aeCode, source, v));
        }

        /**
         * Destroy QP and Create QP of {@code qp} behind the verbs' back, with the fields verbs.c created it with (its
         * host context, still in memory, VQ as it was, next state IDLE) but {@code shadowArea} as its shadow area:
         * what irdma never hands the device (a QP whose IRDMA_QP_DBSA page is not mapped). Call it before the QP
         * is connected; written with the firmware-iface writers on the driver's CQP.
         */
        DriverNode.Completion recreateWithShadowArea(QueuePair qp, long shadowArea) {
            QpOpFields f = new QpOpFields();
            f.qpId = qp.id();
            f.qpType = 1;
            f.hostContextAddress = qp.hostContextAddress();
            DriverNode.Completion gone = op("DESTROY_QP", (o, v) -> CqpWqeWriter.destroyQp(n.store(), o, f, v));
            if (gone.error()) {
                return gone;
            }
            f.clear();
            f.qpId = qp.id();
            f.qpType = 1;
            f.hostContextAddress = qp.hostContextAddress();
            f.shadowAreaAddress = shadowArea;
            f.macValid = true;
            f.cqNumValid = true;
            f.virtualMap = qp.virtuallyMapped();
            f.nextIwarpState = QueuePair.STATE_IDLE;
            return op("CREATE_QP", (o, v) -> CqpWqeWriter.createQp(n.store(), o, f, v));
        }

        /** The model's iWARP engine of {@code qp}. */
        IwarpQp engine(QueuePair qp) {
            return n.dev.iwarp().engine(qp.id());
        }

        void close() {
            n.close();
        }
    }

    /** What a test may change in a connection's QPs before they are created and connected. */
    static final class Options {
        int maxSendWr = 128;
        int maxRecvWr = 64;
        int maxSendSge = 6;
        int maxRecvSge = 7;
        int maxInline = 101;
        /** What MPA negotiated (cm.c irdma_negotiate_mpa_v2_ird_ord). */
        int ird = DEFAULT_IRD;
        int ord = DEFAULT_ORD;
        /** A change to the context's iWARP half irdma would not make ({@link #rewriteIwarpHalf}); null: none. */
        UnaryOperator<IwarpOffloadInfo> context;
        /** A shadow area the QP is re-created with behind the verbs ({@link Node#recreateWithShadowArea}); 0: none. */
        long shadowArea;
        /** Runs on the connection's CQ right after the verbs created it, before any QP uses it. */
        Consumer<CompletionQueue> cqCreated = cq -> { };

        QpInit init(Node n, CompletionQueue cq) {
            return new QpInit(n.pd, cq, cq, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInline, false);
        }
    }

    /** One connection: A's QP (active, RTR) and B's QP (passive, LSMM). */
    final class Conn {
        QueuePair active;
        QueuePair passive;
        CompletionQueue aCq;
        CompletionQueue bCq;
        Ae activeEstablished;
        Ae passiveEstablished;
        int portA;
        int portB;
        /** The AEs each side raised while the connection was made. */
        final List<Ae> aAes = new ArrayList<>();
        final List<Ae> bAes = new ArrayList<>();
        final List<QpEvent> aEvents = new ArrayList<>();
        final List<QpEvent> bEvents = new ArrayList<>();
    }

    Conn connect(boolean rtrRead) {
        return connect(rtrRead, o -> { }, o -> { });
    }

    /** Makes a connection and runs until both QPs raised IRDMA_AE_LLP_CONNECTION_ESTABLISHED. */
    Conn connect(boolean rtrRead, Consumer<Options> tweakA, Consumer<Options> tweakB) {
        Conn c = new Conn();
        c.portA = 40000 + nextPort;
        c.portB = 20000 + nextPort;
        nextPort++;
        Options oa = new Options();
        tweakA.accept(oa);
        Options ob = new Options();
        tweakB.accept(ob);
        c.aCq = a.verbs.createCq(cqEntries);
        c.bCq = b.verbs.createCq(cqEntries);
        oa.cqCreated.accept(c.aCq);
        ob.cqCreated.accept(c.bCq);
        c.active = a.verbs.createQp(oa.init(a, c.aCq));
        c.passive = b.verbs.createQp(ob.init(b, c.bCq));
        if (oa.shadowArea != 0 && a.recreateWithShadowArea(c.active, oa.shadowArea).error()) {
            throw new AssertionError("A's QP with shadow area " + Long.toHexString(oa.shadowArea));
        }
        if (ob.shadowArea != 0 && b.recreateWithShadowArea(c.passive, ob.shadowArea).error()) {
            throw new AssertionError("B's QP with shadow area " + Long.toHexString(ob.shadowArea));
        }
        long isnA = 0x1000_0000L + 0x1111L * c.active.id();
        long isnB = 0xfff0_0000L + 0x2222L * c.passive.id(); // B's sequence space wraps during long transfers
        Rdma0 rdma0 = rtrRead ? Rdma0.READ : Rdma0.WRITE;
        // cm.c: each side's local port in the APBVT and the connection's four-tuple to its ILQ (irdma_manage_qhash)
        steerToIlq(a, c.portA, IP_B, c.portB);
        steerToIlq(b, c.portB, IP_A, c.portA);
        // B (passive, cm.c irdma_accept): the MPA Reply as the LSMM, the context, RTS
        MpaOutcome replied = new MpaOutcome(1, ob.ird, ob.ord, rdma0, false, MPA_REPLY);
        IwarpConnection.writeLsmm(c.passive, replied);
        IwarpConnection.writeContext(c.passive, tcp(b, c.portB, a.ip, a.mac, c.portA, isnB, isnA), replied,
                ARP_INDEX);
        if (ob.context != null) {
            rewriteIwarpHalf(b, c.passive, ob.context);
        }
        IwarpConnection.moveToRts(c.passive, (qp, e) -> c.bEvents.add(e));
        // A's CM reads the Reply on its ILQ
        byte[][] reply = new byte[1][];
        runUntil(() -> (reply[0] = a.pollIlqPayload()) != null, 50_000_000L);
        if (reply[0].length != MPA_REPLY.length) {
            throw new AssertionError("A's ILQ got " + reply[0].length + " bytes of MPA Reply");
        }
        // A (active, cm.c irdma_cm_event_connected): the RTR, the context past the Reply, RTS
        MpaOutcome requested = new MpaOutcome(1, oa.ird, oa.ord, rdma0, true, null);
        IwarpConnection.writeRtr(c.active, rdma0);
        IwarpConnection.writeContext(c.active, tcp(a, c.portA, b.ip, b.mac, c.portB, isnA,
                isnB + MPA_REPLY.length), requested, ARP_INDEX);
        if (oa.context != null) {
            rewriteIwarpHalf(a, c.active, oa.context);
        }
        IwarpConnection.moveToRts(c.active, (qp, e) -> c.aEvents.add(e));
        runUntil(() -> {
            for (Ae e : a.allAes()) {
                if (e.code() == AeCode.LLP_CONNECTION_ESTABLISHED.code() && e.qpId() == c.active.id()) {
                    c.activeEstablished = e;
                }
            }
            for (Ae e : b.allAes()) {
                if (e.code() == AeCode.LLP_CONNECTION_ESTABLISHED.code() && e.qpId() == c.passive.id()) {
                    c.passiveEstablished = e;
                }
            }
            return c.activeEstablished != null && c.passiveEstablished != null;
        }, 3_000_000_000L);
        c.aAes.addAll(a.pollAes());
        c.bAes.addAll(b.pollAes());
        return c;
    }

    static void steerToIlq(Node n, int localPort, int remote, int remotePort) {
        n.driver().cqp().manageApbvt(localPort, true);
        n.driver().cqp().manageQhash(true, true, new int[] {n.ip}, localPort, new int[] {remote}, remotePort, true, -1,
                n.mac, IrdmaDriver.ILQ_QP);
    }

    /** cm.c irdma_init_tcp_ctx for an IPv4 connection with no VLAN, as the CM's TCP left it. */
    static TcpOffloadContext tcp(Node local, int localPort, int remoteIp, long remoteMac, int remotePort, long sndNxt,
                                 long rcvNxt) {
        long window = 256 * 1024;
        return new TcpOffloadContext(true, 0, local.ip & 0xffff_ffffL, localPort, 0, remoteIp & 0xffff_ffffL,
                remotePort, local.mac, remoteMac, 0xffff, 0, false, 0x40, 0, sndNxt, sndNxt, sndNxt, rcvNxt,
                window, window, window, 7, 7, 1460, 2L * 1460, rcvNxt, sndNxt, 6, 0x3fff_ffffL, 8, false);
    }

    /**
     * Rewrites the iWARP half of {@code qp}'s host context through the fw.qp codec (read back, {@code change}d,
     * written again): a context irdma never writes (MPA CRC off, markers), for the tests of what the device does
     * with it. Call it after {@link IwarpConnection#writeContext} and before the move to RTS.
     */
    static void rewriteIwarpHalf(Node n, QueuePair qp, UnaryOperator<IwarpOffloadInfo> change) {
        QpContext ctx = new QpContext().wrap(n.store(), n.off(qp.hostContextAddress()), QpContext.SIZE);
        QpResources r = ctx.readResources();
        QpHostContextInfo info = ctx.readInfo(true, true);
        IwarpOffloadInfo iw = ctx.readIwarp();
        TcpOffloadInfo t = ctx.readTcp();
        ctx.write(r, info, change.apply(iw), t);
    }

    /** {@code w} with MPA CRC off (IRDMAQPC_RCVNOMPACRC), every other field kept. */
    static IwarpOffloadInfo crcOff(IwarpOffloadInfo w) {
        return w.toBuilder().rcvNoMpaCrc(true).build();
    }

    /** {@code w} with MPA markers on both ways (IRDMAQPC_SNDMARKERS / RCVMARKERS), every other field kept. */
    static IwarpOffloadInfo markers(IwarpOffloadInfo w) {
        return w.toBuilder().sndMarkEn(true).rcvMarkEn(true).build();
    }

    /** Runs the simulation until {@code done} holds, at most {@code maxNanos} of simulated time. */
    void runUntil(BooleanSupplier done, long maxNanos) {
        long limit = scheduler.now() + maxNanos;
        while (!done.getAsBoolean()) {
            if (scheduler.nextDeadline() > limit || !scheduler.runNext()) {
                if (done.getAsBoolean()) {
                    return;
                }
                throw new AssertionError("not done after " + maxNanos + " ns of simulated time");
            }
        }
    }

    /** Runs {@code nanos} of simulated time. */
    void run(long nanos) {
        scheduler.runFor(nanos);
    }

    @Override
    public void close() {
        a.close();
        b.close();
    }
}
