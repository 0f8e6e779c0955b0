package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.DriverVer;
import dev.irdmaemu.fw.aq.AqLayout.GetVer;
import dev.irdmaemu.fw.aq.AqOpcode;
import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;
import net.openhft.chronicle.bytes.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The firmware's own commands of ice's probe: get_ver (0x0001, ice_aq_get_fw_ver; checked by ice_aq_ver_check),
 * driver_ver (0x0002, ice_aq_send_driver_ver, FATAL if it fails), q_shutdown (0x0003), clear_pxe_mode (0x0110),
 * clear_pf_cfg (0x02A4, which clears the PF's configuration), and the fw-log event opcode 0xFF33 refused as a command (the fw-log commands themselves are
 * {@link FirmwareLog}'s).
 *
 * <p>Versions: API 1.5.1 is what ice expects of an E810 (ice_controlq.h EXP_FW_API_VER_*_E810 = 1.5) and stays
 * below every ice_fw_supports_* threshold the model does not serve (link override 1.5.2, LLDP filter 1.7.1, report
 * default config 1.7.3, health status 1.7.6).
 */
public final class BasicCommands {
    public static final int FW_MAJOR = 4;
    public static final int FW_MINOR = 40;
    public static final int FW_PATCH = 0;
    public static final long FW_BUILD = 0x7E8A_1D3CL;
    public static final long ROM_VER = 0x0101_0000L;
    public static final int API_MAJOR = 1;
    public static final int API_MINOR = 5;
    public static final int API_PATCH = 1;

    private static final Logger LOG = LoggerFactory.getLogger(BasicCommands.class);
    private String driverVersion;
    private int driverVersionWord = -1;
    private long pfConfigClears;
    private Runnable pfConfigClear = () -> { };

    /** What clear_pf_cfg clears (the firmware wires the PF's resources, switch and scheduler here). */
    void onClearPfConfig(Runnable clear) {
        this.pfConfigClear = clear == null ? () -> { } : clear;
    }

    public void registerWith(BiConsumer<Integer, AqCommandHandler> r) {
        r.accept(AqOpcode.GET_VER, this::getVer);
        r.accept(AqOpcode.DRIVER_VER, this::driverVer);
        r.accept(AqOpcode.Q_SHUTDOWN, (d, b) -> AqError.OK);
        r.accept(AqOpcode.CLEAR_PXE_MODE, (d, b) -> AqError.OK);
        r.accept(AqOpcode.CLEAR_PF_CFG, this::clearPfCfg);
        // 0xFF33 is the firmware's ARQ event; as a command it is unknown
        r.accept(AqOpcode.FW_LOGS_EVENT, (d, b) -> AqError.ENOSYS);
    }

    private int getVer(AqDescriptor d, Bytes<?> b) {
        if (b != null) {
            return AqError.EINVAL;
        }
        d.paramU32(GetVer.ROM_VER, ROM_VER).paramU32(GetVer.FW_BUILD, FW_BUILD)
                .paramU8(GetVer.FW_BRANCH, 0).paramU8(GetVer.FW_MAJOR, FW_MAJOR).paramU8(GetVer.FW_MINOR, FW_MINOR)
                .paramU8(GetVer.FW_PATCH, FW_PATCH).paramU8(GetVer.API_BRANCH, 0).paramU8(GetVer.API_MAJOR, API_MAJOR)
                .paramU8(GetVer.API_MINOR, API_MINOR).paramU8(GetVer.API_PATCH, API_PATCH);
        return AqError.OK;
    }

    /** The buffer is UTS_RELEASE (ice_aq_send_driver_ver), not NUL-terminated; kept as printable ASCII. */
    private int driverVer(AqDescriptor d, Bytes<?> b) {
        if (b == null) {
            return AqError.EINVAL;
        }
        int n = (int) b.readRemaining();
        byte[] s = new byte[Math.min(n, 256)];
        int len = 0;
        for (int i = 0; i < s.length; i++) {
            int c = b.readUnsignedByte(i);
            if (c == 0) {
                break;
            }
            s[len++] = (byte) (c >= 0x20 && c < 0x7F ? c : '?');
        }
        driverVersion = new String(s, 0, len, StandardCharsets.US_ASCII);
        driverVersionWord = d.paramU8(DriverVer.MAJOR) << 24 | d.paramU8(DriverVer.MINOR) << 16
                | d.paramU8(DriverVer.BUILD) << 8 | d.paramU8(DriverVer.SUBBUILD);
        LOG.info("ice driver version \"{}\"", driverVersion);
        return AqError.OK;
    }

    /**
     * clear_pf_cfg (ice_common.c ice_clear_pf_cfg, direct): firmware drops what it holds for the PF (VSIs, switch
     * rules and resource ids, the scheduler tree back to its default, Tx queues and qsets); the DDP package and the
     * profile tables stay, since ice_rebuild loads the package before it sends this.
     */
    private int clearPfCfg(AqDescriptor d, Bytes<?> b) {
        if (b != null) {
            return AqError.EINVAL;
        }
        pfConfigClears++;
        pfConfigClear.run();
        return AqError.OK;
    }

    void pfReset() {
        // the driver version is the PF's: a reloaded driver sends it again
        driverVersion = null;
        driverVersionWord = -1;
    }

    public String driverVersion() {
        return driverVersion;
    }

    /** major << 24 | minor << 16 | build << 8 | subbuild of the driver_ver params, or -1. */
    public int driverVersionWord() {
        return driverVersionWord;
    }

    public long pfConfigClears() {
        return pfConfigClears;
    }
}
