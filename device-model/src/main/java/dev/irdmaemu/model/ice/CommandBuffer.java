package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import net.openhft.chronicle.bytes.Bytes;

/**
 * Where a command's indirect buffer lies in the {@code Bytes} the AQ engine hands a handler: from its read position,
 * {@code desc.datalen()} bytes, never past its write limit; 0 bytes when the command carried no buffer.
 */
final class CommandBuffer {
    private CommandBuffer() {
    }

    static long start(Bytes<?> buf) {
        return buf == null ? 0 : buf.readPosition();
    }

    static long length(AqDescriptor desc, Bytes<?> buf) {
        if (buf == null) {
            return 0;
        }
        return Math.max(0, Math.min(desc.datalen(), buf.writeLimit() - buf.readPosition()));
    }
}
