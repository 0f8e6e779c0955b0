package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Named.named;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.GetLinkStatus;
import dev.irdmaemu.fw.aq.AqLayout.ListCaps;
import dev.irdmaemu.fw.aq.AqLayout.Nvm;
import dev.irdmaemu.fw.aq.AqLayout.ReqRes;
import dev.irdmaemu.fw.aq.AqLayout.SetEventMask;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.RecordingTraceSink;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceKind;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A hostile driver against the admin queue: every bad command gets an AQ error, every bad ring CRIT/OVFL. */
class IceAdminQueueHostileTest {
    HostRam ram;
    IceFirmware fw;
    IceLikeDriver drv;
    RecordingTraceSink sink;
    final List<Integer> raised = new ArrayList<>();
    int pfResetHooks;

    @BeforeEach
    void setUp() {
        ram = new HostRam(new HostMemory(), 0x1_0000_0000L, 8L << 20);
        sink = new RecordingTraceSink();
        fw = new IceFirmware(0, ram.memory(), raised::add,
                new Trace(new SimScheduler(1)).enable(sink, TraceKind.AQ), 64, 0x001B21000001L);
        fw.onPfReset(() -> pfResetHooks++);
        fw.register(0x7F01, (d, b) -> {
            d.datalen(b == null ? 0 : (int) b.readRemaining() + 1);
            return AqError.OK;
        });
        fw.register(0x7F02, (d, b) -> {
            throw new IllegalStateException("model bug");
        });
        drv = new IceLikeDriver(ram, fw);
        assertTrue(drv.initAdminQueue());
    }

    @AfterEach
    void tearDown() {
        ram.close();
    }

    /** A command the driver sends raw onto the ring, bypassing ice_sq_send_cmd's own checks. */
    record Raw(int opcode, int flags, int datalen, boolean unmappedBuffer) {
    }

    static Stream<Arguments> badCommands() {
        return Stream.of(
                Arguments.of(named("unknown opcode", new Raw(0x7777, AqDescriptor.SI, 0, false)), AqError.ESRCH),
                Arguments.of(named("BUF with datalen 0", new Raw(AqOpcode.GET_VER,
                        AqDescriptor.SI | AqDescriptor.BUF, 0, false)), AqError.EINVAL),
                Arguments.of(named("datalen 4097", new Raw(AqOpcode.LIST_DEV_CAPS,
                        AqDescriptor.SI | AqDescriptor.BUF | AqDescriptor.LB, 4097, false)), AqError.EINVAL),
                Arguments.of(named("datalen without BUF", new Raw(AqOpcode.GET_VER, AqDescriptor.SI, 64, false)),
                        AqError.EINVAL),
                Arguments.of(named("buffer address unmapped", new Raw(AqOpcode.LIST_DEV_CAPS,
                        AqDescriptor.SI | AqDescriptor.BUF | AqDescriptor.LB, 4096, true)), AqError.EIO),
                Arguments.of(named("reserved flag bit 4", new Raw(AqOpcode.GET_VER, AqDescriptor.SI | 0x10, 0,
                        false)), AqError.EINVAL),
                Arguments.of(named("DD set by the driver", new Raw(AqOpcode.GET_VER,
                        AqDescriptor.SI | AqDescriptor.DD, 0, false)), AqError.EINVAL),
                Arguments.of(named("VFC on the PF queue", new Raw(AqOpcode.GET_VER,
                        AqDescriptor.SI | AqDescriptor.VFC, 0, false)), AqError.EINVAL),
                Arguments.of(named("reply longer than the buffer", new Raw(0x7F01,
                        AqDescriptor.SI | AqDescriptor.BUF, 100, false)), AqError.ENOMEM),
                Arguments.of(named("handler fault", new Raw(0x7F02, AqDescriptor.SI, 0, false)), AqError.EIO),
                Arguments.of(named("direct command given a buffer", new Raw(AqOpcode.GET_VER,
                        AqDescriptor.SI | AqDescriptor.BUF, 16, false)), AqError.EINVAL),
                Arguments.of(named("nvm_read without a buffer", new Raw(AqOpcode.NVM_READ, AqDescriptor.SI, 0,
                        false)), AqError.EINVAL));
    }

