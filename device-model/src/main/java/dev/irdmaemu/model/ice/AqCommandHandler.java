package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.AqDescriptor;
import net.openhft.chronicle.bytes.Bytes;

/**
 * One AQ command's firmware behaviour. Placeholder with the signature agreed with branch aqcore, which owns it:
 * {@code desc} is a private copy of the command descriptor (read params, write reply params); {@code buf} a private
 * copy of the indirect buffer ({@code desc.datalen()} bytes) or null without the BUF flag. The handler writes its
 * reply into {@code buf}, sets the reply length with {@code desc.datalen(n)} and answers an {@code AqError} code.
 */
@FunctionalInterface
public interface AqCommandHandler {
    int handle(AqDescriptor desc, Bytes<?> buf);
}
