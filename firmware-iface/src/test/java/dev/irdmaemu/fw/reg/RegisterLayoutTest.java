package dev.irdmaemu.fw.reg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.irdmaemu.fw.lan.LanRegister;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * The trace's register decoding: values the drivers write, as the kernel builds them, decode to the kernel's
 * field names; and each layout's masks are the ones the register codecs (which cite the headers) use.
 */
class RegisterLayoutTest {
    private static String decode(String reg, long value) {
        StringBuilder sb = new StringBuilder();
        RegisterLayout.of(reg).decode(value, sb);
        return sb.toString().trim();
    }

    static Stream<Arguments> kernelValues() {
        return Stream.of(
                // i40iw_hw.c / icrdma_hw.c irdma_ena_irq: INTENA | CLEARPBA | ITR_INDX 3
                Arguments.of(Named.of("irdma arms a vector", "GLINT_DYN_CTL"), 0x1bL,
                        "INTENA=1 CLEARPBA=1 ITR_INDX=3"),
                // ice_main.c ice_ena_misc_vector: GLINT_DYN_CTL_SW_ITR_INDX_M | GLINT_DYN_CTL_INTENA_MSK_M
                Arguments.of(Named.of("ice masks the OICR vector", "GLINT_DYN_CTL"), 0x8600_0000L,
                        "SW_ITR_INDX=3 INTENA_MSK=1"),
                // ctrl.c irdma_sc_cqp_post_sq: the new SQ head; irdma_cqp_poll_registers reads the tail and OP_ERR
                Arguments.of(Named.of("CQP tail with the op-error flag", "CQPTAIL"), 0x8000_0005L,
                        "WQTAIL=5 CQP_OP_ERR=1"),
                Arguments.of(Named.of("CQP doorbell", "CQPDB"), 7L, "SQ_HEAD=7"),
                // irdma.h IRDMA_CQPERRCODES_*: major 0xffff (IRDMA_CQP_MAJ_ERROR), minor 0x8029
                Arguments.of(Named.of("CQP error codes", "CQPERRCODES"), 0xffff_8029L,
                        "CQP_MINOR_CODE=32809 CQP_MAJOR_CODE=65535"),
                Arguments.of(Named.of("CCQP status done", "CCQPSTATUS"), 1L, "CCQP_DONE=1"),
                Arguments.of(Named.of("CCQP status error", "CCQPSTATUS"), 0x8000_0001L, "CCQP_DONE=1 CCQP_ERR=1"),
                // uk.c irdma_uk_qp_post_wr writes the QP id
                Arguments.of(Named.of("WQE doorbell", "WQEALLOC"), 3L, "QP_ID=3"),
                Arguments.of(Named.of("CQ arm", "CQARM"), 2L, "CQ_ID=2"),
                // hw.c irdma_cfg_ceq_vector: MSIX_INDX | CAUSE_ENA (ITR_INDX 0)
                Arguments.of(Named.of("CEQ routed to vector 2", "GLINT_CEQCTL"), 0x4000_0002L,
                        "MSIX_INDX=2 CAUSE_ENA=1"),
                Arguments.of(Named.of("AEQ routed to vector 1 with ITR 3", "PFINT_AEQCTL"), 0x4000_1801L,
                        "MSIX_INDX=1 ITR_INDX=3 CAUSE_ENA=1"),
                // ice_controlq.c ice_cfg_cq_regs: ring length | ENABLE
                Arguments.of(Named.of("ATQ enabled, 64 entries", "PF_FW_ATQLEN"), 0x8000_0040L,
                        "ATQLEN=64 ATQENABLE=1"),
                Arguments.of(Named.of("ARQ overflowed and critical", "PF_MBX_ARQLEN"), 0x6000_0000L,
                        "ARQOVFL=1 ARQCRIT=1"),
                Arguments.of(Named.of("ATQ tail", "PF_FW_ATQT"), 21L, "ATQT=21"),
                Arguments.of(Named.of("PF software reset", "PFGEN_CTRL"), 1L, "PFSWR=1"),
                // GLGEN_RSTAT: DEVSTATE 0 (idle), RESET_TYPE 2 (GLOBR)
                Arguments.of(Named.of("reset status", "GLGEN_RSTAT"), 0x8L, "RESET_TYPE=2"),
                // ice_main.c ice_ena_misc_vector: (reg_idx & MSIX_INDX_M) | (ITR_NONE << ITR_INDX_S) | CAUSE_ENA
                Arguments.of(Named.of("OICR cause on vector 0", "PFINT_OICR_CTL"), 0x4000_1800L,
                        "ITR_INDX=3 CAUSE_ENA=1"),
                Arguments.of(Named.of("OICR enable mask", "PFINT_OICR_ENA"), 0x8000_0000L | 1L << 19 | 1L << 20,
                        "MAL_DETECT=1 GRST=1 SWINT=1"),
                // ice_base.c ice_vsi_ctrl_one_rx_ring sets QENA_REQ; the device answers QENA_STAT
                Arguments.of(Named.of("Rx queue enabled", "QRX_CTRL"), 0x5L, "QENA_REQ=1 QENA_STAT=1"),
                Arguments.of(Named.of("Rx tail", "QRX_TAIL"), 511L, "TAIL=511"),
                Arguments.of(Named.of("Tx doorbell", "QTX_COMM_DBELL"), 12L, "TAIL=12"),
                Arguments.of(Named.of("Rx queue interrupt", "QINT_RQCTL"), 0x4000_0001L, "MSIX_INDX=1 CAUSE_ENA=1"),
                Arguments.of(Named.of("MDD event", "GL_MDET_TX_TCLAN"), 0x8000_0000L | 3L << 26 | 5L,
                        "QNUM=5 MAL_TYPE=3 VALID=1"),
                Arguments.of(Named.of("bits no field covers", "PFGEN_CTRL"), 0x11L, "PFSWR=1 rsvd=0x10"),
                Arguments.of(Named.of("zero", "GLINT_DYN_CTL"), 0L, ""));
    }

