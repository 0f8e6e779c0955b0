package dev.irdmaemu.cm.ucmatose;

/**
 * How a ucmatose run ended (what cmatose.c prints as "test complete" and its return status, with the counts that
 * show it).
 *
 * @param server           the server's run or the client's
 * @param ok               every connection was established, carried its messages both ways and was disconnected,
 *                         and nothing failed
 * @param connections      {@code -c}
 * @param established      connections that came up
 * @param disconnected     of those, the ones whose disconnect completed
 * @param rejected         connection requests the server refused (beyond {@code -c}, or when it could not set one
 *                         up)
 * @param messagesSent     Sends completed, all connections
 * @param messagesReceived receives completed, all connections
 * @param bytesReceived    bytes those receives carried
 * @param establishNanos   simulated time from the first connect (client) or connection request (server) until the
 *                         last connection was established; -1 when not all were
 * @param runNanos         simulated time from the start until everything was freed
 * @param failure          the first thing that went wrong, "" when ok
 */
public record UcmatoseResult(boolean server, boolean ok, int connections, int established, int disconnected,
                             int rejected, long messagesSent, long messagesReceived, long bytesReceived,
                             long establishNanos, long runNanos, String failure) {
    @Override
    public String toString() {
        return "ucmatose " + (server ? "server" : "client") + (ok ? ": ok" : ": FAILED (" + failure + ")") + ", "
                + established + " of " + connections + " connections established, " + disconnected
                + " disconnected, " + messagesSent + " messages sent, " + messagesReceived + " received"
                + (rejected > 0 ? ", " + rejected + " requests rejected" : "");
    }
}
