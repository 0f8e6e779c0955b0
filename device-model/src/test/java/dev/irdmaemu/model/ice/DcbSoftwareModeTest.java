package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Named.named;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.LldpSetLocalMib;
import dev.irdmaemu.fw.aq.AqLayout.PfcMode;
import dev.irdmaemu.fw.aq.AqLayout.QueryPortEts;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.PortEts;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.reg.IceRegister;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.Trace;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ice_dcb_lib.c ice_init_pf_dcb against a card whose FW LLDP agent is off (R1/R2): PRTDCB_GENS reads DCBX status
 * DIS, set_pfc_mode echoes VLAN-based PFC, the software default configuration goes down as the local MIB, and
 * query_port_ets names the default tree's one TC node; a lying driver gets the firmware's error and changes nothing.
 */
class DcbSoftwareModeTest {
    private final HostRam ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 8L << 20);
    private final IceFirmware fw = new IceFirmware(0, ram.memory(), v -> { }, new Trace(new SimScheduler(1)), 64,
            0x00_1B_21_AB_CD_EFL);
    private final IceLikeDriver drv = new IceLikeDriver(ram, fw);
    private final AqBench bench = new AqBench();
    private final LldpAgent agent = new LldpAgent();

    DcbSoftwareModeTest() {
        agent.registerWith(bench.handlers::put);
    }

    @AfterEach
    void tearDown() {
        ram.close();
    }

    /** The TLVs ice_dcb_cfg_to_lldp builds for ice_dcb_sw_dflt_cfg: ETS cfg, ETS rec, PFC, APP (FCoE on 3). */
    static byte[] softwareDefaultMib() {
        byte[] m = new byte[2 + 25 + 2 + 25 + 2 + 6 + 2 + 7];
        int at = 0;
        at = tlv(m, at, 127, 25);
        at = tlv(m, at, 127, 25);
        at = tlv(m, at, 127, 6);
        tlv(m, at, 127, 7);
        return m;
    }

    private static int tlv(byte[] m, int at, int type, int len) {
        m[at] = (byte) (type << 1 | len >> 8);
        m[at + 1] = (byte) len;
        m[at + 2] = 0x00;
        m[at + 3] = (byte) 0x80;
        m[at + 4] = (byte) 0xC2;
        return at + 2 + len;
    }

    @Test
    void theFirmwaresAgentIsOffSoIceRunsDcbInSoftware() {
        assertTrue(drv.initAdminQueue());
        assertEquals(IceRegister.DCBX_STATUS_DIS, fw.read32(IceRegister.PRTDCB_GENS)
                & IceRegister.PRTDCB_GENS_DCBX_STATUS_M, "ICE_DCBX_STATUS_DIS: ice_init_dcb returns -EBUSY");
        IceLikeDriver.Reply pfc = drv.send(IceLikeDriver.command(AqOpcode.SET_PFC_MODE)
                .paramU8(PfcMode.PFC_MODE, PfcMode.VLAN_BASED));
        assertTrue(pfc.ok());
        assertEquals(PfcMode.VLAN_BASED, pfc.desc().paramU8(PfcMode.PFC_MODE), "echoed, else 'Failed to set VLAN PFC mode'");
        byte[] mib = softwareDefaultMib();
        AqDescriptor set = IceLikeDriver.command(AqOpcode.LLDP_SET_LOCAL_MIB).paramU16(LldpSetLocalMib.LENGTH, mib.length);
        set.flags(set.flags() | AqDescriptor.RD);
        assertTrue(drv.send(set, mib, mib.length).ok(), "ice_set_dcb_cfg: 'Set DCB Config failed' otherwise");
        IceLikeDriver.Reply q = drv.send(IceLikeDriver.command(AqOpcode.QUERY_PFC_MODE));
        assertTrue(q.ok());
        assertEquals(PfcMode.VLAN_BASED, q.desc().paramU8(PfcMode.PFC_MODE));
    }

    @Test
    void queryPortEtsNamesTheDefaultTreesTcNodeAndNothingElse() {
        TxScheduler.Node root = bench.fw.scheduler().root();
        Bytes<?> buf = AqBench.buffer(PortEts.SIZE);
        assertEquals(AqError.OK, bench.send(AqOpcode.QUERY_PORT_ETS,
                d -> d.paramU32(QueryPortEts.PORT_TEID, root.teid()), buf));
        PortEts ets = new PortEts().wrap(buf, 0, PortEts.SIZE);
        assertEquals(1, ets.tcValidBits());
        assertEquals(0, ets.up2tc(), "every user priority on TC 0");
        assertEquals(100, ets.bandwidthShare(0));
        TxScheduler.Node tc = bench.fw.scheduler().nodes().stream()
                .filter(n -> n.parentTeid() == root.teid() && n != root).findFirst().orElseThrow();
        assertEquals(tc.teid(), ets.nodeTeid(0));
        for (int i = 1; i < PortEts.MAX_TCS; i++) {
            assertEquals(PortEts.INVALID_TEID, ets.nodeTeid(i), "TC " + i);
        }
    }

    @Test
    void theLocalMibIsKeptAsSent() {
        byte[] mib = softwareDefaultMib();
        Bytes<?> b = AqBench.buffer(mib.length);
        b.write(0, mib);
        assertEquals(AqError.OK, bench.send(AqOpcode.LLDP_SET_LOCAL_MIB,
                d -> d.paramU16(LldpSetLocalMib.LENGTH, mib.length), b));
        assertArrayEquals(mib, agent.localMib());
    }

    record Lie(int expected, ToIntFunction<DcbSoftwareModeTest> command) {
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("lies")
    void eachLieGetsItsAqErrorAndChangesNothing(Lie lie) {
        assertEquals(lie.expected(), lie.command().applyAsInt(this));
        assertEquals(PfcMode.VLAN_BASED, agent.pfcMode());
        assertEquals(0, agent.localMib().length);
    }

    static Stream<Arguments> lies() {
        return Stream.of(
                lie("set_pfc_mode: mode 3", AqError.EINVAL, t -> t.bench.send(AqOpcode.SET_PFC_MODE,
                        d -> d.paramU8(PfcMode.PFC_MODE, 3), null)),
                lie("set_pfc_mode: mode 0", AqError.EINVAL, t -> t.bench.send(AqOpcode.SET_PFC_MODE,
                        d -> d.paramU8(PfcMode.PFC_MODE, 0), null)),
                lie("set_pfc_mode: a buffer on a direct command", AqError.EINVAL, t -> t.bench.send(
                        AqOpcode.SET_PFC_MODE, d -> d.paramU8(PfcMode.PFC_MODE, 2), AqBench.buffer(16))),
                lie("set_local_mib: no buffer", AqError.EINVAL, t -> t.bench.send(AqOpcode.LLDP_SET_LOCAL_MIB,
                        d -> d.paramU16(LldpSetLocalMib.LENGTH, 10), null)),
                lie("set_local_mib: length above the buffer", AqError.EINVAL, t -> t.mib(20, 0, 16)),
                lie("set_local_mib: length 0", AqError.EINVAL, t -> t.mib(0, 0, 16)),
                lie("set_local_mib: an unknown type bit", AqError.EINVAL, t -> t.mib(16, 0x4, 16)),
                lie("set_local_mib: beyond an LLDPDU", AqError.EINVAL, t -> t.mib(1600, 0, 1600)),
                lie("set_local_mib: a TLV running past the end", AqError.EINVAL, t -> {
                    Bytes<?> b = AqBench.buffer(8);
                    b.writeByte(0, (byte) (127 << 1));
                    b.writeByte(1, (byte) 40);
                    return t.bench.send(AqOpcode.LLDP_SET_LOCAL_MIB, d -> d.paramU16(LldpSetLocalMib.LENGTH, 8), b);
                }),
                lie("query_port_ets: a buffer shorter than the element", AqError.EINVAL, t -> t.bench.send(
                        AqOpcode.QUERY_PORT_ETS, d -> d.paramU32(QueryPortEts.PORT_TEID,
                                t.bench.fw.scheduler().root().teid()), AqBench.buffer(PortEts.SIZE - 1))),
                lie("query_port_ets: no buffer", AqError.EINVAL, t -> t.bench.send(AqOpcode.QUERY_PORT_ETS,
                        d -> d.paramU32(QueryPortEts.PORT_TEID, t.bench.fw.scheduler().root().teid()), null)),
                lie("query_port_ets: a TEID that is not the port's", AqError.ENOENT, t -> t.bench.send(
                        AqOpcode.QUERY_PORT_ETS, d -> d.paramU32(QueryPortEts.PORT_TEID, 0xDEAD),
                        AqBench.buffer(PortEts.SIZE))));
    }

    private int mib(int length, int type, int bufLen) {
        return bench.send(AqOpcode.LLDP_SET_LOCAL_MIB, d -> d.paramU8(LldpSetLocalMib.TYPE, type)
                .paramU16(LldpSetLocalMib.LENGTH, length), AqBench.buffer(bufLen));
    }

    private static Arguments lie(String name, int expected, ToIntFunction<DcbSoftwareModeTest> c) {
        return Arguments.of(named(name, new Lie(expected, c)));
    }
}
