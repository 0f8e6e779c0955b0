package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Named.named;

import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.SidebandMessage;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Neighbour device requests (0x0C00) as ice_sbq_rw_reg sends them on an E810's admin queue: a write to the PHY's
 * ETH_GLTSYN_ENA(0) reads back; a lying driver gets EINVAL and the PHY is unchanged.
 */
class PhySidebandTest {
    /** ETH_GLTSYN_ENA(0) in the PHY (ice_ptp_hw.h). */
    private static final long ETH_GLTSYN_ENA_0 = 0x03000348L;
    private final AqBench bench = new AqBench();
    private final PhySideband phy = new PhySideband();

    PhySidebandTest() {
        phy.registerWith(bench.handlers::put);
    }

    private int send(int destDev, int op, long address, long data, int size, int cmdLen) {
        Bytes<?> full = AqBench.buffer(SidebandMessage.WRITE_SIZE);
        new SidebandMessage().wrap(full, 0, SidebandMessage.WRITE_SIZE).request(destDev, op, address, data);
        Bytes<?> b = AqBench.buffer(size);
        for (int i = 0; i < size; i++) {
            b.writeByte(i, i < SidebandMessage.WRITE_SIZE ? full.readByte(i) : 0);
        }
        return bench.send(AqOpcode.NEIGHBOUR_DEVICE_REQUEST,
                d -> d.paramU16(SidebandMessage.PARAM_CMD_LEN, cmdLen), b);
    }

    @Test
    void aWriteReadsBackInTheCompletion() {
        assertEquals(AqError.OK, send(SidebandMessage.DEV_PHY_0, SidebandMessage.OP_WRITE, ETH_GLTSYN_ENA_0, 1,
                SidebandMessage.WRITE_SIZE, SidebandMessage.WRITE_SIZE));
        Bytes<?> b = AqBench.buffer(SidebandMessage.READ_SIZE);
        SidebandMessage m = new SidebandMessage().wrap(b, 0, SidebandMessage.READ_SIZE)
                .request(SidebandMessage.DEV_PHY_0, SidebandMessage.OP_READ, ETH_GLTSYN_ENA_0, 0);
        assertEquals(AqError.OK, bench.send(AqOpcode.NEIGHBOUR_DEVICE_REQUEST,
                d -> d.paramU16(SidebandMessage.PARAM_CMD_LEN, SidebandMessage.READ_SIZE), b));
        assertEquals(1, m.completionData());
        assertEquals(1, phy.register(ETH_GLTSYN_ENA_0));
    }

    record Lie(ToIntFunction<PhySidebandTest> command) {
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lies")
    void eachLieGetsEinvalAndChangesNothing(Lie lie) {
        assertEquals(AqError.EINVAL, lie.command().applyAsInt(this));
        assertEquals(0, phy.register(ETH_GLTSYN_ENA_0));
    }

    static Stream<Arguments> lies() {
        int wr = SidebandMessage.OP_WRITE;
        int w = SidebandMessage.WRITE_SIZE;
        int phy0 = SidebandMessage.DEV_PHY_0;
        return Stream.of(
                lie("no buffer", t -> t.bench.send(AqOpcode.NEIGHBOUR_DEVICE_REQUEST,
                        d -> d.paramU16(SidebandMessage.PARAM_CMD_LEN, w), null)),
                lie("cmd_len above the buffer", t -> t.send(phy0, wr, ETH_GLTSYN_ENA_0, 1, w, w + 4)),
                lie("a write of 12 bytes", t -> t.send(phy0, wr, ETH_GLTSYN_ENA_0, 1, 12, 12)),
                lie("a read of 16 bytes", t -> t.send(phy0, SidebandMessage.OP_READ, ETH_GLTSYN_ENA_0, 0, w, w)),
                lie("the CGU (0x06), which a plain E810 lacks", t -> t.send(0x06, wr, ETH_GLTSYN_ENA_0, 1, w, w)),
                lie("message opcode 7", t -> t.send(phy0, 7, ETH_GLTSYN_ENA_0, 1, w, w)),
                lie("an unaligned address", t -> t.send(phy0, wr, ETH_GLTSYN_ENA_0 + 1, 1, w, w)),
                lie("a 4-byte buffer", t -> t.send(phy0, wr, 0, 0, 4, 4)));
    }

    private static Arguments lie(String name, ToIntFunction<PhySidebandTest> c) {
        return Arguments.of(named(name, new Lie(c)));
    }
}
