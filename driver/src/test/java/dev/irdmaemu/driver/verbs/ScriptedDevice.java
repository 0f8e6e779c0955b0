package dev.irdmaemu.driver.verbs;

import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.bus.InterruptSink;
import dev.irdmaemu.fw.bus.Mmio;
import dev.irdmaemu.fw.cqp.CqpCompletion;
import dev.irdmaemu.fw.cqp.CqpHostContext;
import dev.irdmaemu.fw.cqp.CqpOpcode;
import dev.irdmaemu.fw.cqp.CqpWqe;
import dev.irdmaemu.fw.cqp.RdmaFeatureBuffer;
import dev.irdmaemu.fw.hmc.FpmCommitBuffer;
import dev.irdmaemu.fw.hmc.FpmQueryBuffer;
import dev.irdmaemu.fw.hmc.HmcObjectType;
import dev.irdmaemu.fw.queue.Aeqe;
import dev.irdmaemu.fw.queue.Ceqe;
import dev.irdmaemu.fw.reg.Gen2Register;
import dev.irdmaemu.fw.reg.Gen2Registers;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A test double of the device for the driver module (which cannot see the model): it answers the registers the driver's
 * probe polls, completes every CQP WQE at once (through PFPE_CQPTAIL before the CCQ exists, in the CCQ after),
 * fills the Query / Commit FPM buffers, records every WQE it was given (64 bytes each) and every doorbell, fails
 * the ops a test scripts to fail, and raises AEQEs and CEQEs a test asks for. It does nothing else: no data path.
 */
final class ScriptedDevice implements Mmio {
    /** One CQP WQE as the driver posted it. */
    record Op(CqpOpcode opcode, byte[] bytes) {
        long qword(int index) {
            long v = 0;
            for (int i = 7; i >= 0; i--) {
                v = v << 8 | (bytes[index * 8 + i] & 0xffL);
            }
            return v;
        }

        CqpWqe wqe() {
            return new CqpWqe().wrap(BytesStore.wrap(bytes), 0);
        }
    }

    private final HostRam ram;
    private final BytesStore<?, ?> store;
    private InterruptSink irq = InterruptSink.NONE;
    private long hostContext;
    private long cqpSq;
    private int cqpSize;
    private long completionContext;
    private boolean cqpCreated;
    private int tail;
    private int errCodes;
    private boolean tailError;
    private long ccqRing;
    private int ccqSize;
    private int ccqHead;
    private boolean ccqPolarity = true;
    private long aeqRing;
    private int aeqSize;
    private int aeqHead;
    private boolean aeqPolarity = true;
    private long ceqRing;
    private int ceqSize;
    private int ceqHead;
    private boolean ceqPolarity = true;
    private int high;
    final List<Op> ops = new ArrayList<>();
    /** PFHMC_PDINV values written, in order. */
    final List<Integer> pdInvalidations = new ArrayList<>();
    /** Whether PD invalidations had been written when the last Update PE SDs arrived. */
    boolean pdInvalidationsBeforeLastSdUpdate;
    private long pbleMax = 1 << 18;
    private boolean pbleSdAligned;
    private boolean zeroQ1Block;
    private long farBase;
    /** PFPE_WQEALLOC / PFPE_CQARM writes: how many, and the last value (counters: the data path allocates nothing). */
    int sqDoorbells;
    int lastSqDoorbell = -1;
    int cqArms;
    private boolean ccqArmed;
    int lastCqArm = -1;
    private final Map<CqpOpcode, int[]> failures = new EnumMap<>(CqpOpcode.class);
    private final Map<CqpOpcode, Integer> returnMinor = new EnumMap<>(CqpOpcode.class);

    ScriptedDevice(HostRam ram) {
        this.ram = ram;
        this.store = ram.store();
    }

    void interrupts(InterruptSink sink) {
        this.irq = sink;
    }

    /**
     * Answer {@code max} PBLEs and place the PBLE object after every other one, at the start of an SD of its own
     * (pble.c's new-SD cases).
     */
    void pbleAtSdBoundary(long max) {
        pbleMax = max;
        pbleSdAligned = true;
    }

    /** Answer Query FPM without a Q1 block size (irdma_sc_parse_fpm_query_buf's -EINVAL). */
    void zeroQ1BlockSize() {
        zeroQ1Block = true;
    }

    /** Answer Commit FPM with the last object type placed at {@code base}, far beyond the SDs the query offered. */
    void commitLastObjectAt(long base) {
        farBase = base;
    }

    /** The next {@code times} ops of {@code op} fail with {@code major} / {@code minor}. */
    void fail(CqpOpcode op, int times, int major, int minor) {
        failures.put(op, new int[] {times, major, minor});
    }

    /** Successful completions of {@code op} carry {@code minor} (Flush WQEs reports what it flushed there). */
    void completeWithMinor(CqpOpcode op, int minor) {
        returnMinor.put(op, minor);
    }

