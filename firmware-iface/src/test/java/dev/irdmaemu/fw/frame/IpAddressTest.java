package dev.irdmaemu.fw.frame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IpAddressTest {

    @Test
    void ipv4IsKeptAsTheMappedIpv6Address() {
        int a = IpAddress.ipv4(192, 0, 2, 1);
        assertEquals(0xc0000201, a);
        long lo = IpAddress.mappedLo(a);
        assertEquals(0x0000_ffff_c000_0201L, lo); // ::ffff:192.0.2.1, RFC 4291 §2.5.5.2
        assertTrue(IpAddress.isIpv4Mapped(0, lo));
        assertEquals(a, IpAddress.ipv4(lo));
        assertFalse(IpAddress.isIpv4Mapped(1, lo));
        assertFalse(IpAddress.isIpv4Mapped(0, 0x0000_fffe_c000_0201L));
        assertEquals("192.0.2.1", IpAddress.format(0, lo, new StringBuilder()).toString());
        assertEquals("198.51.100.255",
                IpAddress.formatIpv4(IpAddress.ipv4(198, 51, 100, 255), new StringBuilder()).toString());
    }

    @ParameterizedTest(name = "{2}")
    @CsvSource({
            // RFC 5952 §4: canonical text
            "0x20010db800000000, 0x0000000000000001, 2001:db8::1",
            "0x20010db800000000, 0x0000000000000000, 2001:db8::",
            "0x0000000000000000, 0x0000000000000001, ::1",
            "0x0000000000000000, 0x0000000000000000, ::",
            "0x20010db800000001, 0x0001000100010001, 2001:db8:0:1:1:1:1:1", // §4.2.2: one zero group stays
            "0x20010db800000000, 0x0001000000000001, 2001:db8::1:0:0:1",   // §4.2.3: first of equal runs
            "0x20010db800000001, 0x0000000000000001, 2001:db8:0:1::1",     // §4.2.3: the longest run wins
            "0x20010db8000a0bcd, 0x00ef000000000000, 2001:db8:a:bcd:ef::", // §4.1 no leading zeros, §4.3 lower
            "0x20010db8ffffffff, 0xffffffffffffffff, 2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
    })
    void ipv6CanonicalText(String hi, String lo, String expected) {
        assertEquals(expected, IpAddress.format(Long.decode(hi), Long.parseUnsignedLong(lo.substring(2), 16),
                new StringBuilder()).toString());
    }

    @Test
    void mappedAddressInHexWhenAskedForIpv6Text() {
        assertEquals("::ffff:c000:201",
                IpAddress.formatIpv6(0, IpAddress.mappedLo(IpAddress.ipv4(192, 0, 2, 1)), new StringBuilder()).toString());
    }

    @Property(tries = 500)
    void ipv6TextParsesBackToTheSameAddress(@ForAll long hiLow32, @ForAll long lo, @ForAll int zeroMask)
            throws UnknownHostException {
        // Documentation prefix 2001:db8::/32, then zero out random groups to exercise the :: choice.
        long hi = 0x2001_0db8_0000_0000L | (hiLow32 & 0xffff_ffffL);
        for (int g = 0; g < 6; g++) {
            if ((zeroMask & (1 << g)) != 0) {
                if (g < 2) {
                    hi &= ~(0xffffL << (16 * g));
                } else {
                    lo &= ~(0xffffL << (16 * (g - 2)));
                }
            }
        }
        String text = IpAddress.format(hi, lo, new StringBuilder()).toString();
        byte[] b = InetAddress.getByName(text).getAddress(); // JDK parser as the independent reader
        long phi = 0;
        long plo = 0;
        for (int i = 0; i < 8; i++) {
            phi = (phi << 8) | (b[i] & 0xff);
            plo = (plo << 8) | (b[8 + i] & 0xff);
        }
        assertEquals(hi, phi, text);
        assertEquals(lo, plo, text);
        assertFalse(text.contains(":::"), text);
        assertTrue(text.indexOf("::") == text.lastIndexOf("::"), text);
    }
}
