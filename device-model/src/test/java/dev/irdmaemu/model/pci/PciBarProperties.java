package dev.irdmaemu.model.pci;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.fw.reg.Gen2Register;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * A hostile guest on the BARs: any sequence of reads and writes, of any size, at any offset of any BAR (the RDMA
 * block's registers included, so CQP creation from garbage addresses, doorbells and resets through config space
 * happen), with the model run in between, throws nothing and leaves the function answering: the identity in
 * config space, GLPE_CPUSTATUS0 still 0x80 (nothing in BAR0 resets the PE), the BAR sizes unchanged.
 */
class PciBarProperties {
    record Access(boolean write, int bar, long offset, int size, long value) {
    }

    @Provide
    Arbitrary<List<Access>> accesses() {
        long[] rdma = new long[Gen2Register.values().length];
        for (int i = 0; i < rdma.length; i++) {
            rdma[i] = Gen2Register.values()[i].offset();
        }
        Arbitrary<Long> offset = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.of(box(rdma))),
                Tuple.of(2, Arbitraries.longs().between(0, E810PciFunction.BAR0_SIZE + 16)),
                Tuple.of(2, Arbitraries.longs().between(0, 0x9000)),
                Tuple.of(1, Arbitraries.longs()));
        Arbitrary<Integer> bar = Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.just(0)),
                Tuple.of(3, Arbitraries.just(3)), Tuple.of(1, Arbitraries.integers().between(-2, 8)));
        Arbitrary<Integer> size = Arbitraries.of(4, 4, 4, 8, 1, 2, 0, 3, 16);
        return Combinators.combine(Arbitraries.of(true, false), bar, offset, size, Arbitraries.longs())
                .as(Access::new).list().ofMaxSize(60);
    }

    private static Long[] box(long[] a) {
        Long[] b = new Long[a.length];
        for (int i = 0; i < a.length; i++) {
            b[i] = a[i];
        }
        return b;
    }

    @Property(tries = 100)
    void noBarAccessSequenceThrowsAndTheFunctionStillAnswers(@ForAll("accesses") List<Access> accesses) {
        PciTestRig rig = new PciTestRig();
        rig.trace.off();
        E810PciFunction pci = rig.pci;
        pci.configWrite(0x04, 2, 0x6);
        for (Access a : accesses) {
            if (a.write()) {
                pci.barWrite(a.bar(), a.offset(), a.size(), a.value());
            } else {
                pci.barRead(a.bar(), a.offset(), a.size());
            }
            rig.scheduler.runFor(2_000);
        }
        rig.scheduler.runFor(10_000_000); // what the accesses started runs on (a hostile CQP may never go idle)
        assertEquals(0x1592_8086, pci.configRead(0, 4));
        assertEquals(0x80, pci.barRead(0, Gen2Register.GLPE_CPUSTATUS0.offset(), 4));
        assertEquals(E810PciFunction.BAR0_SIZE, pci.barSize(0));
    }
}
