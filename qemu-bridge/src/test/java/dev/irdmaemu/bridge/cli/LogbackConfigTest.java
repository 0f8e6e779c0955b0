package dev.irdmaemu.bridge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.ConsoleAppender;
import java.net.URL;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/**
 * The executable's logback.xml (tests run with firmware-iface's logback-test.xml instead, so load it by hand):
 * WARN and above, to stderr.
 */
class LogbackConfigTest {
    @Test
    void warnAndAboveToStderr() throws Exception {
        URL config = Main.class.getResource("/logback.xml");
        assertNotNull(config, "logback.xml is in qemu-bridge's resources");
        LoggerContext context = new LoggerContext();
        JoranConfigurator configurator = new JoranConfigurator();
        configurator.setContext(context);
        configurator.doConfigure(config);
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        assertEquals(Level.WARN, root.getLevel());
        assertEquals(Level.WARN, context.getLogger("net.openhft.chronicle.bytes").getEffectiveLevel());
        assertEquals(Level.WARN, context.getLogger("dev.irdmaemu.bridge.cli.DecodeCommand").getEffectiveLevel());
        ConsoleAppender<?> stderr = (ConsoleAppender<?>) root.getAppender("STDERR");
        assertEquals("System.err", stderr.getTarget());
        context.stop();
    }
}
