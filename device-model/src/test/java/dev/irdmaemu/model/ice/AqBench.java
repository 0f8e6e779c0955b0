package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.irdmaemu.fw.aq.AqDescriptor;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Drives the firmware's AQ handlers the way the AQ engine does: a private descriptor copy and a private buffer of
 * exactly datalen bytes (readPosition 0, writeLimit at the length). Fails the test if a handler throws.
 */
final class AqBench {
    final IceSwitchAndScheduler fw;
    final Map<Integer, AqCommandHandler> handlers = new HashMap<>();
    final AqDescriptor desc = new AqDescriptor();
    private final BytesStore<?, ?> descBytes = BytesStore.wrap(new byte[AqDescriptor.SIZE]);

    AqBench() {
        this(new IceSwitchAndScheduler(0, 0));
    }

    AqBench(IceSwitchAndScheduler fw) {
        this.fw = fw;
        fw.install(handlers::put);
    }

    /** A driver buffer of {@code n} zero bytes. */
    static Bytes<?> buffer(int n) {
        return Bytes.wrapForWrite(new byte[n]);
    }

    /** Sends {@code opcode} with {@code buf} (null: a direct command); {@code params} fills the params area. */
    int send(int opcode, Consumer<AqDescriptor> params, Bytes<?> buf) {
        AqCommandHandler h = handlers.get(opcode);
        assertNotNull(h, "no handler for opcode 0x" + Integer.toHexString(opcode));
        for (int i = 0; i < AqDescriptor.SIZE; i++) {
            descBytes.writeByte(i, (byte) 0);
        }
        desc.wrap(descBytes, 0);
        desc.opcode(opcode);
        if (buf != null) {
            desc.flags(AqDescriptor.BUF | AqDescriptor.RD | (buf.writeLimit() > AqDescriptor.LG_BUF ? AqDescriptor.LB : 0));
            desc.datalen((int) buf.writeLimit());
        }
        params.accept(desc);
        try {
            return h.handle(desc, buf);
        } catch (RuntimeException e) {
            throw new AssertionError("handler for 0x" + Integer.toHexString(opcode) + " threw", e);
        }
    }

    int send(int opcode, Bytes<?> buf) {
        return send(opcode, d -> { }, buf);
    }
}