    @ParameterizedTest
    @MethodSource("badCommands")
    void badCommandGetsAnAqError(Raw raw, int expected) {
        int index = drv.ntu;
        AqDescriptor d = drv.ringDesc(drv.atqRing, index).clear().opcode(raw.opcode()).flags(raw.flags())
                .datalen(raw.datalen()).bufferAddress(raw.unmappedBuffer() ? 0x7000_0000L : drv.sqBufs[index]);
        drv.ntu = index + 1;
        fw.write32(PF_FW_ATQT, drv.ntu);
        assertEquals(drv.ntu, fw.read32(PF_FW_ATQH), "the command completed");
        assertEquals(expected, d.retval());
        assertEquals(AqDescriptor.DD | AqDescriptor.CMP | AqDescriptor.ERR,
                d.flags() & (AqDescriptor.DD | AqDescriptor.CMP | AqDescriptor.ERR));
        assertEquals(0, fw.read32(PF_FW_ATQLEN) & (QLEN_CRIT_M | QLEN_OVFL_M), "no ring fault");
        assertTrue(drv.send(IceLikeDriver.command(AqOpcode.GET_VER)).ok(), "the queue keeps working");
        assertTrue(sink.of(TraceKind.AQ).stream().anyMatch(e -> AqError.name(expected).equals(e.get("retval"))));
    }

    static Stream<Arguments> badReplies() {
        Function<IceLikeDriver, IceLikeDriver.Reply> pastEnd = d -> d.readNvmChunk(NvmImage.FLASH_SIZE, 1, true,
                false);
        Function<IceLikeDriver, IceLikeDriver.Reply> srPastEnd = d -> d.readNvmChunk(NvmImage.SR_BYTES - 1, 2,
                true, true);
        Function<IceLikeDriver, IceLikeDriver.Reply> longerThanBuffer = d -> d.send(
                IceLikeDriver.command(AqOpcode.NVM_READ).paramU8(Nvm.CMD_FLAGS, Nvm.FLASH_ONLY)
                        .paramU16(Nvm.LENGTH, 64), null, 32);
        Function<IceLikeDriver, IceLikeDriver.Reply> srCrossesSector = d -> d.readNvmChunk(4095, 2, true, true);
        Function<IceLikeDriver, IceLikeDriver.Reply> namedModule = d -> d.send(
                IceLikeDriver.command(AqOpcode.NVM_READ).paramU16(Nvm.MODULE_TYPEID, 0x14B)
                        .paramU16(Nvm.LENGTH, 4), null, 4);
        Function<IceLikeDriver, IceLikeDriver.Reply> smallCaps = d -> d.send(
                IceLikeDriver.command(AqOpcode.LIST_FUNC_CAPS), null, 64);
        Function<IceLikeDriver, IceLikeDriver.Reply> badResource = d -> d.send(
                IceLikeDriver.command(AqOpcode.REQ_RES).paramU16(ReqRes.RES_ID, 9).paramU16(ReqRes.ACCESS_TYPE, 1));
        Function<IceLikeDriver, IceLikeDriver.Reply> badLse = d -> d.send(
                IceLikeDriver.command(AqOpcode.GET_LINK_STATUS).paramU16(GetLinkStatus.CMD_FLAGS, 1), null, 32);
        Function<IceLikeDriver, IceLikeDriver.Reply> badFrame = d -> d.send(
                IceLikeDriver.command(AqOpcode.SET_MAC_CFG).paramU16(0, 20000));
        return Stream.of(
                Arguments.of(named("flat NVM read past the end", pastEnd), AqError.EINVAL),
                Arguments.of(named("SR read past the end", srPastEnd), AqError.EINVAL),
                Arguments.of(named("NVM length above the buffer", longerThanBuffer), AqError.EINVAL),
                Arguments.of(named("SR read across a sector", srCrossesSector), AqError.EINVAL),
                Arguments.of(named("NVM module 0x14B", namedModule), AqError.ENOENT),
                Arguments.of(named("caps buffer too small", smallCaps), AqError.ENOMEM),
                Arguments.of(named("resource id 9", badResource), AqError.EINVAL),
                Arguments.of(named("LSE value 1", badLse), AqError.EINVAL),
                Arguments.of(named("frame size 20000", badFrame), AqError.EINVAL));
    }

