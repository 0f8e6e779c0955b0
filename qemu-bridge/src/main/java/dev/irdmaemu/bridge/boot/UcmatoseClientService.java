package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.cm.IpEndpoint;
import dev.irdmaemu.fw.sim.SimTimer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node as ucmatose client (issue 6 test 5, the guest's ucmatose processes serve): once the node has learned
 * the guest's MAC (the guest announces itself with a ping after its servers listen), the first
 * {@link UcmatoseRound}'s clients (cm.ucmatose's {@link dev.irdmaemu.cm.ucmatose.UcmatoseClient}, each
 * {@code ucmatose -s 192.0.2.2 -p PORT -c N}) connect all at once, one per guest server; when they have all ended
 * well the next round starts. A round whose clients were all reset before any connected (a server not listening
 * yet) is tried again after {@value #RETRY_MILLIS} ms from fresh local ports, up to {@value #ATTEMPTS} times. Its
 * outcome is the rounds' results: ok when every round was.
 */
public final class UcmatoseClientService implements HostedService {
    private static final Logger LOG = LoggerFactory.getLogger(UcmatoseClientService.class);
    static final long RETRY_MILLIS = 250;
    static final int ATTEMPTS = 40;
    /** Each attempt of a round connects from local ports this far above the previous attempt's. */
    static final int PORTS_PER_ATTEMPT = 500;

    private final String name;
    private final IpEndpoint guest;
    private final List<UcmatoseRound> rounds;
    private final CompletableFuture<ServiceOutcome> outcome = new CompletableFuture<>();
    private HostedNode node;
    private SimTimer retry;
    /** Stopped before the peer was known: a late neighbour must not start anything. */
    private boolean stopped;
    private int current = -1;

    /** The rounds, in order, against the guest at {@code guest} (the clients' options name its ports). */
    UcmatoseClientService(String name, IpEndpoint guest, List<UcmatoseRound> rounds) {
        if (rounds.isEmpty() || rounds.stream().anyMatch(r -> r.options.stream().anyMatch(o -> o.server()))) {
            throw new IllegalArgumentException("client rounds expected");
        }
        this.name = name;
        this.guest = guest;
        this.rounds = List.copyOf(rounds);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void start(HostedNode n) {
        this.node = n;
        this.retry = n.scheduler.newTimer(name + "-retry", this::startRound);
        // rdma_resolve_addr: wait until the peer has announced itself (its ARP or ND for the node)
        n.whenNeighbourKnown(guest, () -> {
            if (!stopped) {
                next();
            }
        });
    }

    private void next() {
        current++;
        if (current == rounds.size()) {
            finish();
            return;
        }
        startRound();
    }

    private void startRound() {
        if (outcome.isDone()) {
            return;
        }
        UcmatoseRound r = rounds.get(current);
        LOG.info("{}: round {} (attempt {}): {} x {}", name, r.name, r.attempts() + 1, r.options.size(),
                r.options.get(0).commandLine());
        r.start(node, this::runEnded, r.attempts() * PORTS_PER_ATTEMPT);
    }

    private void runEnded() {
        if (current < 0 || current >= rounds.size()) {
            return;
        }
        UcmatoseRound r = rounds.get(current);
        if (!r.done() || outcome.isDone()) {
            return;
        }
        if (r.ok()) {
            next();
        } else if (r.refusedBeforeListening() && r.attempts() < ATTEMPTS) {
            LOG.info("{}: round {}: nobody listening yet; trying again in {} ms", name, r.name, RETRY_MILLIS);
            retry.scheduleIn(RETRY_MILLIS * 1_000_000L);
        } else {
            finish();
        }
    }

    private void finish() {
        if (outcome.isDone()) {
            return;
        }
        if (retry != null) {
            retry.cancel();
        }
        Map<String, String> f = new LinkedHashMap<>();
        f.put("guest", guest.toString().replaceAll(":\\d+$", ""));
        for (int i = 0; i < rounds.size(); i++) {
            UcmatoseRound r = rounds.get(i);
            if (i <= current) {
                r.fields(f);
            } else {
                f.put(r.name, "not_run");
            }
        }
        outcome.complete(new ServiceOutcome(name, rounds.stream().allMatch(UcmatoseRound::ok), f));
    }

    @Override
    public CompletableFuture<ServiceOutcome> outcome() {
        return outcome;
    }

    @Override
    public void stop(HostedNode n) {
        stopped = true;
        if (retry != null) {
            retry.cancel();
        }
        if (outcome.isDone()) {
            return;
        }
        finish();
        if (current >= 0 && current < rounds.size()) {
            rounds.get(current).stop();
        }
    }
}
