package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import net.openhft.chronicle.bytes.Bytes;

/**
 * One admin queue command as the E810 firmware executes it, registered per opcode with the ATQ engine
 * ({@code IceFirmware.register(int, AqCommandHandler)}).
 *
 * <p>Contract:
 * <ul>
 *   <li>{@code desc} wraps the device's private copy of the command descriptor (the guest may change its ring under
 *       us; the engine copied it first). The handler reads the params and may write reply params into it.</li>
 *   <li>{@code buf} is the device's private copy of the indirect buffer, exactly {@code desc.datalen()} bytes with
 *       readPosition 0 and writeLimit at that length, or null when the descriptor's BUF flag is clear.</li>
 *   <li>The handler may overwrite buffer bytes for its reply and sets the reply length with {@code desc.datalen(n)};
 *       n must not exceed the driver's buffer length (the datalen the driver posted), else the engine answers the
 *       command with {@link dev.irdmaemu.fw.aq.AqError#ENOMEM} and writes no buffer back (ice_sq_send_cmd would
 *       fail the command with "Return len > buf len").</li>
 *   <li>It returns an {@link dev.irdmaemu.fw.aq.AqError} code, {@code AqError.OK} on success. It must not throw on
 *       guest input; an exception is a model bug, which the engine logs and answers with EIO.</li>
 * </ul>
 * The engine then writes the descriptor and the buffer back to guest memory, sets DD|CMP (and ERR with the retval
 * on error) and advances ATQH (ice_controlq.c ice_sq_done polls ATQH == next_to_use).
 */
@FunctionalInterface
public interface AqCommandHandler {
    int handle(AqDescriptor desc, Bytes<?> buf);
}