    @ParameterizedTest
    @MethodSource("badReplies")
    void commandErrorsAreTheFirmwaresOwn(Function<IceLikeDriver, IceLikeDriver.Reply> send, int expected) {
        IceLikeDriver.Reply r = send.apply(drv);
        assertEquals(IceLikeDriver.EIO, r.status());
        assertEquals(expected, r.retval());
        assertFalse(fw.locks().held(ReqRes.RES_ID_NVM));
    }

    @Test
    void capsBufferTooSmallAnswersTheCountNeeded() {
        IceLikeDriver.Reply r = drv.send(IceLikeDriver.command(AqOpcode.LIST_FUNC_CAPS), null, 64);
        assertEquals(AqError.ENOMEM, r.retval());
        long needed = r.desc().paramU32(ListCaps.COUNT);
        IceLikeDriver.Reply again = drv.send(IceLikeDriver.command(AqOpcode.LIST_FUNC_CAPS), null,
                (int) needed * ListCaps.ELEM_SIZE);
        assertTrue(again.ok());
        assertEquals(needed, again.desc().paramU32(ListCaps.COUNT));
    }

    @Test
    void nvmLockHeldAnswersBusyAndGlobalLockAnswersDoneAfterADownload() {
        assertEquals(IceLikeDriver.OK, drv.acquireNvm());
        IceLikeDriver.Reply busy = drv.send(IceLikeDriver.command(AqOpcode.REQ_RES)
                .paramU16(ReqRes.RES_ID, ReqRes.RES_ID_NVM).paramU16(ReqRes.ACCESS_TYPE, ReqRes.ACCESS_READ));
        assertEquals(AqError.EBUSY, busy.retval());
        assertEquals(ReqRes.NVM_READ_DFLT_TIMEOUT_MS, busy.desc().paramU32(ReqRes.TIMEOUT));
        drv.releaseNvm();
        assertFalse(fw.locks().held(ReqRes.RES_ID_NVM));
        IceLikeDriver.Reply g = globalLock();
        assertTrue(g.ok());
        assertEquals(ReqRes.GLBL_SUCCESS, g.desc().paramU16(ReqRes.STATUS));
        assertEquals(ReqRes.GLBL_IN_PROG, globalLock().desc().paramU16(ReqRes.STATUS));
        fw.locks().globalConfigDone();
        assertEquals(ReqRes.GLBL_DONE, globalLock().desc().paramU16(ReqRes.STATUS));
        fw.write32(PFGEN_CTRL, PFGEN_CTRL_PFSWR_M);
        assertTrue(drv.initAdminQueue());
        assertEquals(ReqRes.GLBL_DONE, globalLock().desc().paramU16(ReqRes.STATUS), "the package stays loaded");
        fw.reset();
        assertTrue(drv.initAdminQueue());
        assertEquals(ReqRes.GLBL_SUCCESS, globalLock().desc().paramU16(ReqRes.STATUS), "power-on forgets it");
    }

    private IceLikeDriver.Reply globalLock() {
        return drv.send(IceLikeDriver.command(AqOpcode.REQ_RES).paramU16(ReqRes.RES_ID, ReqRes.RES_ID_GLBL_LOCK)
                .paramU16(ReqRes.ACCESS_TYPE, ReqRes.ACCESS_WRITE).paramU32(ReqRes.TIMEOUT, 3000));
    }

    // ---- ring-level faults, read as ice_controlq.c reads them ----

    @Test
    void ringLengthZeroDoesNotComeUp() {
        fw.write32(PF_FW_ATQLEN, QLEN_ENABLE_M);
        assertEquals(0, fw.read32(PF_FW_ATQLEN) & QLEN_ENABLE_M);
        assertTrue((fw.read32(PF_FW_ATQLEN) & QLEN_CRIT_M) != 0);
        assertFalse(drv.sqAlive());
        fw.write32(PF_FW_ATQT, 1);
        assertEquals(0, fw.read32(PF_FW_ATQH), "a faulted ring runs nothing");
    }

    @Test
    void ringLengthAbove1023DoesNotComeUp() {
        fw.write32(PF_FW_ATQLEN, 1024 | QLEN_ENABLE_M);
        assertTrue((fw.read32(PF_FW_ATQLEN) & QLEN_CRIT_M) != 0);
        assertEquals(0, fw.read32(PF_FW_ATQLEN) & QLEN_ENABLE_M);
        assertFalse(drv.sqAlive());
    }