    List<Op> ops(CqpOpcode op) {
        return ops.stream().filter(o -> o.opcode() == op).toList();
    }

    Op last(CqpOpcode op) {
        List<Op> l = ops(op);
        return l.isEmpty() ? null : l.get(l.size() - 1);
    }

    @Override
    public int read32(long offset) {
        if (offset == Gen2Register.GLPE_CPUSTATUS0.offset() || offset == Gen2Register.GLPE_CPUSTATUS1.offset()
                || offset == Gen2Register.GLPE_CPUSTATUS2.offset()) {
            return 0x80;
        }
        if (offset == Gen2Register.CCQPSTATUS.offset()) {
            return Gen2Registers.ccqpStatus(cqpCreated, false);
        }
        if (offset == Gen2Register.CQPTAIL.offset()) {
            return Gen2Registers.cqpTail(tail, tailError);
        }
        if (offset == Gen2Register.CQPERRCODES.offset()) {
            return errCodes;
        }
        return 0;
    }

    @Override
    public void write32(long offset, int value) {
        if (offset == Gen2Register.CCQPHIGH.offset()) {
            high = value;
        } else if (offset == Gen2Register.CCQPLOW.offset()) {
            hostContext = Gen2Registers.hostContextAddress(high, value);
            CqpHostContext c = new CqpHostContext().wrap(store, ram.offsetOf(hostContext));
            cqpSq = c.sqBase();
            cqpSize = 2048;
            completionContext = c.completionContext();
            cqpCreated = true;
        } else if (offset == Gen2Register.CQPDB.offset()) {
            int head = value & 0x7ff;
            while (tail != head) {
                execute(tail);
                tail = (tail + 1) % cqpSize;
            }
        } else if (offset == Gen2Register.WQEALLOC.offset()) {
            sqDoorbells++;
            lastSqDoorbell = Gen2Registers.wqeAllocQpId(value);
        } else if (offset == Gen2Register.CQARM.offset()) {
            cqArms++;
            lastCqArm = value;
            if (value == 0) {
                ccqArmed = true;
            }
        } else if (offset == Gen2Register.PFHMC_PDINV.offset()) {
            pdInvalidations.add(value);
        }
    }

    private void execute(int index) {
        long o = ram.offsetOf(cqpSq + (long) index * CqpWqe.SIZE);
        byte[] b = new byte[CqpWqe.SIZE];
        store.read(o, b, 0, CqpWqe.SIZE);
        CqpOpcode op = CqpOpcode.of((int) (store.readLong(o + CqpWqe.OFF_HEADER) >>> 32 & 0x3f));
        ops.add(new Op(op, b));
        if (op == CqpOpcode.UPDATE_PE_SDS) {
            pdInvalidationsBeforeLastSdUpdate = !pdInvalidations.isEmpty();
        }
        CqpWqe w = new CqpWqe().wrap(store, o);
        int[] f = failures.get(op);
        if (f != null && f[0] > 0) {
            f[0]--;
            complete(index, true, f[1], f[2]);
            return;
        }
        switch (op) {
            case QUERY_FPM_VAL -> queryFpm(w.fpmBufferAddress());
            case COMMIT_FPM_VAL -> commitFpm(w.fpmBufferAddress());
            case QUERY_RDMA_FEATURES -> queryRdmaFeatures(w.featuresBufferAddress(), w.featuresBufferLength());
            case CREATE_CQ -> {
                if (w.cqId() == 0) {
                    ccqRing = w.cqAddress();
                    ccqSize = (int) w.cqSize();
                }
            }
            case CREATE_AEQ -> {
                aeqRing = w.eqAddress();
                aeqSize = w.eqElementCount();
            }
            case CREATE_CEQ -> {
                ceqRing = w.eqAddress();
                ceqSize = w.eqElementCount();
            }
            default -> {
            }
        }
        complete(index, false, 0, returnMinor.getOrDefault(op, 0));
    }

    private void complete(int index, boolean error, int major, int minor) {
        if (ccqRing == 0) {
            tailError = error;
            errCodes = Gen2Registers.cqpErrCodes(major, minor);
            return;
        }
        CqpCompletion.write(store, ram.offsetOf(ccqRing + (long) ccqHead * CqpCompletion.SIZE), completionContext, 0,
                index, error, major, minor, ccqPolarity);
        ccqHead++;
        if (ccqHead == ccqSize) {
            ccqHead = 0;
            ccqPolarity = !ccqPolarity;
        }
        if (ccqArmed && ceqRing != 0) {
            // an armed CCQ's completion raises a CEQE for CQ 0 (the driver's completion handler runs from it)
            ccqArmed = false;
            raiseCeqe(0);
        }
    }

    /**
     * A small device: 1024 QPs, objects sized so that irdma_cfg_fpm_val's arithmetic commits in one round within 12
     * SDs, of which the driver backs about 8 (16 MiB of the rig's 32 MiB) with direct SDs.
     */
    static final int MAX_PE_SDS = 12;