    @ParameterizedTest
    @MethodSource("kernelValues")
    void decodesWhatTheDriversWrite(String reg, long value, String fields) {
        assertEquals(fields, decode(reg, value));
    }

    private static long mask(String reg, String field) {
        RegisterLayout.Field f = RegisterLayout.of(reg).field(field);
        assertNotNull(f, reg + "." + field);
        return Bits.genmask(f.hi(), f.lo());
    }

    @Test
    void masksAreTheCodecsMasks() {
        assertEquals(Gen2Registers.CQPTAIL_WQTAIL, mask("CQPTAIL", "WQTAIL"));
        assertEquals(Gen2Registers.CQPTAIL_CQP_OP_ERR, mask("CQPTAIL", "CQP_OP_ERR"));
        assertEquals(Gen2Registers.CQPERRCODES_CQP_MAJOR_CODE, mask("CQPERRCODES", "CQP_MAJOR_CODE"));
        assertEquals(Gen2Registers.CQPERRCODES_CQP_MINOR_CODE, mask("CQPERRCODES", "CQP_MINOR_CODE"));
        assertEquals(Gen2Registers.GLINT_DYN_CTL_INTENA, mask("GLINT_DYN_CTL", "INTENA"));
        assertEquals(Gen2Registers.GLINT_DYN_CTL_CLEARPBA, mask("GLINT_DYN_CTL", "CLEARPBA"));
        assertEquals(Gen2Registers.GLINT_DYN_CTL_ITR_INDX, mask("GLINT_DYN_CTL", "ITR_INDX"));
        assertEquals(Gen2Registers.GLINT_DYN_CTL_INTERVAL, mask("GLINT_DYN_CTL", "INTERVAL"));
        assertEquals(IceRegister.QLEN_LEN_M, mask("PF_FW_ATQLEN", "ATQLEN"));
        assertEquals(IceRegister.QLEN_CRIT_M, mask("PF_MBX_ATQLEN", "ATQCRIT"));
        assertEquals(IceRegister.QLEN_ENABLE_M & 0xffff_ffffL, mask("PF_FW_ARQLEN", "ARQENABLE"));
        assertEquals(IceRegister.QLEN_OVFL_M, mask("PF_FW_ARQLEN", "ARQOVFL"));
        assertEquals(IceRegister.QH_M, mask("PF_FW_ATQH", "ATQH"));
        assertEquals(IceRegister.CTL_MSIX_INDX_M, mask("PFINT_FW_CTL", "MSIX_INDX"));
        assertEquals(IceRegister.CTL_ITR_INDX_M, mask("PFINT_MBX_CTL", "ITR_INDX"));
        assertEquals(IceRegister.CTL_CAUSE_ENA_M, mask("PFINT_OICR_CTL", "CAUSE_ENA"));
        assertEquals(IceRegister.PFGEN_CTRL_PFSWR_M, mask("PFGEN_CTRL", "PFSWR"));
        assertEquals(IceRegister.GLGEN_RSTAT_DEVSTATE_M, mask("GLGEN_RSTAT", "DEVSTATE"));
        assertEquals(IceRegister.GLNVM_GENS_SR_SIZE_M, mask("GLNVM_GENS", "SR_SIZE"));
        assertEquals(IceRegister.PFINT_OICR_MAL_DETECT_M, mask("PFINT_OICR", "MAL_DETECT"));
        assertEquals(IceRegister.PFINT_OICR_SWINT_M & 0xffff_ffffL, mask("PFINT_OICR_ENA", "SWINT"));
        assertEquals(LanRegister.QRX_CTRL_QENA_REQ_M, mask("QRX_CTRL", "QENA_REQ"));
        assertEquals(LanRegister.QRX_CTRL_QENA_STAT_M, mask("QRX_CTRL", "QENA_STAT"));
        assertEquals(LanRegister.QRX_TAIL_M, mask("QRX_TAIL", "TAIL"));
        assertEquals(LanRegister.QINT_MSIX_INDX_M, mask("QINT_TQCTL", "MSIX_INDX"));
        assertEquals(LanRegister.QINT_CAUSE_ENA_M, mask("QINT_RQCTL", "CAUSE_ENA"));
        assertEquals(LanRegister.GL_MDET_MAL_TYPE_M, mask("GL_MDET_RX", "MAL_TYPE"));
        assertEquals(LanRegister.GL_MDET_QNUM_M, mask("GL_MDET_RX", "QNUM"));
        assertEquals(LanRegister.GL_MDET_VALID_M & 0xffff_ffffL, mask("GL_MDET_RX", "VALID"));
    }

