package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.*;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.Trace;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever ice (or a broken driver) writes to the register block and the admin queue ring, nothing throws and ATQH
 * / ARQH stay inside their ring while it is enabled.
 */
class IceFirmwareProperties {
    private static final int[] REGS = {PF_FW_ATQBAL, PF_FW_ATQBAH, PF_FW_ATQLEN, PF_FW_ATQH, PF_FW_ATQT,
        PF_FW_ARQBAL, PF_FW_ARQBAH, PF_FW_ARQLEN, PF_FW_ARQH, PF_FW_ARQT, PF_MBX_ATQLEN, PF_MBX_ATQT, PF_MBX_ATQH,
        PFGEN_CTRL, PFINT_FW_CTL, PFINT_OICR_CTL, PFINT_OICR_ENA, PFINT_OICR, PFPM_WUS, GLNVM_FLA, 0x0042_0000,
        0x0016_0000, 0x7FFF_FFFC};
    private static final int[] OPCODES = AqOpcode.all();

    /** One hostile action: kind 0 register write, 1 descriptor into the ring then doorbell, 2 event, 3 link. */
    record Op(int kind, int reg, int value, int slot, int opcode, int flags, int datalen, long addr, long p0) {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Integer> value = Arbitraries.oneOf(Arbitraries.integers(),
                Arbitraries.integers().between(0, 1100),
                Arbitraries.integers().between(0, 1100).map(v -> v | QLEN_ENABLE_M),
                Arbitraries.just(IceLikeDriver.AQ_LEN | QLEN_ENABLE_M));
        Arbitrary<Long> addr = Arbitraries.oneOf(Arbitraries.longs(),
                Arbitraries.longs().between(0x1_0000_0000L, 0x1_0040_0000L),
                Arbitraries.just(0L));
        return Combinators.combine(
                Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(0, REGS.length - 1),
                value,
                Arbitraries.integers().between(0, 1023),
                Arbitraries.oneOf(Arbitraries.of(toList(OPCODES)), Arbitraries.integers().between(0, 0xFFFF)),
                Arbitraries.oneOf(Arbitraries.integers().between(0, 0xFFFF),
                        Arbitraries.of(AqDescriptor.SI, AqDescriptor.SI | AqDescriptor.BUF,
                                AqDescriptor.SI | AqDescriptor.BUF | AqDescriptor.LB | AqDescriptor.RD)),
                Arbitraries.oneOf(Arbitraries.integers().between(0, 0xFFFF), Arbitraries.integers().between(0, 4096)),
                addr).as((k, r, v, s, o, f, d, a) -> new Op(k, r, v, s, o, f, d, a, a ^ v)).list().ofMaxSize(60);
    }

    private static List<Integer> toList(int[] a) {
        return java.util.Arrays.stream(a).boxed().toList();
    }

    @Property(tries = 120)
    void hostileRegistersAndDescriptorsNeverThrowAndHeadsStayInTheRing(@ForAll("ops") List<Op> ops) {
        try (HostRam ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 4L << 20)) {
            IceFirmware fw = new IceFirmware(0, ram.memory(), v -> { }, new Trace(new SimScheduler(1)), 16,
                    0x001B21000001L);
            IceLikeDriver drv = new IceLikeDriver(ram, fw, 64, 16);
            assertTrue(drv.initAdminQueue());
            for (Op op : ops) {
                switch (op.kind()) {
                    case 0 -> fw.write32(REGS[op.reg()], op.value());
                    case 1 -> {
                        int slot = op.slot() % drv.atqLen;
                        AqDescriptor d = drv.ringDesc(drv.atqRing, slot).clear().opcode(op.opcode())
                                .flags(op.flags()).datalen(op.datalen()).bufferAddress(op.addr());
                        d.paramU64(0, op.p0());
                        fw.write32(PF_FW_ATQT, op.slot() % 80);
                    }
                    case 2 -> fw.postEvent(op.opcode(), null, ram.store(), 0, op.datalen());
                    default -> fw.setLink((op.value() & 1) != 0);
                }
                fw.read32(REGS[op.reg()]);
                checkHead(fw.read32(PF_FW_ATQLEN), fw.read32(PF_FW_ATQH));
                checkHead(fw.read32(PF_FW_ARQLEN), fw.read32(PF_FW_ARQH));
                checkHead(fw.read32(PF_MBX_ATQLEN), fw.read32(PF_MBX_ATQH));
            }
        }
    }

    private static void checkHead(int len, int head) {
        assertTrue(head >= 0 && head <= QH_M);
        boolean enabled = (len & QLEN_ENABLE_M) != 0 && (len & QLEN_CRIT_M) == 0 && (len & QLEN_LEN_M) != 0;
        if (enabled) {
            assertTrue(head < (len & QLEN_LEN_M), "head " + head + " inside a ring of " + (len & QLEN_LEN_M));
        }
    }
}
