package dev.irdmaemu.cm.rping;

import dev.irdmaemu.cm.IpEndpoint;

/**
 * What rping is told on its command line (librdmacm examples/rping.c main), for one side:
 *
 * @param server     {@code -s} (else {@code -c}, the client)
 * @param address    {@code -a addr -p port}: the server's address and port; for a server the address it binds,
 *                   0.0.0.0 or :: for every local address of the family (rping's default: 0.0.0.0, port 7174)
 * @param source     {@code -I addr}: the client's local address, with the local port it connects from (rping
 *                   lets the kernel pick one; the model's CM is given it); null for a server
 * @param count      {@code -C count}: pings the client makes, 0 for no limit (the server ignores it, as rping's
 *                   server loop does: it serves until the client disconnects)
 * @param size       {@code -S size}: the ping data size, {@value #MIN_SIZE} to {@value #MAX_SIZE} (default 64)
 * @param validate   {@code -V}: the client compares what came back with what it sent. The server, which in rping
 *                   ignores {@code -V}, here checks that what it read is rping's ping data for the ping's number
 * @param verbose    {@code -v}: log each ping's data (the client what came back, the server what it read)
 * @param persistent {@code -P}: the server takes any number of connections (else the first one only)
 */
public record RpingOptions(boolean server, IpEndpoint address, IpEndpoint source, int count, int size,
                           boolean validate, boolean verbose, boolean persistent) {
    /** rping.c: cb->port = htobe16(7174). */
    public static final int DEFAULT_PORT = 7174;
    /** rping.c: cb->size = 64. */
    public static final int DEFAULT_SIZE = 64;
    /**
     * rping.c RPING_MIN_BUFSIZE: sizeof(stringify(INT_MAX)) + sizeof(RPING_MSG_FMT), room for the longest
     * "rdma-ping-%d: " (11 + 15 bytes).
     */
    public static final int MIN_SIZE = 26;
    /** rping.c: -S is refused above RPING_BUFSIZE - 1 (64 KiB - 1). */
    public static final int MAX_SIZE = 64 * 1024 - 1;
    /** rping.c rping_bind_server: rdma_listen(cm_id, 3). */
    public static final int BACKLOG = 3;
    /** rping.c RPING_SQ_DEPTH, its receive queue (max_recv_wr 2) and its CQ (RPING_SQ_DEPTH * 2 entries). */
    public static final int SQ_DEPTH = 16;
    public static final int RQ_DEPTH = 2;
    public static final int CQ_DEPTH = SQ_DEPTH * 2;
    /** rping.c rping_init_conn_param: responder_resources = initiator_depth = 1. */
    public static final int IRD = 1;
    public static final int ORD = 1;

    public RpingOptions {
        if (address == null) {
            throw new IllegalArgumentException("no address");
        }
        if (size < MIN_SIZE || size > MAX_SIZE) {
            throw new IllegalArgumentException("Invalid size " + size + " (valid range is " + MIN_SIZE + " to "
                    + MAX_SIZE + ")");
        }
        if (count < 0) {
            throw new IllegalArgumentException("Invalid count " + count);
        }
        if (address.port() == 0) {
            throw new IllegalArgumentException("no port");
        }
        if (!server) {
            if (address.isWildcard()) {
                throw new IllegalArgumentException("a client needs the server's address (-a)");
            }
            if (source == null || source.port() == 0 || source.ipv4() != address.ipv4()) {
                throw new IllegalArgumentException("a client needs a local address of the server's family with a "
                        + "port (-I)");
            }
        }
    }

    /** {@code rping -s} on {@code port} of every IPv4 address, default size, no validation. */
    public static RpingOptions server(int port) {
        return new RpingOptions(true, IpEndpoint.of("0.0.0.0", port), null, 0, DEFAULT_SIZE, false, false, false);
    }

    /** {@code rping -c -a server -I source -C count}, default size, no validation. */
    public static RpingOptions client(IpEndpoint server, IpEndpoint source, int count) {
        return new RpingOptions(false, server, source, count, DEFAULT_SIZE, false, false, false);
    }

    public RpingOptions withSize(int s) {
        return new RpingOptions(server, address, source, count, s, validate, verbose, persistent);
    }

    public RpingOptions withCount(int c) {
        return new RpingOptions(server, address, source, c, size, validate, verbose, persistent);
    }

    public RpingOptions validating() {
        return new RpingOptions(server, address, source, count, size, true, verbose, persistent);
    }

    public RpingOptions verbosely() {
        return new RpingOptions(server, address, source, count, size, validate, true, persistent);
    }

    public RpingOptions persistently() {
        return new RpingOptions(server, address, source, count, size, validate, verbose, true);
    }

    public RpingOptions withSource(IpEndpoint local) {
        return new RpingOptions(server, address, local, count, size, validate, verbose, persistent);
    }

    /**
     * Parses rping's options ({@code -s|-c [-vVdPq] [-S size] [-C count] [-a addr] [-I addr] [-p port]}); addresses
     * are numeric. A client without {@code -I} connects from {@code defaultSource} (its port included). {@code -d}
     * and {@code -q} are taken and change nothing (the model's consumer always creates its own QP, as -q does).
     *
     * @throws IllegalArgumentException with rping's wording for a bad option or value
     */
    public static RpingOptions parse(IpEndpoint defaultSource, String... args) {
        int role = -1;
        String addr = null;
        String src = null;
        int port = DEFAULT_PORT;
        int count = 0;
        int size = DEFAULT_SIZE;
        boolean validate = false;
        boolean verbose = false;
        boolean persistent = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.length() < 2 || a.charAt(0) != '-') {
                throw new IllegalArgumentException("unexpected argument '" + a + "'\n" + usage());
            }
            for (int k = 1; k < a.length(); k++) {
                char op = a.charAt(k);
                String value = null;
                if ("aIpCS".indexOf(op) >= 0) {
                    // getopt: the value is the rest of this word, or the next word
                    if (k + 1 < a.length()) {
                        value = a.substring(k + 1);
                    } else if (i + 1 < args.length) {
                        value = args[++i];
                    } else {
                        throw new IllegalArgumentException("option -" + op + " needs a value\n" + usage());
                    }
                    k = a.length();
                }
                switch (op) {
                    case 's' -> role = 1;
                    case 'c' -> role = 0;
                    case 'a' -> addr = value;
                    case 'I' -> src = value;
                    case 'p' -> port = number(value, "port");
                    case 'C' -> count = number(value, "count");
                    case 'S' -> size = number(value, "size");
                    case 'V' -> validate = true;
                    case 'v' -> verbose = true;
                    case 'P' -> persistent = true;
                    case 'd', 'q' -> {
                    }
                    default -> throw new IllegalArgumentException("unknown option -" + op + "\n" + usage());
                }
            }
        }
        if (role < 0) {
            throw new IllegalArgumentException(usage());
        }
        if (port < 1 || port > 0xffff) {
            throw new IllegalArgumentException("port " + port);
        }
        boolean server = role == 1;
        IpEndpoint address = addr == null ? IpEndpoint.of("0.0.0.0", port) : IpEndpoint.of(addr, port);
        IpEndpoint source = null;
        if (!server) {
            source = src == null ? defaultSource : IpEndpoint.of(src, defaultSource == null ? 0
                    : defaultSource.port());
        }
        return new RpingOptions(server, address, source, count, size, validate, verbose, persistent);
    }

    private static int number(String v, String what) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid " + what + " " + v, e);
        }
    }

    /** rping.c usage(). */
    public static String usage() {
        return "rping -s [-vVd] [-S size] [-C count] [-a addr] [-p port]\n"
                + "rping -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]";
    }
}
