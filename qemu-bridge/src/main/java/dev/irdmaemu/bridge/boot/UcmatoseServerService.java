package dev.irdmaemu.bridge.boot;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node as ucmatose server (issue 6 test 5, the guest's ucmatose processes connect): the {@link UcmatoseRound}s'
 * servers (cm.ucmatose's {@link dev.irdmaemu.cm.ucmatose.UcmatoseServer}, each {@code ucmatose -b 192.0.2.1 -p PORT
 * -c N}) all listen from the start, each on its own port, so the guest may run its rounds one after the other
 * without waiting for the node. Each server takes its {@code -c} connections, exchanges its messages, disconnects
 * them and frees everything. The outcome comes when every server has ended (ok when all did their part), or at the
 * stop, which fails the servers still waiting.
 */
public final class UcmatoseServerService extends ReportingService {
    private static final Logger LOG = LoggerFactory.getLogger(UcmatoseServerService.class);

    private final List<UcmatoseRound> rounds;

    UcmatoseServerService(String name, List<UcmatoseRound> rounds) {
        super(name);
        if (rounds.isEmpty() || rounds.stream().anyMatch(r -> r.options.stream().anyMatch(o -> !o.server()))) {
            throw new IllegalArgumentException("server rounds expected");
        }
        this.rounds = List.copyOf(rounds);
    }

    @Override
    public void start(HostedNode node) {
        for (UcmatoseRound r : rounds) {
            r.start(node, this::runEnded, 0);
            LOG.info("{}: round {}: {}", name(), r.name, r.options.get(0).commandLine());
        }
    }

    private void runEnded() {
        if (rounds.stream().allMatch(UcmatoseRound::done)) {
            finish();
        }
    }

    private void finish() {
        if (reported()) {
            return;
        }
        Map<String, String> f = new LinkedHashMap<>();
        for (UcmatoseRound r : rounds) {
            r.fields(f);
        }
        report(rounds.stream().allMatch(UcmatoseRound::ok), f);
    }

    @Override
    public void stop(HostedNode node) {
        if (reported()) {
            return;
        }
        // the runs' own results come after their teardown, on later events: report what is known now
        finish();
        for (UcmatoseRound r : rounds) {
            r.stop();
        }
    }
}