    @Test
    void tailBeyondTheRingSetsCrit() {
        fw.write32(PF_FW_ATQT, IceLikeDriver.AQ_LEN + 8);
        assertTrue((fw.read32(PF_FW_ATQLEN) & QLEN_CRIT_M) != 0, "ice_sq_send_cmd: Critical FW error");
        assertEquals(0, fw.read32(PF_FW_ATQH));
        // ice recovers by shutting the queue down and initialising it again
        fw.write32(PF_FW_ATQLEN, 0);
        assertTrue(drv.initAdminQueue());
        assertTrue(drv.send(IceLikeDriver.command(AqOpcode.GET_VER)).ok());
    }

    @Test
    void ringBaseUnmappedSetsCritAndLeavesTheHead() {
        fw.write32(PF_FW_ATQBAL, 0);
        fw.write32(PF_FW_ATQBAH, 0x40);
        fw.write32(PF_FW_ATQT, 1);
        assertEquals(0, fw.read32(PF_FW_ATQH));
        assertTrue((fw.read32(PF_FW_ATQLEN) & QLEN_CRIT_M) != 0);
    }

    @Test
    void eventWithoutAPostedBufferSetsOverflow() {
        fw.write32(PF_FW_ARQT, 0);
        assertEquals(AdminQueue.EventPost.OVERFLOW, fw.postEvent(AqOpcode.GET_LINK_STATUS, null, null, 0, 0));
        assertTrue((fw.read32(PF_FW_ARQLEN) & QLEN_OVFL_M) != 0);
        assertEquals(0, fw.read32(PF_FW_ARQH));
    }

    @Test
    void disabledArqDropsEvents() {
        fw.write32(PF_FW_ARQLEN, 0);
        assertEquals(AdminQueue.EventPost.DISABLED, fw.postEvent(AqOpcode.GET_LINK_STATUS, null, null, 0, 0));
    }

    @Test
    void linkChangePostsAnEventOnTheFwVector() {
        fw.write32(PFINT_FW_CTL, 5 | CTL_CAUSE_ENA_M);
        // ice_init_link_events: mask everything but up/down, media and module qualification, then LSE on
        assertTrue(drv.send(IceLikeDriver.command(AqOpcode.SET_EVENT_MASK)
                .paramU16(SetEventMask.EVENT_MASK, ~(SetEventMask.LINK_EVENT_UPDOWN
                        | SetEventMask.LINK_EVENT_MEDIA_NA | 1 << 8) & 0xFFFF)).ok());
        IceLikeDriver.Reply lse = drv.send(IceLikeDriver.command(AqOpcode.GET_LINK_STATUS)
                .paramU16(GetLinkStatus.CMD_FLAGS, GetLinkStatus.LSE_ENA), null, GetLinkStatus.DATA_SIZE_V1);
        assertEquals(GetLinkStatus.LSE_IS_ENABLED, lse.desc().paramU16(GetLinkStatus.CMD_FLAGS));
        assertTrue(raised.isEmpty(), "commands carry SI: no completion interrupt");
        fw.setLink(false);
        assertEquals(List.of(5), raised);
        IceLikeDriver.Reply ev = drv.cleanRqElem();
        assertNotNull(ev);
        assertEquals(AqOpcode.GET_LINK_STATUS, ev.desc().opcode());
        assertEquals(GetLinkStatus.DATA_SIZE_V1, ev.bufLen());
        assertEquals(0, ev.buf().readUnsignedByte(GetLinkStatus.DATA_LINK_INFO) & GetLinkStatus.LINK_UP);
        assertNull(drv.cleanRqElem(), "one event");
        fw.setLink(false);
        assertNull(drv.cleanRqElem(), "no change, no event");
        fw.setLink(true);
        IceLikeDriver.Reply up = drv.cleanRqElem();
        assertEquals(GetLinkStatus.LINK_UP, up.buf().readUnsignedByte(GetLinkStatus.DATA_LINK_INFO) & 1);
        assertEquals(GetLinkStatus.LINK_SPEED_100GB, up.buf().readUnsignedShort(GetLinkStatus.DATA_LINK_SPEED));
        // masked: no event
        drv.send(IceLikeDriver.command(AqOpcode.SET_EVENT_MASK).paramU16(SetEventMask.EVENT_MASK, 0xFFFF));
        fw.setLink(false);
        assertNull(drv.cleanRqElem());
    }

