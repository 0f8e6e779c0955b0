package dev.irdmaemu.fw.roce;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.frame.LinkAndIpCheck;
import dev.irdmaemu.fw.frame.UdpHeader;

/**
 * The rules {@link RoceFrame} applies to a received RoCEv2 frame, one constant each (IBA Vol. 1 §9.2-§9.7 and
 * Annex A17; the header and length checks of drivers/infiniband/sw/rxe/rxe_recv.c and rxe_resp.c), from the
 * Ethernet header inwards.
 */
public enum RoceCheck implements Check {
    ACCEPTED("well-formed RoCEv2 packet"),
    ETH_TRUNCATED(LinkAndIpCheck.ETH_TRUNCATED.describe()),
    ETH_VLAN_TAG_TRUNCATED(LinkAndIpCheck.ETH_VLAN_TAG_TRUNCATED.describe()),
    NOT_IP(LinkAndIpCheck.NOT_IP.describe()),
    IPV4_TRUNCATED(LinkAndIpCheck.IPV4_TRUNCATED.describe()),
    IPV4_BAD_VERSION(LinkAndIpCheck.IPV4_BAD_VERSION.describe()),
    IPV4_IHL_TOO_SMALL(LinkAndIpCheck.IPV4_IHL_TOO_SMALL.describe()),
    IPV4_IHL_BEYOND_BUFFER(LinkAndIpCheck.IPV4_IHL_BEYOND_BUFFER.describe()),
    IPV4_TOTAL_LENGTH_BELOW_HEADER(LinkAndIpCheck.IPV4_TOTAL_LENGTH_BELOW_HEADER.describe()),
    IPV4_TOTAL_LENGTH_BEYOND_BUFFER(LinkAndIpCheck.IPV4_TOTAL_LENGTH_BEYOND_BUFFER.describe()),
    IPV4_BAD_CHECKSUM(LinkAndIpCheck.IPV4_BAD_CHECKSUM.describe()),
    IPV4_FRAGMENT(LinkAndIpCheck.IPV4_FRAGMENT.describe()),
    IPV6_TRUNCATED(LinkAndIpCheck.IPV6_TRUNCATED.describe()),
    IPV6_BAD_VERSION(LinkAndIpCheck.IPV6_BAD_VERSION.describe()),
    IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER(LinkAndIpCheck.IPV6_PAYLOAD_LENGTH_BEYOND_BUFFER.describe()),
    IPV6_EXTENSION_HEADER(LinkAndIpCheck.IPV6_EXTENSION_HEADER.describe()),
    NOT_UDP("IP protocol / next header is not UDP (17)"),
    UDP_TRUNCATED("UDP: " + UdpHeader.Status.TRUNCATED.describe()),
    UDP_LENGTH_BELOW_HEADER("UDP: " + UdpHeader.Status.LENGTH_BELOW_HEADER.describe()),
    UDP_LENGTH_MISMATCH("UDP: " + UdpHeader.Status.LENGTH_MISMATCH.describe()),
    UDP_BAD_CHECKSUM("UDP: checksum present but does not verify over the pseudo-header and datagram"),
    NOT_ROCEV2_PORT("UDP: destination port is not RoCEv2's 4791 (IBA Annex A17.2)"),
    BTH_TRUNCATED("BTH: the UDP payload is shorter than the 12-byte Base Transport Header"),
    BAD_TRANSPORT_VERSION("BTH: transport header version (TVer) is not 0 (IBA §9.2.5)"),
    OTHER_TRANSPORT("BTH: opcode of a transport this model does not carry (RD, XRC or manufacturer-specific)"),
    RESERVED_OPCODE("BTH: opcode reserved by IBA Table 38"),
    HEADERS_TRUNCATED("extension headers the opcode requires reach past the UDP payload"),
    ICRC_TRUNCATED("no room for the 4-byte ICRC after the headers"),
    NOT_WORD_ALIGNED("BTH to ICRC is not a whole number of 4-byte words (IBA §9.2.2: pad to a word)"),
    PAD_BEYOND_PAYLOAD("BTH pad count exceeds the bytes between the headers and the ICRC"),
    PAD_WITHOUT_PAYLOAD("BTH pad count not 0 on an opcode that carries no payload"),
    UNEXPECTED_PAYLOAD("bytes after the headers of an opcode that carries no payload"),
    ATOMIC_WRITE_NOT_8_BYTES("ATOMIC WRITE payload is not 8 bytes"),
    BAD_ICRC("ICRC does not match the invariant fields (IBA §7.8.1, Annex A17.4.3)"),
    PAYLOAD_ABOVE_MTU("payload longer than the path MTU"),
    PAYLOAD_NOT_FULL_MTU("FIRST or MIDDLE packet whose payload is not exactly the path MTU (IBA §9.7.7)"),
    EMPTY_LAST_PACKET("LAST packet without payload (IBA §9.7.7: 1 to PMTU bytes)");

    private final String text;

    RoceCheck(String text) {
        this.text = text;
    }


    @Override
    public String describe() {
        return text;
    }
}
