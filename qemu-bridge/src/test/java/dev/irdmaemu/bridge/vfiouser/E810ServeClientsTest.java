package dev.irdmaemu.bridge.vfiouser;

import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.argsz;
import static dev.irdmaemu.bridge.vfiouser.VfioUserClient.dmaMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.bridge.e810.E810Serve;
import dev.irdmaemu.bridge.vfiouser.VfioUserClient.Reply;
import dev.irdmaemu.fw.reg.IceRegister;
import dev.irdmaemu.model.pci.E810PciFunction;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.newsclub.net.unix.AFUNIXServerSocket;
import org.newsclub.net.unix.AFUNIXSocketAddress;

/**
 * {@code irdma-emu serve}'s functions ({@link E810Serve}) against QEMU-like clients in this process: clients one
 * after another, each finding the function at power-on, every connect, disconnect, reset and FLR in the session
 * log; and the usual mistakes refused with a reason: a second client on a busy socket, a socket path another
 * server holds (a stale one is replaced), guest RAM that cannot be shared.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class E810ServeClientsTest {
    private static final int CONFIG = 7;
    private static final long RAM_IOVA = 0x4000_0000L;
    private static final long RAM_SIZE = 1 << 20;
    private static final int COMMAND_MEM_BME = 0x0006;
    private static final int DEVCTL = E810PciFunction.EXP_CAP + 8;
    private static final long ATQ_BASE = 0x1234_5000L;

    @TempDir
    Path dir;

    private Path shm;
    private E810Serve serve;

    @BeforeEach
    void ram() throws IOException {
        shm = Files.createTempFile(Path.of("/dev/shm"), "e810-serve-test", ".ram");
        try (RandomAccessFile f = new RandomAccessFile(shm.toFile(), "rw")) {
            f.setLength(RAM_SIZE);
        }
    }

    @AfterEach
    void stop() throws IOException {
        if (serve != null) {
            serve.close();
        }
        Files.deleteIfExists(shm);
    }

    private E810Serve start(int functions, String run) throws IOException {
        return E810Serve.start(new E810Serve.Settings(functions, dir.resolve("sockets"), dir.resolve(run), 512,
                Duration.ofSeconds(20), true, false, null, false), line -> { });
    }

    private static void ok(Reply r) {
        assertFalse(r.isError(), () -> "error reply " + r);
    }

    /** What QEMU does at realize and what ice does first: RAM mapped, realized, MEM+BME, the admin queue's base. */
    private static void drive(VfioUserClient c, RandomAccessFile ram) throws IOException {
        ok(c.negotiate());
        realize(c, ram);
    }

    private static void realize(VfioUserClient c, RandomAccessFile ram) throws IOException {
        ok(c.call(VfioUserCommand.DMA_MAP, dmaMap(3, 0, RAM_IOVA, RAM_SIZE), ram.getFD()));
        ok(c.call(VfioUserCommand.DEVICE_GET_INFO, argsz(16, 16)));
        ok(c.write(CONFIG, 0x04, 2, COMMAND_MEM_BME));
        ok(c.write(0, IceRegister.PF_FW_ATQBAL, 4, ATQ_BASE));
    }

    private List<String> sessions() throws IOException {
        return Files.readAllLines(serve.sessionsLog(), StandardCharsets.UTF_8);
    }

    private static long count(List<String> lines, String event) {
        return lines.stream().filter(l -> l.contains(" " + event + " ")).count();
    }

    @Test
    void eachNewClientFindsTheFunctionAtPowerOnAndTheSessionLogTellsEveryStep() throws Exception {
        serve = start(1, "run");
        Path socket = serve.devices().get(0).socketPath();
        VfioUserServer server = serve.adapter().server(0);
        try (RandomAccessFile ram = new RandomAccessFile(shm.toFile(), "rw")) {
            try (VfioUserClient first = new VfioUserClient(socket)) {
                drive(first, ram);
                assertEquals(COMMAND_MEM_BME, first.read(CONFIG, 0x04, 2));
                assertEquals(ATQ_BASE, first.read(0, IceRegister.PF_FW_ATQBAL, 4), "the register holds the base");
                // a machine reset (QEMU's DEVICE_RESET) and a driver's FLR, both logged
                ok(first.call(VfioUserCommand.DEVICE_RESET, null));
                assertEquals(0, first.read(CONFIG, 0x04, 2), "DEVICE_RESET cleared COMMAND");
                ok(first.write(CONFIG, 0x04, 2, COMMAND_MEM_BME));
                ok(first.write(0, IceRegister.PF_FW_ATQBAL, 4, ATQ_BASE));
                ok(first.write(CONFIG, DEVCTL, 2, 0x8000));
                assertEquals(0, first.read(CONFIG, 0x04, 2), "the FLR cleared COMMAND");
                ok(first.write(CONFIG, 0x04, 2, COMMAND_MEM_BME));
                ok(first.write(0, IceRegister.PF_FW_ATQBAL, 4, ATQ_BASE));
            } // QEMU killed: the socket closes under the device
            assertTrue(server.awaitClientsEnded(1, Duration.ofSeconds(20)));
            assertEquals(0, serve.adapter().server(0).dma().readable().regions(), "the first client's RAM is unmapped");
            assertTrue(serve.counts(0).empty(), () -> "nothing left on the model: " + countsOrError());

            try (VfioUserClient second = new VfioUserClient(socket)) {
                ok(second.negotiate());
                assertEquals(0, second.read(CONFIG, 0x04, 2), "a fresh function: COMMAND at power-on");
                assertEquals(0, second.read(0, IceRegister.PF_FW_ATQBAL, 4), "the admin queue base at power-on");
                realize(second, ram);
                assertEquals(ATQ_BASE, second.read(0, IceRegister.PF_FW_ATQBAL, 4), "the second client is served");
            }
            assertTrue(server.awaitClientsEnded(2, Duration.ofSeconds(20)));
        }
        List<String> lines = sessions();
        assertEquals(2, count(lines, "connect"), lines::toString);
        assertEquals(2, count(lines, "disconnect"), lines::toString);
        assertEquals(1, count(lines, "device_reset"), lines::toString);
        assertEquals(1, count(lines, "flr"), lines::toString);
        assertEquals(2, count(lines, "power_on"), "a power-on reset after each client: " + lines);
        String connect1 = lines.stream().filter(l -> l.contains(" connect client=1")).findFirst().orElseThrow();
        assertTrue(connect1.matches("^20\\d\\d-\\d\\d-\\d\\dT\\S+Z \\+\\d+\\.\\d{3}s pf0 connect client=1 qps=0 .*"),
                connect1);
        String left1 = lines.stream().filter(l -> l.contains(" disconnect client=1")).findFirst().orElseThrow();
        assertTrue(left1.contains("(hung up)") && left1.contains("flrs=1") && left1.contains("device_resets=1")
                && left1.contains("VERSION=1"), "the counters at the disconnect: " + left1);
        assertTrue(lines.stream().anyMatch(l -> l.contains("power_on") && l.contains("qps=0 cqs=0 vsis=0 tx_queues=0")),
                lines::toString);
        assertEquals(lines.indexOf(left1) + 1, lines.indexOf(lines.stream()
                .filter(l -> l.contains(" power_on ")).findFirst().orElseThrow()), "reset right after the client left");
        assertTrue(lines.indexOf(lines.stream().filter(l -> l.contains(" power_on ")).findFirst().orElseThrow())
                < lines.indexOf(lines.stream().filter(l -> l.contains(" connect client=2")).findFirst().orElseThrow()),
                "the reset is done before the next client is accepted");
    }

    private String countsOrError() {
        try {
            return serve.counts(0).toString();
        } catch (Exception e) {
            return e.toString();
        }
    }

    @Test
    void withoutATraceFileTheSessionLogStillNamesEachFlr() throws Exception {
        serve = E810Serve.start(new E810Serve.Settings(1, dir.resolve("sockets"), dir.resolve("quiet"), 512,
                Duration.ofSeconds(20), false, false, null, false), line -> { });
        try (RandomAccessFile ram = new RandomAccessFile(shm.toFile(), "rw");
             VfioUserClient c = new VfioUserClient(serve.devices().get(0).socketPath())) {
            drive(c, ram);
            ok(c.write(CONFIG, DEVCTL, 2, 0x8000));
            ok(c.write(CONFIG, DEVCTL, 2, 0x8000));
        }
        assertTrue(serve.adapter().server(0).awaitClientsEnded(1, Duration.ofSeconds(20)));
        assertEquals(2, count(sessions(), "flr"), sessions()::toString);
        assertFalse(Files.exists(dir.resolve("quiet").resolve(E810Serve.TRACE)));
        // only the resets were traced (2 FLRs and the power-on, each a function_reset of the PCI function and of
        // its blocks), not the register accesses, admin queue commands and interrupts of a full trace
        long emitted = serve.adapter().trace(0).emitted();
        assertTrue(emitted >= 3 && emitted <= 9, "events traced: " + emitted);
    }

    @Test
    void aSecondQemuOnABusySocketIsRefusedAndTheFirstIsUnharmed() throws Exception {
        serve = start(1, "run");
        Path socket = serve.devices().get(0).socketPath();
        try (RandomAccessFile ram = new RandomAccessFile(shm.toFile(), "rw");
             VfioUserClient first = new VfioUserClient(socket)) {
            drive(first, ram);
            try (VfioUserClient second = new VfioUserClient(socket)) {
                assertTrue(second.closedByServer(), "the second client is closed at once");
            }
            assertEquals(ATQ_BASE, first.read(0, IceRegister.PF_FW_ATQBAL, 4), "the first keeps its state");
            assertEquals(COMMAND_MEM_BME, first.read(CONFIG, 0x04, 2));
        }
        List<String> lines = sessions();
        assertEquals(1, count(lines, "refused"), lines::toString);
        assertTrue(lines.stream().anyMatch(l -> l.contains("pf0 refused a second client connected while client #1"
                + " is served")), lines::toString);
        assertEquals(1, count(lines, "connect"), "the refused one is no session: " + lines);
        assertEquals(0, count(lines, "power_on"), "the refusal reset nothing: " + lines);
    }

    @Test
    void aSocketPathAnotherServeHoldsIsRefusedAndAStaleOneIsReplaced() throws Exception {
        serve = start(2, "first");
        Path socket0 = serve.devices().get(0).socketPath();
        IOException e = assertThrows(IOException.class, () -> start(2, "second"));
        assertTrue(e instanceof VfioUserServer.SocketInUseException, e::toString);
        assertTrue(e.getMessage().contains(socket0 + " is in use: another server"), e.getMessage());
        // the first serve is unharmed: its sockets are there and serve; the probe changed nothing
        assertTrue(Files.exists(socket0) && Files.exists(serve.devices().get(1).socketPath()));
        try (RandomAccessFile ram = new RandomAccessFile(shm.toFile(), "rw");
             VfioUserClient c = new VfioUserClient(socket0)) {
            drive(c, ram);
        }
        assertTrue(serve.adapter().server(0).awaitClientsEnded(2, Duration.ofSeconds(20)));
        assertEquals(0, count(sessions(), "power_on") - 1, "only the real client's reset: " + sessions());
        serve.close();
        assertFalse(Files.exists(socket0), "teardown removes the socket files");
        assertFalse(Files.exists(serve.devices().get(1).socketPath()));

        // a socket file a dead process left: nobody listens, so it is replaced
        AFUNIXServerSocket dead = AFUNIXServerSocket.newInstance();
        dead.setDeleteOnClose(false);
        dead.bind(AFUNIXSocketAddress.of(new File(socket0.toString())));
        dead.close();
        assertTrue(Files.exists(socket0), "the stale socket file stays behind");
        serve = start(1, "third");
        try (RandomAccessFile ram = new RandomAccessFile(shm.toFile(), "rw");
             VfioUserClient c = new VfioUserClient(socket0)) {
            drive(c, ram);
        }
    }

    @Test
    void aVhostUserSocketAnotherServeHoldsIsRefusedToo() throws Exception {
        Path vhost = dir.resolve("vhost.sock");
        serve = E810Serve.start(new E810Serve.Settings(1, dir.resolve("a"), dir.resolve("one"), 512,
                Duration.ofSeconds(20), false, false, vhost, false), line -> { });
        assertTrue(serve.qemuArguments().contains("vhost-user,id=net0,chardev=chr0"), serve.qemuArguments()::toString);
        IOException e = assertThrows(IOException.class, () -> E810Serve.start(new E810Serve.Settings(1,
                dir.resolve("b"), dir.resolve("two"), 512, Duration.ofSeconds(20), false, false, vhost, false), line -> { }));
        assertTrue(e instanceof VfioUserServer.SocketInUseException && e.getMessage().contains(vhost + " is in use"),
                e::toString);
        assertFalse(Files.exists(dir.resolve("b").resolve("e810-0.sock")), "the refused serve left nothing behind");
        assertTrue(Files.exists(vhost), "the first keeps its socket");
        serve.close();
        assertFalse(Files.exists(vhost));
    }

    @Test
    void guestRamWithoutADescriptorIsRefusedAtRealizeWithTheReason() throws Exception {
        serve = start(1, "run");
        try (VfioUserClient c = new VfioUserClient(serve.devices().get(0).socketPath())) {
            ok(c.negotiate());
            // QEMU's RAM without a memory backend: anonymous memory, so DMA_MAP comes without a descriptor
            Reply r = c.call(VfioUserCommand.DMA_MAP, dmaMap(3, 0, 0, 0x8000_0000L));
            assertTrue(r.isError(), r::toString);
            assertEquals(22, r.error, "EINVAL");
            assertTrue(c.closedByServer(), "and the connection is closed, so QEMU's realize fails");
        }
        assertTrue(serve.adapter().server(0).awaitClientsEnded(1, Duration.ofSeconds(20)));
        try (VfioUserClient c = new VfioUserClient(serve.devices().get(0).socketPath())) {
            ok(c.negotiate());
            // the read-only BIOS window without one is fine (QEMU never shares pc.bios)
            ok(c.call(VfioUserCommand.DMA_MAP, dmaMap(1, 0, 0xfffc0000L, 256 << 10)));
        }
        List<String> lines = sessions();
        assertTrue(lines.stream().anyMatch(l -> l.contains("pf0 not_shared client=1 guest RAM 0x0+0x80000000 came"
                + " without a file descriptor") && l.contains("memory-backend-memfd,id=mem,size=<RAM>,share=on")),
                lines::toString);
    }

    /** Two functions of one adapter: one slot (0.0 with multifunction, 0.1), one serial number, a socket and MAC each. */
    @Test
    void twoFunctionsShareOneSlotAndSerialNumberWithTheirOwnMacsAndSockets() throws Exception {
        serve = start(2, "run");
        long dsn0 = serve.adapter().pf(0).pci().serialNumber();
        long dsn1 = serve.adapter().pf(1).pci().serialNumber();
        assertEquals(dsn0, dsn1, "the functions of one adapter share its Device Serial Number");
        List<String> a = serve.qemuArguments();
        assertEquals(List.of("-m", "512M", "-object", "memory-backend-memfd,id=mem,size=512M,share=on",
                "-machine", "q35,memory-backend=mem",
                "-device", "pcie-root-port,id=rp1,chassis=1,slot=1",
                "-device", "{\"driver\":\"vfio-user-pci\",\"id\":\"e810-0\",\"bus\":\"rp1\",\"addr\":\"0.0\","
                        + "\"multifunction\":true,\"rombar\":0,\"socket\":{\"type\":\"unix\",\"path\":\""
                        + serve.devices().get(0).socketPath() + "\"},\"x-msg-timeout\":20000}",
                "-device", "{\"driver\":\"vfio-user-pci\",\"id\":\"e810-1\",\"bus\":\"rp1\",\"addr\":\"0.1\","
                        + "\"rombar\":0,\"socket\":{\"type\":\"unix\",\"path\":\"" + serve.devices().get(1).socketPath()
                        + "\"},\"x-msg-timeout\":20000}"), a);
        assertEquals(a, Files.readAllLines(dir.resolve("run").resolve(E810Serve.QEMU_ARGUMENTS)));
        // each function answers on its own socket, with the adapter's serial number (the DSN capability at 0x100)
        for (int i = 0; i < 2; i++) {
            try (VfioUserClient c = new VfioUserClient(serve.devices().get(i).socketPath())) {
                ok(c.negotiate());
                long dsn = c.read(CONFIG, E810PciFunction.DSN_CAP + 4, 4)
                        | c.read(CONFIG, E810PciFunction.DSN_CAP + 8, 4) << 32;
                assertEquals(i == 0 ? dsn0 : dsn1, dsn);
            }
        }
        List<String> lines = sessions();
        assertTrue(lines.stream().anyMatch(l -> l.contains("pf0 serving mac=02:00:5e:10:00:01")), lines::toString);
        assertTrue(lines.stream().anyMatch(l -> l.contains("pf1 serving mac=02:00:5e:10:00:02")), lines::toString);
    }
}
