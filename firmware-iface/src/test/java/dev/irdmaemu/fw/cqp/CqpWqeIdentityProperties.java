package dev.irdmaemu.fw.cqp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.fw.Draws;
import dev.irdmaemu.fw.hmc.SegmentDescriptor;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The hostile-host direction: random WQEs (random quadwords restricted to the op's fields, some zeroed, opcode
 * forced) that {@link CqpWqe#validate()} accepts are exactly what the ctrl.c writer produces for the fields the
 * accessors read. So an accepted WQE carries nothing the model would silently ignore, and the accessors lose no
 * bit the validation let through.
 */
class CqpWqeIdentityProperties {
    private final CqpWqe w = new CqpWqe();
    private final BytesStore<?, ?> in = Wqes.heap(64);
    private final BytesStore<?, ?> out = Wqes.heap(64);
    private final BytesStore<?, ?> sdBuffer = Wqes.heap(128);
    private final QpOpFields qp = new QpOpFields();
    private final CqOpFields cq = new CqOpFields();
    private final EqOpFields eq = new EqOpFields();
    private final QhashFields qhash = new QhashFields();
    private final StagFields stag = new StagFields();
    private final QpFlushFields flush = new QpFlushFields();
    private final long[] cmds = new long[11];
    private final long[] datas = new long[11];

    @Provide
    Arbitrary<CqpOpcode> modelled() {
        return Arbitraries.of(CqpOpcode.class).filter(CqpOpcode::modelled);
    }

    private void reencode(CqpOpcode op, boolean valid) {
        switch (op) {
            case CREATE_QP -> CqpWqeWriter.createQp(out, 0, qp.readFrom(w), valid);
            case MODIFY_QP -> CqpWqeWriter.modifyQp(out, 0, qp.readFrom(w), valid);
            case DESTROY_QP -> CqpWqeWriter.destroyQp(out, 0, qp.readFrom(w), valid);
            case CREATE_CQ -> CqpWqeWriter.createCq(out, 0, cq.readFrom(w), valid);
            case MODIFY_CQ -> CqpWqeWriter.modifyCq(out, 0, cq.readFrom(w), valid);
            case DESTROY_CQ -> CqpWqeWriter.destroyCq(out, 0, cq.readFrom(w), valid);
            case CREATE_CEQ -> CqpWqeWriter.createCeq(out, 0, eq.readFrom(w), valid);
            case DESTROY_CEQ -> CqpWqeWriter.destroyCeq(out, 0, eq.readFrom(w), valid);
            case CREATE_AEQ -> CqpWqeWriter.createAeq(out, 0, eq.readFrom(w), valid);
            case DESTROY_AEQ -> CqpWqeWriter.destroyAeq(out, 0, eq.readFrom(w), valid);
            case MANAGE_QUAD_HASH_TABLE_ENTRY -> CqpWqeWriter.manageQhash(out, 0, qhash.readFrom(w), valid);
            case MANAGE_APBVT -> CqpWqeWriter.manageApbvt(out, 0, w.apbvtPort(), w.apbvtAdd(), valid);
            case MANAGE_ARP -> {
                if (w.arpEntryValid()) {
                    CqpWqeWriter.addArpEntry(out, 0, w.arpIndex(), w.arpReachMax(), w.arpMac(), w.arpPermanent(),
                            valid);
                } else {
                    CqpWqeWriter.deleteArpEntry(out, 0, w.arpIndex(), valid);
                }
            }
            case ALLOC_STAG -> {
                if (w.stagMr()) {
                    CqpWqeWriter.allocStag(out, 0, stag.readFrom(w), valid);
                } else {
                    CqpWqeWriter.allocMw(out, 0, stag.readFrom(w), valid);
                }
            }
            case REG_MR -> CqpWqeWriter.registerMr(out, 0, stag.readFrom(w), valid);
            case DEALLOC_STAG -> CqpWqeWriter.deallocStag(out, 0, stag.readFrom(w), valid);
            case QUERY_FPM_VAL -> CqpWqeWriter.queryFpm(out, 0, w.fpmHmcFnId(), w.fpmBufferAddress(), valid);
            case COMMIT_FPM_VAL -> CqpWqeWriter.commitFpm(out, 0, w.fpmHmcFnId(), w.fpmBufferAddress(),
                    w.fpmScratchBufferPresent(), valid);
            case UPDATE_PE_SDS -> {
                int n = w.sdTotalCount();
                for (int i = 0; i < n; i++) {
                    cmds[i] = i < 3 ? w.sdEntryCommand(i) : 0;
                    datas[i] = i < 3 ? w.sdEntryData(i) : 0;
                }
                CqpWqeWriter.updatePeSds(out, 0, w.sdHmcFnId(), cmds, datas, n, w.sdBufferAddress(), sdBuffer, 0,
                        valid);
            }
            case NOP -> CqpWqeWriter.nop(out, 0, valid);
            case FLUSH_WQES -> CqpWqeWriter.flushWqes(out, 0, flush.readFrom(w), valid);
            case QUERY_RDMA_FEATURES -> CqpWqeWriter.queryRdmaFeatures(out, 0, w.featuresBufferAddress(),
                    w.featuresBufferLength(), valid);
            case SHMC_PAGES_ALLOCATED -> CqpWqeWriter.staticHmcPagesAllocated(out, 0, w.shmcHmcFnId(), valid);
            case WORK_SCHED_NODE -> CqpWqeWriter.workSchedNode(out, 0, w.wsNodeOp(), w.wsNodeId(), w.wsParentId(),
                    w.wsLeaf(), w.wsEnable(), w.wsPrioType(), w.wsTrafficClass(), w.wsVsi(), w.wsWeight(), valid);
            case CREATE_ADDR_HANDLE, MODIFY_ADDR_HANDLE, DESTROY_ADDR_HANDLE -> {
                int[] dest = new int[4];
                int[] src = new int[4];
                for (int i = 0; i < 4; i++) {
                    dest[i] = w.ahDestIp(i);
                    src[i] = w.ahSrcIp(i);
                }
                CqpWqeWriter.addressHandle(out, 0, op, w.ahIndex(), w.ahMac(), w.ahPdIndex(), w.ahTcTos(),
                        w.ahVlanTag(), w.ahInsertVlanTag(), w.ahArpIndex(), w.ahFlowLabel(), w.ahHopLimit(),
                        w.ahIpv4(), w.ahLoopback(), dest, src, valid);
            }
            case GATHER_STATS -> CqpWqeWriter.gatherStats(out, 0, w.statsBufferAddress(), w.statsHmcFnIndex(),
                    w.statsUseHmcFnIndex(), w.statsUseInstance(), w.statsInstanceIndex(), valid);
            default -> throw new AssertionError("no writer for " + op);
        }
    }

    /**
     * Makes the random WQE internally consistent where a purely random one almost never is (the CQ id's two
     * copies, well-formed SD entries, the commit buffer size, the
     * address words an IPv4 or listen entry leaves empty, the MR / memory-window flag split of Alloc STag), so that those ops reach the re-encoding check too.
     */
    private void shape(CqpOpcode op, Draws r) {
        long h = in.readLong(24);
        switch (op) {
            case CREATE_CQ, MODIFY_CQ, DESTROY_CQ -> {
                long id = in.readLong(8);
                long idBits = op == CqpOpcode.CREATE_CQ ? CqpWqe.CQ_CQID | CqpWqe.CQ_CQID_HIGH : CqpWqe.CQ_HDR_RAW_CQID;
                in.writeLong(24, h & ~idBits | CqpWqe.cqHeaderCqIdFor(op, id));
            }
            case UPDATE_PE_SDS -> {
                for (int i = 0; i < 3; i++) {
                    int at = CqpWqe.sdCommandOffset(i);
                    boolean present = i == 0 || (in.readLong(at) & CqpWqe.UPESD_ENTRY_VALID) != 0;
                    if (present) {
                        boolean direct = r.nextBoolean();
                        long page = r.nextLong() & (direct ? 0xffff_ffe0_0000L : 0xffff_ffff_f000L);
                        in.writeLong(at, SegmentDescriptor.command(r.nextInt(8192))
                                | (i == 0 ? 0 : CqpWqe.UPESD_ENTRY_VALID));
                        in.writeLong(at + 8, r.nextBoolean() ? SegmentDescriptor.setData(page, direct)
                                : SegmentDescriptor.clearData(direct));
                    } else {
                        in.writeLong(at, 0);
                        in.writeLong(at + 8, 0);
                    }
                }
                boolean full = (in.readLong(32) & in.readLong(48) & CqpWqe.UPESD_ENTRY_VALID) != 0;
                int buffered = full && r.nextBoolean() ? 1 + r.nextInt(8) : 0;
                in.writeLong(24, h & ~CqpWqe.UPESD_ENTRY_COUNT | buffered);
                in.writeLong(16, (buffered > 0 ? r.nextLong() & CqpWqe.UPESD_BUFFER | 0x80 : 0) | r.nextInt(64));
            }
            case MANAGE_QUAD_HASH_TABLE_ENTRY -> {
                boolean v4 = (h & CqpWqe.QHASH_IPV4VALID) != 0;
                boolean established = (h & CqpWqe.QHASH_ENTRYTYPE) == 1L << 42;
                if (v4) {
                    in.writeLong(56, 0);
                    in.writeLong(48, in.readLong(48) & CqpWqe.ADDR_LO);
                    in.writeLong(40, 0);
                    in.writeLong(32, in.readLong(32) & CqpWqe.ADDR_LO);
                }
                if (!established) {
                    in.writeLong(40, 0);
                    in.writeLong(32, 0);
                    in.writeLong(8, in.readLong(8) & ~CqpWqe.QHASH_SRC_PORT);
                }
            }
            case CREATE_ADDR_HANDLE, MODIFY_ADDR_HANDLE, DESTROY_ADDR_HANDLE -> {
                if ((h & CqpWqe.AH_IPV4VALID) != 0) {
                    in.writeLong(56, 0);
                    in.writeLong(48, in.readLong(48) & CqpWqe.ADDR_LO);
                    in.writeLong(40, 0);
                    in.writeLong(32, in.readLong(32) & CqpWqe.ADDR_LO);
                }
            }
            case COMMIT_FPM_VAL -> in.writeLong(24, h & ~CqpWqe.BUFSIZE | CqpWqe.COMMIT_FPM_BUF_SIZE);
            case REG_MR -> in.writeLong(24, h | CqpWqe.STAG_MR);
            case ALLOC_STAG -> {
                if ((h & CqpWqe.STAG_MR) != 0) {
                    in.writeLong(24, h & ~(CqpWqe.STAG_MWTYPE | CqpWqe.STAG_MW1_BIND_DONT_VLDT_KEY));
                } else {
                    in.writeLong(24, h & (CqpWqe.OPCODE | CqpWqe.WQEVALID | CqpWqe.STAG_MWTYPE
                            | CqpWqe.STAG_MW1_BIND_DONT_VLDT_KEY));
                    in.writeLong(8, in.readLong(8) & CqpWqe.STAG_PDID);
                    in.writeLong(40, 0);
                    in.writeLong(48, 0);
                }
            }
            default -> {
            }
        }
    }

    @Property(tries = 4000)
    void acceptedWqesAreWhatTheDriverWrites(@ForAll("modelled") CqpOpcode op, @ForAll("draws") Draws r) {
        for (int i = 0; i < 8; i++) {
            // each non-header quadword is zero one time in two, so that sparse, plausible WQEs are reached
            long v = i != 3 && r.nextBoolean() ? 0 : r.nextLong() & CqpWqe.usedBits(op, i);
            if (i == 3) {
                v = v & ~CqpWqe.OPCODE | (long) op.code() << 32;
            }
            in.writeLong(8L * i, v);
        }
        shape(op, r);
        w.wrap(in, 0);
        boolean accepted = w.validate().accepted();
        Statistics.label("accepted").collect(op, accepted);
        // not vacuous: every op reaches the re-encoding check on a good share of its tries
        Statistics.label("accepted").coverage(c -> {
            for (CqpOpcode o : CqpOpcode.values()) {
                if (o.modelled()) {
                    c.check(o, true).count(n -> n >= 5);
                }
            }
        });
        if (!accepted) {
            return;
        }
        reencode(op, w.valid());
        Wqes.assertQwords(Wqes.qwords(in, 0, 8), out, 0);
        assertEquals(CqpWqeCheck.ACCEPTED, w.wrap(out, 0).validate());
    }

    /** Random choices jqwik shrinks (see {@link Draws}): 48, more than any property here reads. */
    @Provide
    Arbitrary<Draws> draws() {
        return Draws.of(48);
    }
}
