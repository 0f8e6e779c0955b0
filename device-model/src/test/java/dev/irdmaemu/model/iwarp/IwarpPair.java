package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.pcap.FrameTap;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.fw.wire.FaultProfile;
import dev.irdmaemu.fw.wire.Link;
import dev.irdmaemu.model.IwarpTestDriver;
import dev.irdmaemu.model.IwarpTestDriver.Qp;
import dev.irdmaemu.model.IwarpTestDriver.QpSpec;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.qp.QpState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Two model nodes on one simulated link, each brought up as irdma's probe does, with ARP entries for each other,
 * and connections made the way irdma's CM hands them to the hardware: the passive side (B) writes the LSMM and the
 * RTS-AE WQEs and goes to RTS (its MPA Reply leaves on the TCP stream raw and reaches A's ILQ, where A's CM reads
 * it), then the active side (A) steers the connection to its QP, writes the RTR and goes to RTS with a receive
 * sequence past the Reply. Both contexts carry the sequence numbers the handshake left them with.
 */
final class IwarpPair implements AutoCloseable {
    static final long MAC_A = 0x02_00_00_00_00_0aL;
    static final long MAC_B = 0x02_00_00_00_00_0bL;
    static final int IP_A = IpAddress.ipv4(192, 0, 2, 1);
    static final int IP_B = IpAddress.ipv4(192, 0, 2, 2);
    static final int ARP_INDEX = 3;
    /** What B's CM sends as its MPA Reply (RFC 6581 framing is the CM's business; the device sends it raw). */
    static final byte[] MPA_REPLY = "MPA ID Rep frame\u0000\u0000\u0000\u0008\u0080\u0010\u0000\u0010pd-bytes"
            .getBytes(StandardCharsets.ISO_8859_1);

    final SimScheduler scheduler;
    final Link link;
    final IwarpTestDriver a;
    final IwarpTestDriver b;
    private int nextCq = 10;
    /** Entries of the CQ each side of a connection gets. */
    int cqEntries = 4096;
    private int nextPort = 0;

    IwarpPair(long ramBytes) {
        this(ramBytes, FaultProfile.NONE, FaultProfile.NONE, 5);
    }

    IwarpPair(long ramBytes, FaultProfile aOut, FaultProfile bOut, long seed) {
        this(ramBytes, aOut, bOut, seed, FrameTap.NONE);
    }

    /** With {@code tap} seeing every frame the link carries. */
    IwarpPair(long ramBytes, FaultProfile aOut, FaultProfile bOut, long seed, FrameTap tap) {
        scheduler = new SimScheduler(seed);
        link = new Link(scheduler, tap);
        a = new IwarpTestDriver(scheduler, ramBytes, MAC_A, IP_A);
        b = new IwarpTestDriver(scheduler, ramBytes, MAC_B, IP_B);
        a.attachAndBringUp(link, aOut);
        b.attachAndBringUp(link, bOut);
        if (!a.addArp(ARP_INDEX, MAC_B) || !b.addArp(ARP_INDEX, MAC_A)) {
            throw new AssertionError("ARP entries");
        }
    }

    /** One connection: A's QP (active, RTR) and B's QP (passive, LSMM). */
    final class Conn {
        Qp active;
        Qp passive;
        IwarpTestDriver.Cq aCq;
        IwarpTestDriver.Cq bCq;
        IwarpTestDriver.Ae activeEstablished;
        IwarpTestDriver.Ae passiveEstablished;
        final List<IwarpTestDriver.Ae> aAes = new ArrayList<>();
        final List<IwarpTestDriver.Ae> bAes = new ArrayList<>();

        /** Polls both AEQs into the lists; answers the new ones of {@code node}. */
        List<IwarpTestDriver.Ae> aes(IwarpTestDriver node) {
            List<IwarpTestDriver.Ae> got = node.pollAes();
            (node == a ? aAes : bAes).addAll(got);
            return got;
        }
    }