    @Test
    void pfSoftwareResetClearsTheQueuesAndCallsTheHook() {
        fw.write32(PFINT_FW_CTL, 1 | CTL_CAUSE_ENA_M);
        assertEquals(IceLikeDriver.OK, drv.acquireNvm());
        fw.write32(PFGEN_CTRL, PFGEN_CTRL_PFSWR_M);
        assertEquals(0, fw.read32(PFGEN_CTRL), "PFSWR self-clears");
        assertEquals(1, pfResetHooks);
        for (int reg : new int[] {PF_FW_ATQBAL, PF_FW_ATQBAH, PF_FW_ATQLEN, PF_FW_ATQH, PF_FW_ATQT, PF_FW_ARQBAL,
                PF_FW_ARQBAH, PF_FW_ARQLEN, PF_FW_ARQH, PF_FW_ARQT, PFINT_FW_CTL}) {
            assertEquals(0, fw.read32(reg), "0x" + Integer.toHexString(reg));
        }
        assertFalse(fw.locks().held(ReqRes.RES_ID_NVM));
        assertFalse(drv.sqAlive());
        IceLikeDriver again = new IceLikeDriver(ram, fw);
        assertTrue(again.initAdminQueue());
        assertTrue(again.send(IceLikeDriver.command(AqOpcode.GET_VER)).ok());
    }

    @Test
    void mailboxRingsComeUpAsIceInitialisesThem() {
        // ice_main.c: mailbox ATQ of ICE_MBXSQ_LEN (64), ARQ of PF_MBX_ARQLEN_ARQLEN_M (1023) entries
        long sq = ram.allocate(64 * 32);
        long rq = ram.allocate(1023 * 32);
        assertTrue(drv.cfgRegs(PF_MBX_ATQH, PF_MBX_ATQT, PF_MBX_ATQLEN, PF_MBX_ATQBAL, PF_MBX_ATQBAH, sq, 64));
        assertTrue(drv.cfgRegs(PF_MBX_ARQH, PF_MBX_ARQT, PF_MBX_ARQLEN, PF_MBX_ARQBAL, PF_MBX_ARQBAH, rq, 1023));
        fw.write32(PF_MBX_ARQT, 1022);
        assertEquals(64 | QLEN_ENABLE_M, fw.read32(PF_MBX_ATQLEN) & (QLEN_LEN_M | QLEN_ENABLE_M));
        assertEquals(1023 | QLEN_ENABLE_M, fw.read32(PF_MBX_ARQLEN) & (QLEN_LEN_M | QLEN_ENABLE_M));
        assertEquals(1022, fw.read32(PF_MBX_ARQT));
        // a PF-to-VF message with no VF behind it is answered, not left pending
        drv.ringDesc(sq, 0).clear().opcode(AqOpcode.SEND_MSG_TO_VF).flags(AqDescriptor.SI);
        fw.write32(PF_MBX_ATQT, 1);
        assertEquals(1, fw.read32(PF_MBX_ATQH));
        assertEquals(AqError.ESRCH, drv.ringDesc(sq, 0).retval());
        assertEquals(0, fw.read32(PF_FW_ATQH), "the admin queue is untouched");
    }

    @Test
    void oicrIsReadToClearAndRaisesItsVector() {
        fw.write32(PFINT_OICR_CTL, 3 | CTL_CAUSE_ENA_M);
        fw.write32(PFINT_OICR_ENA, PFINT_OICR_PE_CRITERR_M);
        fw.raiseOicr(PFINT_OICR_PE_CRITERR_M);
        assertEquals(List.of(3), raised);
        assertEquals(PFINT_OICR_PE_CRITERR_M, fw.read32(PFINT_OICR));
        assertEquals(0, fw.read32(PFINT_OICR));
    }

    @Test
    void registersIceWritesReadBack() {
        fw.write32(0x0042_0000, 0x1234);
        assertEquals(0x1234, fw.read32(0x0042_0000));
        assertEquals(0, fw.read32(0x0042_0004));
        fw.write32(GLNVM_FLA, 0);
        assertTrue((fw.read32(GLNVM_FLA) & GLNVM_FLA_LOCKED_M) != 0, "read-only");
        fw.write32(PFPM_WUS, 0);
        assertFalse(fw.owns(0x0016_0000), "GLINT_DYN_CTL is the RDMA block's");
        assertTrue(fw.owns(PF_FW_ATQT));
    }
}
