package dev.irdmaemu.bridge.decode;

import dev.irdmaemu.fw.iwarp.Terminate;

/**
 * Names of a Terminate message's layer, error type and error code (RFC 5040 §7.1 and §7.2 for RDMAP, RFC 5041
 * §7.2 for DDP, RFC 5044 §8 and RFC 6581 §8 for the LLP/MPA layer), e.g. {@code layer LLP, type MPA, code CRC
 * error}. Values without a name are shown in hex.
 */
final class TerminateNames {
    private TerminateNames() {
    }

    static void append(int layer, int type, int code, StringBuilder out) {
        switch (layer) {
            case Terminate.LAYER_RDMAP -> {
                out.append("layer RDMAP, type ");
                name(rdmapType(type), type, out);
                out.append(", code ");
                name(rdmapCode(type, code), code, out);
            }
            case Terminate.LAYER_DDP -> {
                out.append("layer DDP, type ");
                name(ddpType(type), type, out);
                out.append(", code ");
                name(ddpCode(type, code), code, out);
            }
            case Terminate.LAYER_LLP -> {
                out.append("layer LLP, type ");
                // irdma reports MPA errors with error type 3 (type.h DDP_LLP), siw and RFC 5044 §8 with 0
                name(type == Terminate.Llp.ETYPE_MPA || type == Terminate.Ddp.ETYPE_IRDMA_LLP ? "MPA" : null,
                        type, out);
                out.append(", code ");
                name(llpCode(code), code, out);
            }
            default -> {
                out.append("layer 0x").append(Integer.toHexString(layer)).append(", type 0x")
                        .append(Integer.toHexString(type)).append(", code 0x").append(Integer.toHexString(code));
            }
        }
    }

    private static void name(String name, int value, StringBuilder out) {
        if (name != null) {
            out.append(name);
        } else {
            out.append("0x").append(Integer.toHexString(value));
        }
    }

    private static String rdmapType(int type) {
        return switch (type) {
            case Terminate.Rdmap.ETYPE_LOCAL_CATASTROPHIC -> "local catastrophic";
            case Terminate.Rdmap.ETYPE_REMOTE_PROTECTION -> "remote protection";
            case Terminate.Rdmap.ETYPE_REMOTE_OPERATION -> "remote operation";
            default -> null;
        };
    }

    /** RFC 5040 §7.2: the code's meaning depends on the error type. */
    private static String rdmapCode(int type, int code) {
        if (code == Terminate.Rdmap.UNSPECIFIED) {
            return "unspecified";
        }
        if (type == Terminate.Rdmap.ETYPE_LOCAL_CATASTROPHIC) {
            return code == 0 ? "catastrophic" : null;
        }
        if (type == Terminate.Rdmap.ETYPE_REMOTE_PROTECTION) {
            return switch (code) {
                case Terminate.Rdmap.INVALID_STAG -> "invalid STag";
                case Terminate.Rdmap.BASE_OR_BOUNDS_VIOLATION -> "base or bounds violation";
                case Terminate.Rdmap.ACCESS_RIGHTS_VIOLATION -> "access rights violation";
                case Terminate.Rdmap.STAG_NOT_ASSOCIATED -> "STag not associated with RDMAP stream";
                case Terminate.Rdmap.TO_WRAP -> "TO wrap";
                case Terminate.Rdmap.CANNOT_INVALIDATE -> "STag cannot be invalidated";
                default -> null;
            };
        }
        if (type == Terminate.Rdmap.ETYPE_REMOTE_OPERATION) {
            return switch (code) {
                case Terminate.Rdmap.INVALID_RDMAP_VERSION -> "invalid RDMAP version";
                case Terminate.Rdmap.UNEXPECTED_OPCODE -> "unexpected opcode";
                case Terminate.Rdmap.CATASTROPHIC_LOCAL -> "catastrophic error, localized to RDMAP stream";
                case Terminate.Rdmap.CATASTROPHIC_GLOBAL -> "catastrophic error, global";
                case Terminate.Rdmap.CANNOT_INVALIDATE -> "STag cannot be invalidated";
                default -> null;
            };
        }
        return null;
    }

    private static String ddpType(int type) {
        return switch (type) {
            case Terminate.Ddp.ETYPE_LOCAL_CATASTROPHIC -> "local catastrophic";
            case Terminate.Ddp.ETYPE_TAGGED_BUFFER -> "tagged buffer";
            case Terminate.Ddp.ETYPE_UNTAGGED_BUFFER -> "untagged buffer";
            default -> null;
        };
    }

    /** RFC 5041 §7.2. */
    private static String ddpCode(int type, int code) {
        if (type == Terminate.Ddp.ETYPE_LOCAL_CATASTROPHIC) {
            return code == Terminate.Ddp.CATASTROPHIC_LOCAL ? "catastrophic" : null;
        }
        if (type == Terminate.Ddp.ETYPE_TAGGED_BUFFER) {
            return switch (code) {
                case Terminate.Ddp.TAGGED_INVALID_STAG -> "invalid STag";
                case Terminate.Ddp.TAGGED_BASE_OR_BOUNDS_VIOLATION -> "base or bounds violation";
                case Terminate.Ddp.TAGGED_STAG_NOT_ASSOCIATED -> "STag not associated with DDP stream";
                case Terminate.Ddp.TAGGED_TO_WRAP -> "TO wrap";
                case Terminate.Ddp.TAGGED_INVALID_DDP_VERSION -> "invalid DDP version";
                default -> null;
            };
        }
        if (type == Terminate.Ddp.ETYPE_UNTAGGED_BUFFER) {
            return switch (code) {
                case Terminate.Ddp.UNTAGGED_INVALID_QN -> "invalid QN";
                case Terminate.Ddp.UNTAGGED_INVALID_MSN_NO_BUFFER -> "invalid MSN, no buffer available";
                case Terminate.Ddp.UNTAGGED_INVALID_MSN_RANGE -> "invalid MSN, MSN range not valid";
                case Terminate.Ddp.UNTAGGED_INVALID_MO -> "invalid MO";
                case Terminate.Ddp.UNTAGGED_MESSAGE_TOO_LONG -> "DDP message too long";
                case Terminate.Ddp.UNTAGGED_INVALID_DDP_VERSION -> "invalid DDP version";
                default -> null;
            };
        }
        return null;
    }

    /** RFC 5044 §8; RFC 6581 §8 adds 5..7. */
    private static String llpCode(int code) {
        return switch (code) {
            case Terminate.Llp.TCP_CONNECTION_LOST -> "TCP connection closed";
            case Terminate.Llp.CRC_ERROR -> "CRC error";
            case Terminate.Llp.MARKER_ERROR -> "marker error";
            case Terminate.Llp.INVALID_REQUEST_REPLY -> "invalid MPA Request/Reply";
            case Terminate.Llp.LOCAL_CATASTROPHIC -> "local catastrophic";
            case Terminate.Llp.INSUFFICIENT_IRD -> "insufficient IRD resources";
            case Terminate.Llp.NO_MATCHING_RTR -> "no matching RTR model";
            default -> null;
        };
    }
}
