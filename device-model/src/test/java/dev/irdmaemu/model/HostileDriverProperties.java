package dev.irdmaemu.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.CqpWqeWriter;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.model.port.EthernetPort;
import dev.irdmaemu.model.ws.WorkSchedulerTree;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Combinators;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterProperty;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Whatever the driver writes, the model answers in its own vocabulary and keeps serving: random WQEs (any opcode,
 * random fields, addresses inside and outside host memory) always complete, random and mutated frames are always
 * accounted for, random register writes never throw. What a driver hands a device raw (WQEs, PBLEs, register
 * writes, WS node ops) is written past any driver on a function brought up by hand ({@link BareFunction}) or past
 * the real driver ({@link DriverNode}); frames and PUDA sends meet a model the real driver brought up, listening.
 */
class HostileDriverProperties {
    private static final long SMALL_RAM = 16L << 20;

    /**
     * The node a property's tries share (jqwik makes one instance per property): the real driver's bring-up costs
     * far more than a try, and a model that keeps serving try after try is the point. Each try checks what it
     * changed against what was there before it.
     */
    private DriverNode node;
    private PudaRings ilq;
    private int realAh = -1;

    private DriverNode listeningNode() {
        if (node == null) {
            node = BringUpTest.listening();
            ilq = PudaRings.ilq(node);
        }
        return node;
    }

    @AfterProperty
    void closeNode() {
        if (node != null) {
            node.close();
        }
    }

    @Provide
    Arbitrary<long[]> wqeWords() {
        Arbitrary<Long> word = Arbitraries.oneOf(
                Arbitraries.longs(),
                Arbitraries.longs().between(0, SMALL_RAM - 1).map(o -> BareFunction.RAM_BASE + (o & ~7L)),
                Arbitraries.longs().between(0, 4096),
                Arbitraries.just(0L));
        return word.array(long[].class).ofSize(8);
    }

    @Property(tries = 150)
    void randomWqesAlwaysCompleteAndTheCqpKeepsServing(@ForAll("wqeWords") long[] words,
                                                        @ForAll @IntRange(min = 0, max = 63) int opcode) {
        try (BareFunction d = new BareFunction(SMALL_RAM)) {
            d.createCqp(64);
            d.bringUpHmcAndCcq(64);
            long o = d.nextWqe();
            for (int i = 0; i < 8; i++) {
                d.store().writeLong(o + i * 8L, words[i]);
            }
            long hdr = words[3] & ~(CqpWqe.OPCODE | CqpWqe.WQEVALID) | (long) opcode << 32
                    | (d.polarity ? CqpWqe.WQEVALID : 0);
            d.store().writeLong(o + CqpWqe.OFF_HEADER, hdr);
            d.ring();
            d.run();
            int index = d.lastIndex;
            if (d.dev.cqs().ccq() != null) {
                BareFunction.Completion c = d.pollCcq();
                assertNotNull(c, "no completion for opcode " + opcode);
                assertEquals(index, c.wqeIndex());
            } else {
                // The random op destroyed the CCQ: the register path still reports it.
                d.ccqLive = false;
            }
            assertEquals(d.head, d.cqpTail());
            BareFunction.Completion nop = d.nop();
            assertFalse(nop.error());
        }
    }

