package dev.irdmaemu.bridge.container;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.kit.GuestLaunch.Siw;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How {@link GuestExtension} reads a {@link GuestTest}: when the guest has a NIC, which siw build it names. */
class GuestTestSettingsTest {
    /** Annotated methods to read the settings from; never run (the class is no test class). */
    @SuppressWarnings("unused")
    private static final class Specimens {
        @GuestTest(scenario = "smoke")
        void plain() {
        }

        @GuestTest(scenario = "smoke", nic = true)
        void barePort() {
        }

        @GuestTest(scenario = "ping", model = HostedNodeModel.class)
        void hostedNode() {
        }

        @GuestTest(scenario = "rping-client", model = HostedNodeModel.class, siw = Siw.STOCK)
        void stockSiw() {
        }

        @GuestTest(scenario = "smoke", siw = {Siw.STOCK, Siw.PEER_TO_PEER})
        void twoSiwBuilds() {
        }
    }

    private static GuestTest spec(String method) throws NoSuchMethodException {
        return Specimens.class.getDeclaredMethod(method).getAnnotation(GuestTest.class);
    }

    private static GuestBoot boot(String method) throws NoSuchMethodException {
        return new GuestBoot(method, spec(method), null, null, Path.of("f"), Path.of("target"));
    }

    @Test
    void aModelOtherThanTheBarePortImpliesANic() throws Exception {
        assertFalse(GuestExtension.hasNic(spec("plain")));
        assertTrue(GuestExtension.hasNic(spec("barePort")));
        assertTrue(GuestExtension.hasNic(spec("hostedNode")), "the hosted node serves the guest's NIC");
    }

    @Test
    void theSiwBuildIsTheScenariosUnlessTheTestNamesOneAndAtMostOne() throws Exception {
        assertEquals(Optional.empty(), boot("hostedNode").siw(), "none named: the scenario's own");
        assertEquals(Optional.of(Siw.STOCK), boot("stockSiw").siw());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> boot("twoSiwBuilds").siw());
        assertTrue(e.getMessage().contains("at most one siw build"), e.getMessage());
    }
}