    Conn connect(int qpA, int qpB, boolean rtrRead) {
        return connect(qpA, qpB, rtrRead, s -> { }, s -> { });
    }

    /**
     * Makes a connection and runs until both sides raised IRDMA_AE_LLP_CONNECTION_ESTABLISHED. {@code tweakA} /
     * {@code tweakB} adjust the QP specs (IRD, ORD, CRC ...) before the QPs are created.
     */
    Conn connect(int qpA, int qpB, boolean rtrRead, Consumer<QpSpec> tweakA, Consumer<QpSpec> tweakB) {
        Conn c = new Conn();
        int portA = 40000 + nextPort;
        int portB = 20000 + nextPort;
        nextPort++;
        long isnA = 0x1000_0000L + 0x1111L * qpA;
        long isnB = 0xfff0_0000L + 0x2222L * qpB; // B's sequence space wraps during long transfers
        c.aCq = a.createCq(nextCq++, cqEntries);
        c.bCq = b.createCq(nextCq++, cqEntries);
        QpSpec sa = QpSpec.connection(qpA, c.aCq, portA, IP_B, portB, isnA, isnB + MPA_REPLY.length, ARP_INDEX);
        tweakA.accept(sa);
        QpSpec sb = QpSpec.connection(qpB, c.bCq, portB, IP_A, portA, isnB, isnA, ARP_INDEX);
        tweakB.accept(sb);
        c.active = a.createQp(sa);
        c.passive = b.createQp(sb);
        // B (passive, cm.c irdma_accept): the MPA Reply as the LSMM, RTS.
        IwarpTestDriver.Buffer reply = b.buffer(MPA_REPLY.length, MemoryRegions.LOCAL_WRITE);
        b.store().write(b.off(reply.gpa()), MPA_REPLY);
        require(b.qhash(IwarpTestDriver.QHASH_ADD, portB, IP_A, portA, qpB), "B qhash");
        require(a.qhash(IwarpTestDriver.QHASH_ADD, portA, IP_B, portB, 1), "A qhash to the ILQ");
        b.writeLsmm(c.passive, reply.gpa(), MPA_REPLY.length, reply.stag());
        require(b.modify(c.passive, QpState.RTS), "B RTS");
        // A's CM reads the Reply on its ILQ.
        runUntil(() -> a.pollIlqPayload() != null, 50_000_000L);
        // A (active, cm.c irdma_cm_event_connected): the connection to the QP, the RTR, RTS.
        require(a.qhash(IwarpTestDriver.QHASH_MODIFY, portA, IP_B, portB, qpA), "A qhash to the QP");
        a.writeRtr(c.active, rtrRead);
        require(a.modify(c.active, QpState.RTS), "A RTS");
        runUntil(() -> {
            for (IwarpTestDriver.Ae e : c.aes(a)) {
                if (e.code() == AeCode.LLP_CONNECTION_ESTABLISHED.code() && e.qpId() == qpA) {
                    c.activeEstablished = e;
                }
            }
            for (IwarpTestDriver.Ae e : c.aes(b)) {
                if (e.code() == AeCode.LLP_CONNECTION_ESTABLISHED.code() && e.qpId() == qpB) {
                    c.passiveEstablished = e;
                }
            }
            return c.activeEstablished != null && c.passiveEstablished != null;
        }, 3_000_000_000L);
        return c;
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what + " failed");
        }
    }

    /** Runs the simulation until {@code done} holds, at most {@code maxNanos} of simulated time. */
    void runUntil(BooleanSupplier done, long maxNanos) {
        long limit = scheduler.now() + maxNanos;
        while (!done.getAsBoolean()) {
            if (scheduler.nextDeadline() > limit || !scheduler.runNext()) {
                if (done.getAsBoolean()) {
                    return;
                }
                throw new AssertionError("not done after " + maxNanos + " ns of simulated time");
            }
        }
    }

    /** Runs {@code nanos} of simulated time. */
    void run(long nanos) {
        scheduler.runFor(nanos);
    }

    @Override
    public void close() {
        a.close();
        b.close();
    }
}
