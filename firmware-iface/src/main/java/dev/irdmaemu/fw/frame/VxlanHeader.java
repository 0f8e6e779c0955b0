package dev.irdmaemu.fw.frame;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.NetworkOrder;
import dev.irdmaemu.fw.WireView;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Flyweight over a VXLAN datagram's payload (RFC 7348 section 5): the 8-byte VXLAN header and the inner Ethernet
 * frame after it, carried in UDP to port {@value #IANA_PORT}.
 *
 * <pre>
 *  0 flags (R R R R I R R R)   1 reserved (24 bits)   4 VNI (24 bits)   7 reserved   8 inner Ethernet frame
 * </pre>
 *
 * The I flag must be 1 for a valid VNI; the other flag bits and the reserved fields are written as zero and ignored
 * on receipt (RFC 7348 section 5). The inner frame carries no FCS. Parse: {@link #wrap}, then {@link #validate}
 * ({@link #failedAt()} says where); accessors read 0 outside the wrapped bytes. Build: {@link #write}. No allocation.
 */
public final class VxlanHeader extends WireView {
    /** The IANA-assigned UDP destination port for VXLAN (RFC 7348 section 5). */
    public static final int IANA_PORT = 4789;
    /** The VXLAN header's length. */
    public static final int LENGTH = 8;
    /** The I flag: the VNI is valid. */
    public static final int FLAG_VNI_VALID = 0x08;
    /** The largest VNI (24 bits). */
    public static final int MAX_VNI = 0xFF_FFFF;
    /** The shortest inner frame: an Ethernet header. */
    public static final int MIN_INNER = 14;

    private static final int FLAGS = 0;
    private static final int VNI = 4;

    public enum Status implements Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than the 8-byte VXLAN header and a 14-byte inner Ethernet header"),
        VNI_NOT_VALID("the I flag is clear: the VNI is not valid (RFC 7348 section 5)");

        private final String description;

        Status(String description) {
            this.description = description;
        }


        @Override
        public String describe() {
            return description;
        }
    }

    public VxlanHeader wrap(BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, length);
        return this;
    }

    public Status validate() {
        if (!beginValidation(LENGTH + MIN_INNER)) {
            return fail(Status.TRUNCATED, 0);
        }
        if ((u8(FLAGS) & FLAG_VNI_VALID) == 0) {
            return fail(Status.VNI_NOT_VALID, FLAGS);
        }
        return Status.ACCEPTED;
    }

    /** The 24-bit VXLAN Network Identifier. */
    public int vni() {
        return (int) (u32(VNI) >>> 8);
    }

    /** The inner Ethernet frame's length (the payload after the header). */
    public int innerLength() {
        return (int) Math.max(0, length - LENGTH);
    }

    /** The inner frame's destination MAC. */
    public long innerDestination() {
        return u48(LENGTH);
    }

    /** The inner frame's source MAC. */
    public long innerSource() {
        return u48(LENGTH + 6);
    }

    /** Writes the 8-byte header with the I flag and {@code vni} at {@code offset}; answers 8. */
    public static int write(BytesStore<?, ?> store, long offset, int vni) {
        if (vni < 0 || vni > MAX_VNI) {
            throw new IllegalArgumentException("VNI " + vni + " is not 24 bits");
        }
        NetworkOrder.requireRange(store, offset, LENGTH);
        NetworkOrder.put32(store, offset + FLAGS, FLAG_VNI_VALID << 24);
        NetworkOrder.put32(store, offset + VNI, vni << 8);
        return LENGTH;
    }
}
