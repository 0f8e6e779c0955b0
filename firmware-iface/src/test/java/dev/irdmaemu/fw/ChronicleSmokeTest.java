package dev.irdmaemu.fw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

/** Chronicle Bytes runs on Java 17 with the flags the parent pom passes, and its analytics are absent. */
class ChronicleSmokeTest {
    @Test
    void nativeBytesReadAndWriteInNetworkOrderWhenAsked() {
        Bytes<Void> b = Bytes.allocateElasticDirect(64);
        try {
            b.writeInt(0, Integer.reverseBytes(0x01020304));
            assertEquals(0x04, b.readUnsignedByte(3));
            assertEquals(0x01, b.readUnsignedByte(0));
        } finally {
            b.releaseLast();
        }
    }

    @Test
    void analyticsAreNotOnTheClasspath() {
        assertThrows(ClassNotFoundException.class,
                () -> Class.forName("net.openhft.chronicle.analytics.Analytics"));
    }
}
