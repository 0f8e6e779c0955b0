package dev.irdmaemu.bridge.run;

import dev.irdmaemu.bridge.boot.BootScenario;
import dev.irdmaemu.bridge.boot.NodeCounters;
import dev.irdmaemu.bridge.boot.ServiceOutcome;
import dev.irdmaemu.bridge.kit.GuestLaunch.Siw;
import dev.irdmaemu.bridge.kit.GuestResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a boot went: the scenario, its status, the guest's result line, the hosted node's counters (taken when the
 * guest's result came in, before the services were stopped), the services' outcomes, where the files are and how
 * long it took.
 *
 * @param status       OK, FAILED (the guest or a service said so), TIMEOUT (no result line in time), ABORTED
 *                     (Ctrl-C), ERROR (QEMU or the model failed)
 * @param guest        the guest's result line, or null when none came
 * @param failure      why, when not OK ("" otherwise)
 * @param counters     the node's counters at the guest's result, once the services reported (or at the end), null
 *                     when the node never ran
 * @param end          the node's counters after the services stopped and the node settled: what a run left behind
 *                     ({@link NodeCounters#leaks()}); null when the run did not get that far
 * @param nodeUp       how long the node's bring-up took (the start of the run to the node's clock's zero); null
 *                     when it never came up
 * @param bootToResult from the start of the run (the model's bring-up) to the guest's result line; null without one
 * @param qemuToResult from QEMU's start to the result line; null without one
 * @param whole        the whole run, teardown included
 * @param e810         with the E810 NIC, what its model held after the guest's poweroff; else null
 */
public record BootReport(BootScenario scenario, Siw siw, Status status, GuestResult guest, String failure,
                         NodeCounters counters, NodeCounters end, Duration nodeUp, List<ServiceOutcome> services, Path runDir, Path console, Path pcap,
                         Path trace, Duration bootToResult, Duration qemuToResult, Duration whole, E810Left e810) {
    public enum Status { OK, FAILED, TIMEOUT, ABORTED, ERROR }

    /**
     * What the emulated E810 still held once the guest had powered off (its drivers' shutdown ran): its QPs and CQs,
     * everything irdma made on it ({@code rdmaObjects}: QPs, CQs, CEQs, STags, hash entries, AHs, WS nodes, qsets,
     * HMC SDs, ... as {@code E810Holdings} counts them, listed in {@code holdings}), everything ice made for its
     * LAN ({@code lanObjects}: VSIs, queues, switch rules), and the vfio-user server's and the cable's counts; null
     * for a virtio-net boot or when QEMU did not end.
     */
    public record E810Left(int qps, int cqs, int rdmaObjects, int lanObjects, String holdings, String vfioUser,
                           String cable) {
        public boolean empty() {
            return qps == 0 && cqs == 0 && rdmaObjects == 0 && lanObjects == 0;
        }
    }

    public BootReport {
        services = List.copyOf(services);
    }

    /** The failure's first line (what a one-line listing such as {@code compare}'s shows); "" when OK. */
    public String failureHeadline() {
        return failure.lines().findFirst().orElse("");
    }

    public boolean ok() {
        return status == Status.OK;
    }

    /** The summary {@code irdma-emu boot} prints, one item a line. */
    public List<String> summary() {
        List<String> l = new ArrayList<>();
        l.add(String.format("scenario  %s (%s): %s", scenario.word(),
                siw != null ? "siw " + siw.word() : "E810: ice.ko, irdma.ko",
                siw != null ? scenario.description() : scenario.descriptionOnE810()));
        String verdict = switch (status) {
            case OK -> "ok";
            case FAILED -> "FAILED";
            case TIMEOUT -> "TIMEOUT";
            case ABORTED -> "ABORTED";
            case ERROR -> "ERROR";
        };
        l.add("status    " + verdict + (failure.isEmpty() ? "" : ": " + failureHeadline()));
        failure.lines().skip(1).map(String::strip).filter(x -> !x.isEmpty()).forEach(x -> l.add("          | " + x));
        if (guest != null) {
            StringBuilder g = new StringBuilder("guest     ").append(guest.status());
            guest.fields().forEach((k, v) -> g.append(' ').append(k).append('=').append(v));
            l.add(g.toString());
        } else {
            l.add("guest     no result line");
        }
        if (counters != null) {
            NodeCounters c = counters;
            l.add(String.format("model     frames from the guest %d, to the guest %d (%d dropped), dropped by the port %d",
                    c.framesFromGuest(), c.framesToGuest(), c.framesToGuestDropped(), c.portDropped()));
            l.add(String.format("LAN       %d frames, %d answered, %d malformed, %d neighbours learned",
                    c.lanFrames(), c.lanAnswered(), c.lanMalformed(), c.neighbours()));
            l.add(String.format("CM        connections created %d, destroyed %d, left %d; listeners %d; accepted %d, "
                    + "rejected %d; refused (passive errors) %d, connect errors %d; QPs %d", c.cmNodesCreated(),
                    c.cmNodesDestroyed(), c.cmNodesLeft(), c.cmListeners(), c.cmAccepts(), c.cmRejects(),
                    c.cmPassiveErrors(), c.cmConnectErrors(), c.qps()));
        }
        if (end != null) {
            l.add("left      " + (end.leaks().isEmpty() ? "nothing: no CM node or listener child, no QP, CQ or MR in the "
                    + "verbs, no QP, CQ or STag in the device beyond the PUDA queues" : "LEAKED " + end.leaks()));
        }
        if (e810 != null) {
            l.add(String.format("E810      after the guest's poweroff: %s; vfio-user %s; cable %s",
                    e810.empty() ? "nothing of irdma's or ice's left (" + e810.holdings() + ")" : "LEFT " + e810.holdings(),
                    e810.vfioUser(), e810.cable()));
        }
        for (ServiceOutcome s : services) {
            l.add("service   " + s);
        }
        Duration first = firstConnection();
        if (first != null) {
            l.add(String.format(Locale.ROOT, "time      boot to the first connection %.1f s (the node's bring-up "
                    + "and the model's clock to its MPA reply)", seconds(first)));
        }
        if (bootToResult != null) {
            l.add(String.format(Locale.ROOT, "time      boot to result %.1f s (QEMU start to result line %.1f s), "
                    + "whole run %.1f s", seconds(bootToResult), seconds(qemuToResult), seconds(whole)));
        } else {
            l.add(String.format(Locale.ROOT, "time      whole run %.1f s", seconds(whole)));
        }
        l.add("console   " + console);
        l.add("pcap      " + pcap + "  (./irdma-emu decode " + pcap + ")");
        l.add("trace     " + trace);
        return l;
    }

    /**
     * From the start of the run to the first connection (the first accepting MPA reply on the wire): the node's
     * bring-up plus its clock, which is paced to the wall clock from then on. Null without a connection.
     */
    public Duration firstConnection() {
        NodeCounters c = end != null && end.firstConnectionNanos() >= 0 ? end : counters;
        if (c == null || c.firstConnectionNanos() < 0 || nodeUp == null) {
            return null;
        }
        return nodeUp.plusNanos(c.firstConnectionNanos());
    }

    private static double seconds(Duration d) {
        return d == null ? 0 : d.toNanos() / 1e9;
    }
}