    @Test
    void blocksAndKernelNames() {
        assertEquals(RegisterLayout.Block.RDMA, RegisterLayout.blockOf("CQPTAIL"));
        assertEquals(RegisterLayout.Block.INT, RegisterLayout.blockOf("GLINT_DYN_CTL"));
        assertEquals(RegisterLayout.Block.LAN, RegisterLayout.blockOf("QRX_TAIL"));
        assertEquals(RegisterLayout.Block.ICE, RegisterLayout.blockOf("PF_FW_ATQT"));
        assertEquals(RegisterLayout.Block.ICE, RegisterLayout.blockOf("GLPRT_GORCL"));
        assertEquals("PFPE_CQPTAIL", RegisterLayout.kernelName("CQPTAIL"));
        assertEquals("PFPE_WQEALLOC", RegisterLayout.kernelName("WQEALLOC"));
        assertEquals("GLINT_DYN_CTL", RegisterLayout.kernelName("GLINT_DYN_CTL"));
        assertNull(RegisterLayout.of("NO_SUCH_REGISTER"));
        // every RDMA-block register the model's table names has a layout (fields or raw)
        for (Gen2Register r : Gen2Register.values()) {
            if (r.isRegister()) {
                assertNotNull(RegisterLayout.of(r.name()), r.name());
            }
        }
    }
}