    private long maxCount(HmcObjectType t) {
        return switch (t) {
            case QP -> 1024;
            case SRQ -> 0;
            case XF, Q1 -> 1 << 18;
            case RRF, OOISC -> 1 << 15;
            case XFFL, Q1FL -> 1 << 12;
            case RRFFL, OOISCFFL -> 1 << 9;
            case PBLE -> pbleMax;
            case FSIMC, FSIAV, TIMER -> 256;
            default -> 8192;
        };
    }

    /** log2 of each object's size (the free lists, PBLE and APBVT have the driver's fixed sizes). */
    private static int sizeLog2(HmcObjectType t) {
        return switch (t) {
            case QP -> 9;
            case XF, Q1 -> 3;
            case XFFL, Q1FL, RRFFL, OOISCFFL -> 2;
            case RRF, OOISC -> 4;
            case PBLE -> 3;
            case APBVT_ENTRY -> 13;
            default -> 6;
        };
    }

    private void queryFpm(long buffer) {
        long o = ram.offsetOf(buffer);
        FpmQueryBuffer.clear(store, o);
        FpmQueryBuffer.writeSdInfo(store, o, 0, MAX_PE_SDS);
        for (HmcObjectType t : HmcObjectType.values()) {
            long sizeOrBlock = switch (t.queryEncoding()) {
                case FREE_LIST -> t == HmcObjectType.Q1FL && zeroQ1Block ? 0 : 64;
                case COUNT_AND_LOG2_SIZE -> sizeLog2(t);
                default -> 0;
            };
            FpmQueryBuffer.writeObject(store, o, t, maxCount(t), sizeOrBlock);
        }
        FpmQueryBuffer.writeMisc(store, o, 16, 4, 16, 0);
    }

    /** The two entries irdma_get_rdma_features needs at least: FW_INFO (count 2, FW 1.0) and HW_VERSION_INFO. */
    private void queryRdmaFeatures(long buffer, long length) {
        long o = ram.offsetOf(buffer);
        RdmaFeatureBuffer.write(store, o, (int) length, 0, RdmaFeatureBuffer.firstEntry(2, 1, 0));
        RdmaFeatureBuffer.write(store, o, (int) length, 1, RdmaFeatureBuffer.entry(RdmaFeatureBuffer.HW_VERSION_INFO,
                2));
    }

    private void commitFpm(long buffer) {
        long o = ram.offsetOf(buffer);
        long base = 0;
        long[] want = new long[HmcObjectType.values().length];
        for (HmcObjectType t : HmcObjectType.values()) {
            want[t.ordinal()] = t == HmcObjectType.APBVT_ENTRY ? 1 : store.readLong(o + t.commitOffset());
        }
        for (HmcObjectType t : HmcObjectType.values()) {
            long count = want[t.ordinal()];
            if (t == HmcObjectType.PBLE && pbleSdAligned) {
                continue;
            }
            if (t == HmcObjectType.OOISCFFL && farBase != 0) {
                base = farBase;
            }
            FpmCommitBuffer.writeCommitted(store, o, t, t == HmcObjectType.APBVT_ENTRY ? 0 : count, base);
            base += (count * (1L << sizeLog2(t)) + 511) / 512 * 512;
        }
        if (pbleSdAligned) {
            // PBLE last, alone from the start of an SD: no other object shares its SD
            base = (base + FpmCommitBuffer.SD_SPAN - 1) / FpmCommitBuffer.SD_SPAN * FpmCommitBuffer.SD_SPAN;
            FpmCommitBuffer.writeCommitted(store, o, HmcObjectType.PBLE, want[HmcObjectType.PBLE.ordinal()], base);
        }
    }

    /** Writes an AEQE at the AEQ's head and raises the AEQ's vector (0). */
    void raiseAe(int qpId, int aeCode, int source, int iwarpState, int tcpState, int q2Data) {
        long o = ram.offsetOf(aeqRing + (long) aeqHead * Aeqe.SIZE);
        new Aeqe().wrap(store, o, Aeqe.SIZE).write(0, qpId, aeCode, source, iwarpState, tcpState, 0, q2Data, false,
                aeqPolarity);
        aeqHead++;
        if (aeqHead == aeqSize) {
            aeqHead = 0;
            aeqPolarity = !aeqPolarity;
        }
        irq.raise(0);
    }

    /** Writes a CEQE naming {@code cqId} and raises CEQ 0's vector (1). */
    void raiseCeqe(int cqId) {
        long o = ram.offsetOf(ceqRing + (long) ceqHead * Ceqe.SIZE);
        new Ceqe().wrap(store, o, Ceqe.SIZE).write(cqId, ceqPolarity);
        ceqHead++;
        if (ceqHead == ceqSize) {
            ceqHead = 0;
            ceqPolarity = !ceqPolarity;
        }
        irq.raise(1);
    }
}
