package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.cm.IpEndpoint;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
public final class UcmatoseClientService extends ReportingService {
    private static final Logger LOG = LoggerFactory.getLogger(UcmatoseClientService.class);
    static final long RETRY_MILLIS = 250;
    static final int ATTEMPTS = 40;
    /** Each attempt of a round connects from local ports this far above the previous attempt's. */
    static final int PORTS_PER_ATTEMPT = 500;

    private final IpEndpoint guest;
    private final List<UcmatoseRound> rounds;
    private HostedNode node;
    private final PeerRetry retry = new PeerRetry();
    private int current = -1;

    /** The rounds, in order, against the guest at {@code guest} (the clients' options name its ports). */
    UcmatoseClientService(String name, IpEndpoint guest, List<UcmatoseRound> rounds) {
        super(name);
        if (rounds.isEmpty() || rounds.stream().anyMatch(r -> r.options.stream().anyMatch(o -> o.server()))) {
            throw new IllegalArgumentException("client rounds expected");
        }
        this.guest = guest;
        this.rounds = List.copyOf(rounds);
    }

    @Override
    public void start(HostedNode n) {
        this.node = n;
        retry.arm(n, name(), guest, this::next, this::startRound);
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
        if (reported()) {
            return;
        }
        UcmatoseRound r = rounds.get(current);
        LOG.info("{}: round {} (attempt {}): {} x {}", name(), r.name, r.attempts() + 1, r.options.size(),
                r.options.get(0).commandLine());
        r.start(node, this::runEnded, r.attempts() * PORTS_PER_ATTEMPT);
    }

    private void runEnded() {
        if (current < 0 || current >= rounds.size()) {
            return;
        }
        UcmatoseRound r = rounds.get(current);
        if (!r.done() || reported()) {
            return;
        }
        if (r.ok()) {
            next();
        } else if (r.refusedBeforeListening() && r.attempts() < ATTEMPTS) {
            LOG.info("{}: round {}: nobody listening yet; trying again in {} ms", name(), r.name, RETRY_MILLIS);
            retry.againIn(RETRY_MILLIS);
        } else {
            finish();
        }
    }

    private void finish() {
        if (reported()) {
            return;
        }
        retry.cancel();
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
        report(rounds.stream().allMatch(UcmatoseRound::ok), f);
    }

    @Override
    public void stop(HostedNode n) {
        retry.stop();
        if (reported()) {
            return;
        }
        finish();
        if (current >= 0 && current < rounds.size()) {
            rounds.get(current).stop();
        }
    }
}
