package dev.irdmaemu.cm.rping;

/**
 * How one rping run went, for one connection: the pings completed, those whose data was checked and matched, the
 * bytes the server read from the client's start buffer and wrote into its sink (counted on either side from the
 * completed steps), and, when it failed, why, in rping's words where rping has some.
 *
 * @param server  the server's side of the connection (else the client's)
 * @param ok      it ended as rping ends without error: the client made its count and disconnected, the server
 *                saw the client disconnect; no step failed
 * @param pings   pings completed (client: both go-aheads received; server: the Write done and its go-ahead
 *                posted)
 * @param verified pings whose data was checked and found right ({@link RpingOptions#validate()})
 * @param bytesRead    RDMA Read bytes: of the client's start buffer, into the server's rdma_buf
 * @param bytesWritten RDMA Write bytes: from the server's rdma_buf into the client's sink
 * @param failure  why it failed, empty when {@code ok}
 */
public record RpingResult(boolean server, boolean ok, int pings, int verified, long bytesRead, long bytesWritten,
                          String failure) {

    @Override
    public String toString() {
        return (server ? "rping server" : "rping client") + (ok ? " ok" : " FAILED") + ": " + pings + " pings, "
                + verified + " verified, " + bytesRead + " bytes read, " + bytesWritten + " bytes written"
                + (failure.isEmpty() ? "" : " (" + failure + ")");
    }
}