    @Property(tries = 150)
    void randomAndMutatedFramesAreAlwaysAccountedFor(@ForAll @Size(min = 0, max = 300) byte[] noise,
                                                     @ForAll @IntRange(min = 0, max = 120) int flip,
                                                     @ForAll boolean mutate) {
        {
            DriverNode d = listeningNode();
            d.trace.off();
            long frames = d.dev.port().rxFrames();
            LeakCheck.Held held = LeakCheck.snapshot(d.dev);
            BytesStore<?, Void> f = BytesStore.nativeStoreWithFixedCapacity(2048);
            try {
                int len;
                if (mutate) {
                    TcpPacketBuilder b = new TcpPacketBuilder().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE)
                            .ipv4(BringUpTest.REMOTE, BringUpTest.LOCAL);
                    b.tcp().ports(40000, 20000).sequenceNumber(1).flags(TcpHeader.SYN).window(9).mss(1460);
                    len = b.build(f, 0);
                    int at = flip % len;
                    f.writeByte(at, (byte) (f.readByte(at) ^ (noise.length > 0 ? noise[0] | 1 : 0x55)));
                } else {
                    for (int i = 0; i < noise.length; i++) {
                        f.writeByte(i, noise[i]);
                    }
                    len = noise.length;
                }
                d.dev.port().receive(f, 0, len);
                d.run();
                EthernetPort p = d.dev.port();
                assertEquals(frames + 1, p.rxFrames());
                assertEquals(p.rxFrames(), p.rxLan() + p.rxPuda() + p.rxQp() + p.rxDropped());
                // A frame creates nothing the driver would have to tear down.
                LeakCheck.assertNoLeak(held, d.dev, "one received frame");
            } finally {
                f.releaseLast();
            }
        }
    }

    /**
     * Gen2 PUDA sends with a random AH index (the one that exists, one that does not, any 25-bit value), a random
     * L4LEN, length and buffer (a valid SYN with one byte flipped, or noise): each WQE completes exactly once, an
     * error completion puts nothing on the wire, and a frame that does go out has both checksums right.
     */
    @Property(tries = 60)
    void randomPudaSendsCompleteOnceAndOnlyWellFormedFramesLeave(@ForAll @Size(min = 0, max = 300) byte[] noise,
                                                                 @ForAll @IntRange(min = 0, max = 3) int ahKind,
                                                                 @ForAll @IntRange(min = 0, max = 0x1ff_ffff) int ahAny,
                                                                 @ForAll @IntRange(min = 0, max = 15) int l4Words,
                                                                 @ForAll boolean l4OfTheHeader,
                                                                 @ForAll @IntRange(min = 0, max = 400) int flip,
                                                                 @ForAll boolean mutate) {
        {
            DriverNode d = listeningNode();
            if (realAh < 0) {
                // cm.c: ARP entry 0 for the peer, an AH to it through the driver (utils.c irdma_puda_create_ah)
                d.driver.cqp().manageArp(0, BringUpTest.MAC_LOCAL, true);
                realAh = d.driver.addressHandles().create(BringUpTest.MAC_REMOTE, 0, 0, false, 0, 64, true, false,
                        new int[] {BringUpTest.LOCAL}, new int[] {BringUpTest.REMOTE});
            }
            long sends = d.dev.puda().transmitted() + d.dev.puda().transmitErrors();
            int noAh = realAh + 7;
            assertFalse(d.driver.addressHandles().valid(noAh));
            d.trace.off();
            List<Integer> wire = new java.util.ArrayList<>();
            List<Boolean> good = new java.util.ArrayList<>();
            dev.irdmaemu.fw.frame.TcpPacket check = new dev.irdmaemu.fw.frame.TcpPacket();
            d.dev.port().setTransmitter((s, o, l) -> {
                wire.add(l);
                good.add(check.wrap(s, o, l).validate().accepted());
            });
            BytesStore<?, Void> f = BytesStore.nativeStoreWithFixedCapacity(2048);
            try {
                int len;
                if (mutate) {
                    TcpPacketBuilder b = new TcpPacketBuilder().ethernet(BringUpTest.MAC_LOCAL, BringUpTest.MAC_REMOTE)
                            .ipv4(BringUpTest.REMOTE, BringUpTest.LOCAL);
                    b.tcp().ports(20000, 40000).sequenceNumber(1).flags(TcpHeader.SYN).window(9).mss(1460);
                    len = b.build(f, 0);
                    int at = 34 + flip % (len - 34);
                    f.writeByte(at, (byte) (f.readByte(at) ^ (noise.length > 0 ? noise[0] | 1 : 0x55)));
                } else {
                    for (int i = 0; i < noise.length; i++) {
                        f.writeByte(34 + i, noise[i]);
                    }
                    len = 34 + noise.length;
                }
                long buf = d.alloc(2048);
                d.store().write(d.off(buf), f, 34, len - 34);
                // mostly the AH that exists and the L4LEN of the buffer's own header, so that sends do go out
                int ah = ahKind <= 1 ? realAh : ahKind == 2 ? noAh : ahAny;
                int l4 = l4OfTheHeader ? (f.readUnsignedByte(34 + 12) >>> 4) * 4 : l4Words * 4;
                // the send WQE as written (any length, L4LEN, AH), past the driver into its ILQ's SQ
                ilq.send(buf, len - 34, l4, ah);
                d.run();
                dev.irdmaemu.fw.queue.Cqe c = ilq.poll();
                assertNotNull(c, "every send completes");
                assertEquals(true, c.sq());
                assertEquals(null, ilq.poll(), "exactly once");
                net.jqwik.api.statistics.Statistics.collect(c.error() ? "refused" : "sent");
                assertEquals(c.error() ? 0 : 1, wire.size());
                if (!c.error()) {
                    assertEquals(true, good.get(0), "a frame that leaves verifies");
                }
                assertEquals(sends + 1, d.dev.puda().transmitted() + d.dev.puda().transmitErrors());
            } finally {
                f.releaseLast();
            }
        }
    }

    /** A PBLE a hostile driver might write: a RAM page, an address outside RAM, any word, a small index. */
    @Provide
    Arbitrary<long[]> pbleWords() {
        Arbitrary<Long> word = Arbitraries.oneOf(
                Arbitraries.longs().between(0, SMALL_RAM / 4096 - 1).map(p -> BareFunction.RAM_BASE + p * 4096),
                Arbitraries.longs().between(0, 1L << 40).map(p -> BareFunction.UNMAPPED + p),
                Arbitraries.longs(),
                Arbitraries.longs().between(0, 1100));
        return word.array(long[].class).ofSize(12);
    }

    /**
     * PBL chains for Create CQ / Create AEQ with VIRTMAP: random PBLE contents (pages in and outside memory, leaf
     * indexes in and beyond the object), first indexes around the committed count, every LPBLSIZE code the queue
     * ops accept, any ring size. Each op completes (a CQP error or success, never an exception); a ring that is
     * accepted has every page inside host memory; after its destroy nothing is left.
     */
    @Property(tries = 200)
    void hostilePblChainsForCqsAndTheAeqAreAnsweredAndLeaveNothing(
            @ForAll("pbleWords") long[] pbles, @ForAll @IntRange(min = 0, max = 1100) int firstPble,
            @ForAll @IntRange(min = 0, max = 2) int chunk, @ForAll @IntRange(min = 0, max = 40_000) int entries,
            @ForAll boolean aeq) {
        try (BareFunction d = new BareFunction(SMALL_RAM)) {
            d.createCqp(64);
            d.bringUpHmcAndCcq(64);
            long base = d.committedBase.get(dev.irdmaemu.fw.hmc.HmcObjectType.PBLE);
            long count = d.committedCount.get(dev.irdmaemu.fw.hmc.HmcObjectType.PBLE);
            for (int i = 0; i < pbles.length; i++) {
                long index = Math.min(count - 1, firstPble + i);
                d.store().writeLong(d.off(d.hmcAddress(dev.irdmaemu.fw.hmc.PbleLayout.fpmAddress(base, index))),
                        pbles[i]);
            }
            LeakCheck.Held held = LeakCheck.snapshot(d.dev);
            BareFunction.Completion c;
            dev.irdmaemu.model.hmc.RingPages ring;
            if (aeq) {
                d.eqf.clear();
                d.eqf.elementCount = entries;
                d.eqf.virtualMap = true;
                d.eqf.pblChunkSize = chunk;
                d.eqf.firstPmPblIndex = firstPble;
                d.post((o, v) -> CqpWqeWriter.createAeq(d.store(), o, d.eqf, v));
                c = d.completion();
                ring = d.dev.aeq().ringPages();
                assertEquals(!c.error(), d.dev.aeq().live());
            } else {
                d.cqf.clear();
                d.cqf.cqId = 5;
                d.cqf.cqSize = entries;
                d.cqf.shadowAreaAddress = d.alloc(64);
                d.cqf.virtualMap = true;
                d.cqf.pblChunkSize = chunk;
                d.cqf.firstPmPblIndex = firstPble;
                d.post((o, v) -> CqpWqeWriter.createCq(d.store(), o, d.cqf, v));
                c = d.completion();
                ring = c.error() ? null : d.dev.cqs().get(5).ringPages();
                assertEquals(!c.error(), d.dev.cqs().get(5) != null && d.dev.cqs().get(5).live());
            }
            net.jqwik.api.statistics.Statistics.collect(c.error() ? "refused" : "accepted");
            if (!c.error()) {
                assertTrue(chunk == 1 || chunk == 2);
                for (int i = 0; i < ring.pageCount(); i++) {
                    assertTrue(d.dev.memory().contains(ring.page(i), 1), "page " + i + " inside host memory");
                }
                if (aeq) {
                    d.eqf.clear();
                    d.post((o, v) -> CqpWqeWriter.destroyAeq(d.store(), o, d.eqf, v));
                } else {
                    d.cqf.clear();
                    d.cqf.cqId = 5;
                    d.post((o, v) -> CqpWqeWriter.destroyCq(d.store(), o, d.cqf, v));
                }
                assertFalse(d.completion().error());
            } else {
                assertTrue(c.minor() == CqpFault.INVALID_FIELD.minor() || c.minor() == CqpFault.DMA_FAULT.minor()
                        || c.minor() == CqpFault.INDEX_OUT_OF_RANGE.minor()
                        || c.minor() == CqpFault.HMC_NOT_READY.minor(), "minor 0x" + Integer.toHexString(c.minor()));
            }
            assertFalse(d.nop().error(), "the CQP keeps serving");
            LeakCheck.assertNoLeak(held, d.dev, "a hostile PBL chain");
        }
        // both answers are exercised, not only refusals
        net.jqwik.api.statistics.Statistics.coverage(cov -> {
            cov.check("accepted").count(n -> n > 0);
            cov.check("refused").count(n -> n > 0);
        });
    }

    @Provide
    Arbitrary<Long> offsets() {
        Arbitrary<Long> known = Arbitraries.of(Gen2Register.values()).filter(Gen2Register::isRegister)
                .map(r -> (long) r.offset());
        return Arbitraries.oneOf(known, Arbitraries.longs().between(0, 16L << 20), Arbitraries.longs());
    }

    @Property(tries = 300)
    void randomRegisterAccessesNeverThrow(@ForAll("offsets") long offset, @ForAll int value) {
        try (BareFunction d = new BareFunction(SMALL_RAM)) {
            d.createCqp(64);
            LeakCheck.Held held = LeakCheck.snapshot(d.dev);
            d.dev.write32(offset, value);
            d.dev.read32(offset);
            d.dev.write64(offset, (long) value << 32 | (value & 0xffff_ffffL));
            d.run();
            d.dev.read64(offset);
            LeakCheck.assertNoLeak(held, d.dev, "register accesses at 0x" + Long.toHexString(offset));
        }
    }

    /** One Work scheduler node WQE: node op 0..3 (3 names none), ids around a small tree and beyond the id space. */
    record WsOp(int op, int id, int parent, boolean leaf, boolean enable, int prio, int tc, int weight) {
    }

    @Provide
    Arbitrary<List<WsOp>> wsOps() {
        Arbitrary<Integer> ids = Arbitraries.oneOf(Arbitraries.integers().between(0, 6),
                Arbitraries.of(WorkSchedulerTree.MAX_WS_NODES - 1, WorkSchedulerTree.MAX_WS_NODES, 0x3fff));
        Arbitrary<WsOp> op = Combinators.combine(Arbitraries.integers().between(0, 3), ids, ids,
                Arbitraries.of(true, false), Arbitraries.of(true, false), Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(0, 7), Arbitraries.integers().between(0, 2)).as(WsOp::new);
        return op.list().ofMaxSize(40);
    }

    /**
     * Random Work scheduler node sequences: every op completes (OK or a CQP error), a refused op changes nothing,
     * live leaves always hold distinct qs_handles and no handle is held by anything else, and once the driver
     * deletes what is left (children first) the tree and the handle pool are empty.
     */
    @Property(tries = 100)
    void randomWorkSchedulerOpsKeepTheTreeConsistentAndLeakNothing(@ForAll("wsOps") List<WsOp> ops) {
        {
            DriverNode d = listeningNode();
            // ws.c irdma_ws_remove: the tree of the driver's bring-up goes first (a no-op after the first try, whose
            // teardown below left it empty), the ops build their own
            d.driver.workScheduler().remove();
            d.trace.off();
            LeakCheck.Held held = LeakCheck.snapshot(d.dev);
            WorkSchedulerTree t = d.dev.workScheduler();
            for (WsOp w : ops) {
                int before = t.liveCount();
                DriverNode.Completion c = post(d, w);
                if (c.error()) {
                    assertEquals(CqpFault.INVALID_FIELD.major(), c.major());
                    assertEquals(before, t.liveCount(), "a refused op changes nothing");
                } else if (w.op() == CqpWqe.WS_NODE_OP_ADD && w.leaf()) {
                    assertEquals(t.qsHandle(w.id()), c.opReturn());
                }
                Set<Integer> handles = new HashSet<>();
                int leaves = 0;
                for (int id = 0; id < WorkSchedulerTree.MAX_WS_NODES; id++) {
                    if (t.leaf(id)) {
                        leaves++;
                        assertEquals(true, handles.add(t.qsHandle(id)), "qs_handle shared");
                    }
                }
                assertEquals(leaves, t.qsHandlesInUse());
            }
            // tear down bottom up, as ws.c irdma_remove_leaf would
            for (int pass = 0; pass < 3 && t.liveCount() > 0; pass++) {
                for (int id = 0; id < WorkSchedulerTree.MAX_WS_NODES; id++) {
                    if (t.live(id) && t.leaf(id)) {
                        assertFalse(post(d, new WsOp(2, id, 0, false, false, 0, 0, 0)).error());
                    }
                }
                for (int id = WorkSchedulerTree.MAX_WS_NODES - 1; id >= 0; id--) {
                    if (t.live(id) && !t.root().equals(OptionalInt.of(id))) {
                        post(d, new WsOp(2, id, 0, false, false, 0, 0, 0));
                    }
                }
                if (t.root().isPresent()) {
                    post(d, new WsOp(2, t.root().getAsInt(), 0, false, false, 0, 0, 0));
                }
            }
            assertEquals(0, t.liveCount());
            LeakCheck.assertNoLeak(held, d.dev, "work scheduler ops " + ops);
            d.driver.cqp().nop();
        }
    }

    private static DriverNode.Completion post(DriverNode d, WsOp w) {
        return d.op("WORK_SCHED_NODE", (o, v) -> CqpWqeWriter.workSchedNode(d.store(), o, w.op(), w.id(), w.parent(),
                w.leaf(), w.enable(), w.prio(), w.tc(), 0, w.weight(), v));
    }
}
