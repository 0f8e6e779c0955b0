package dev.irdmaemu.cm.ucmatose;

import dev.irdmaemu.cm.IpEndpoint;
import java.util.Objects;

/**
 * ucmatose's options (librdmacm examples/cmatose.c main): the server's address and port ({@code -b} and {@code -p}
 * on a server, {@code -s} and {@code -p} on a client), the connections ({@code -c}, default 1), the messages each
 * connection carries each way ({@code -C}, default 10) and their size ({@code -S}, default 100). cmatose's
 * create_message turns a size of 0 into no messages; so does this record.
 *
 * @param server      a server (listens) or a client (connects)
 * @param address     the server's address and port: where a server listens, where a client connects
 * @param source      a client's own address, and the local port of its first connection (each next connection
 *                    takes the next port, as rdma_cm hands out ephemeral ports); null for a server
 * @param connections {@code -c}
 * @param messages    {@code -C}, 0 when {@code size} is 0
 * @param size        {@code -S} in bytes
 * @param sendFirstNanos when not negative, a client Sends its messages on each connection this long (simulated)
 *                    after the connection is up, instead of after the server's (cmatose.c run_client waits for
 *                    them); cmatose's server does not mind the order, its receives are posted before it accepts.
 *                    Not cmatose's behaviour: a hosted client uses it so that data reaches a guest server's
 *                    connection well after the connection came up (see the boot scenario ucmatose-server)
 */
public record UcmatoseOptions(boolean server, IpEndpoint address, IpEndpoint source, int connections, int messages,
                              int size, long sendFirstNanos) {
    /** cmatose.c's default port. */
    public static final int DEFAULT_PORT = 7471;
    public static final int DEFAULT_CONNECTIONS = 1;
    public static final int DEFAULT_MESSAGES = 10;
    public static final int DEFAULT_SIZE = 100;
    /** A bound of this peer, not of cmatose: each connection costs host memory on the node. */
    public static final int MAX_CONNECTIONS = 4096;
    /** A bound of this peer: messages per connection (each is a posted work request and a CQ entry). */
    public static final int MAX_MESSAGES = 1024;
    /** A bound of this peer: message bytes (one registered buffer per connection). */
    public static final int MAX_SIZE = 1 << 20;
    /** cmatose.c route_handler: responder_resources and initiator_depth of 1. */
    public static final int IRD = 1;
    public static final int ORD = 1;
    /** rdma_listen(listen_id, 0): the kernel's ucma gives a backlog of 0 its maximum (ucma.c max_backlog, 1024). */
    public static final int BACKLOG = 1024;

    public UcmatoseOptions {
        Objects.requireNonNull(address, "address");
        if (!server) {
            Objects.requireNonNull(source, "a client needs its source address");
            if (source.ipv4() != address.ipv4()) {
                throw new IllegalArgumentException("source " + source + " and server " + address + " differ in family");
            }
            if (source.port() < 1 || source.port() + (long) connections - 1 > 0xffff) {
                throw new IllegalArgumentException("local ports from " + source.port() + " for " + connections
                        + " connections");
            }
        }
        if (address.port() < 1 || address.port() > 0xffff) {
            throw new IllegalArgumentException("port " + address.port());
        }
        if (connections < 1 || connections > MAX_CONNECTIONS) {
            throw new IllegalArgumentException("-c " + connections + " (1.." + MAX_CONNECTIONS + ")");
        }
        if (messages < 0 || messages > MAX_MESSAGES) {
            throw new IllegalArgumentException("-C " + messages + " (0.." + MAX_MESSAGES + ")");
        }
        if (size < 0 || size > MAX_SIZE) {
            throw new IllegalArgumentException("-S " + size + " (0.." + MAX_SIZE + ")");
        }
        if (size == 0) {
            // cmatose.c create_message: no message size, no messages
            messages = 0;
        }
    }

    /** {@code ucmatose -b ADDRESS -p PORT -c CONNECTIONS} with the default messages. */
    public static UcmatoseOptions server(IpEndpoint address, int connections) {
        return new UcmatoseOptions(true, address, null, connections, DEFAULT_MESSAGES, DEFAULT_SIZE, -1);
    }

    /** {@code ucmatose -s ADDRESS -p PORT -c CONNECTIONS} from {@code source}, with the default messages. */
    public static UcmatoseOptions client(IpEndpoint address, IpEndpoint source, int connections) {
        return new UcmatoseOptions(false, address, source, connections, DEFAULT_MESSAGES, DEFAULT_SIZE, -1);
    }

    /** The same with {@code -C messages -S size}. */
    public UcmatoseOptions withMessages(int count, int bytes) {
        return new UcmatoseOptions(server, address, source, connections, count, bytes, sendFirstNanos);
    }

    /** The same, a client that Sends first, {@code afterNanos} after each connection is up (see the record). */
    public UcmatoseOptions sendingFirst(long afterNanos) {
        if (server || afterNanos < 0) {
            throw new IllegalArgumentException("a client, and a delay of 0 or more");
        }
        return new UcmatoseOptions(false, address, source, connections, messages, size, afterNanos);
    }

    /** A client that Sends first (see the record). */
    public boolean sendFirst() {
        return sendFirstNanos >= 0;
    }

    /** The same, a client whose first connection comes from {@code port} (the next ones from the ports after). */
    public UcmatoseOptions fromPort(int port) {
        return new UcmatoseOptions(server, address, source.withPort(port), connections, messages, size,
                sendFirstNanos);
    }

    /** cmatose.c init_node: each CQ, the send queue and the receive queue hold {@code -C} entries, at least one. */
    public int queueDepth() {
        return messages == 0 ? 1 : messages;
    }

    /** The command line that would run this side with rdma-core's ucmatose. */
    public String commandLine() {
        String text = address.toString();
        String host = text.substring(0, text.lastIndexOf(':')).replace("[", "").replace("]", "");
        return "ucmatose " + (server ? "-b " : "-s ") + host + " -p " + address.port() + " -c " + connections
                + " -C " + messages + " -S " + size;
    }
}
