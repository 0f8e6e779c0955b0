package dev.irdmaemu.cm.rping;

import dev.irdmaemu.cm.CmEventType;
import dev.irdmaemu.cm.CmReason;
import dev.irdmaemu.cm.CmStatus;
import dev.irdmaemu.driver.verbs.PostStatus;
import dev.irdmaemu.driver.verbs.QpEventType;
import dev.irdmaemu.driver.verbs.WcOpcode;
import java.util.OptionalInt;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection of rping's server (librdmacm examples/rping.c rping_test_server on the child cm_id) as a state
 * machine driven by the CM's upcalls and the CQ's completions: nothing allocated per ping.
 *
 * <p>Each ping: the client's start buffer advertisement arrives; the server Reads that many bytes of it into
 * rdma_buf; when the Read completes it Sends the go-ahead; the client's sink advertisement arrives; the server
 * Writes rdma_buf's string (strlen + 1 bytes, as rping does) into it; when the Write completes it Sends the
 * go-ahead. The go-ahead is the 16-byte send buffer, which rping's server never fills: zeros. Every receive must
 * complete with 16 bytes. The server runs until the client disconnects (RDMA_CM_EVENT_DISCONNECTED ends
 * rping_test_server without error); a failed step disconnects it.
 *
 * <p>Beyond rping, which trusts the advertised length, a Read longer than rdma_buf is refused with a reason (rping
 * would post it and fail on its own region), and with {@code -V} the data read is checked against rping's ping data
 * for the ping's number (rping's server ignores {@code -V}).
 */
public final class RpingServerConnection extends RpingEnd {
    private static final Logger LOG = LoggerFactory.getLogger(RpingServerConnection.class);

    private final RpingOptions options;
    private final RpingBuffers buffers;
    private long remoteAddress;
    private int remoteRkey;
    private long remoteLength;
    private int readLength;
    private int writeLength;

    /** The connection's protocol on these buffers and this QP (a server's: no start buffer needed). */
    public RpingServerConnection(RpingOptions options, RpingBuffers buffers, RpingVerbs qp) {
        super(LOG, "rping server", RpingState.CONNECT_REQUEST);
        if (!options.server() || buffers.size != options.size()) {
            throw new IllegalArgumentException("server options and buffers of its size");
        }
        this.options = options;
        this.buffers = buffers;
        this.qp = qp;
        // rping's server never formats its send buffer: every go-ahead is 16 zero bytes
        RpingInfo.clear(buffers.store, buffers.sendOffset);
    }

    public RpingServerConnection onDone(Consumer<RpingResult> consumer) {
        this.onDone = consumer;
        return this;
    }

    /**
     * Before the accept (rping_run_server): the first receive is posted. False (and the connection is done, failed)
     * when it cannot be.
     */
    public boolean start() {
        PostStatus s = qp.postRecv();
        if (s != PostStatus.OK) {
            fail("ibv_post_recv failed: " + s.errno());
            release();
            return false;
        }
        return true;
    }

    /** The accept was refused: the connection never came up. */
    public void acceptFailed(String why) {
        fail("rdma_accept: " + why);
        state = RpingState.ERROR;
        release();
    }

    /** rping.c rping_cma_event_handler for the child cm_id. */
    @Override
    void connectionEvent(CmEventType type, CmStatus status, CmReason reason) {
        switch (type) {
            case ESTABLISHED -> {
                if (status != CmStatus.OK) {
                    // irdma_accept's -ECONNRESET: the connection never came up and the CM has let it go
                    fail("wait for CONNECTED state: ESTABLISHED error " + status.errno() + " (" + reason + ")");
                    state = RpingState.ERROR;
                    release();
                    return;
                }
                connected = true;
                // the server wakes up on the first receive, not here (rping.c: state stays as it is)
                if (state == RpingState.CONNECT_REQUEST) {
                    state = RpingState.CONNECTED;
                }
            }
            case DISCONNECT -> {
                if (state != RpingState.ERROR) {
                    state = RpingState.DISCONNECTED;
                }
                if (!disconnecting && (status != CmStatus.OK || reason != CmReason.NONE)) {
                    fail("the client's connection ended: " + status + ", " + reason);
                }
            }
            case CLOSE -> {
                connected = false;
                if (!disconnecting && state != RpingState.DISCONNECTED) {
                    fail("the connection closed in state " + state + " (" + reason + ")");
                }
                release();
            }
            default -> LOG.debug("rping server: unhandled event {}, ignoring", type);
        }
    }

    /** rping.c rping_cq_event_handler for the server, with what rping_test_server does at each step. */
    @Override
    void completed(WcOpcode opcode, long byteLen) {
        switch (opcode) {
            case SEND -> {
            }
            case RECV -> received(byteLen);
            case RDMA_READ -> readDone();
            case RDMA_WRITE -> writeDone();
            default -> error("unknown completion " + opcode);
        }
    }

    /** rping.c server_recv: the advertisement taken, the receive reposted, the next step posted. */
    private void received(long byteLen) {
        if (byteLen != RpingInfo.SIZE) {
            error("Received bogus data, size " + byteLen);
            return;
        }
        BytesStore<?, ?> store = buffers.store;
        remoteRkey = RpingInfo.rkey(store, buffers.recvOffset);
        remoteAddress = RpingInfo.address(store, buffers.recvOffset);
        remoteLength = RpingInfo.length(store, buffers.recvOffset);
        PostStatus s = qp.postRecv();
        if (s != PostStatus.OK) {
            error("post recv error: " + s.errno());
            return;
        }
        if (state == RpingState.CONNECT_REQUEST || state == RpingState.CONNECTED
                || state == RpingState.RDMA_WRITE_COMPLETE) {
            // the client's start buffer: Read it
            state = RpingState.RDMA_READ_ADV;
            if (remoteLength > buffers.size) {
                error("the client advertised " + remoteLength + " bytes to read, rdma_buf holds " + buffers.size);
                return;
            }
            readLength = (int) remoteLength;
            s = qp.postRead(remoteAddress, remoteRkey, readLength);
        } else if (state == RpingState.RDMA_READ_COMPLETE) {
            // the client's sink: Write the ping data back, strlen(rdma_buf) + 1 bytes
            state = RpingState.RDMA_WRITE_ADV;
            writeLength = stringLength(store, buffers.rdmaOffset, buffers.size);
            s = qp.postWrite(remoteAddress, remoteRkey, writeLength);
        } else {
            error("wait for " + (state == RpingState.RDMA_READ_ADV ? "RDMA_READ_COMPLETE" : "RDMA_WRITE_COMPLETE")
                    + " state " + state + ": an advertisement out of turn");
            return;
        }
        if (s != PostStatus.OK) {
            error("post send error " + s.errno());
        }
    }

    private void readDone() {
        if (state != RpingState.RDMA_READ_ADV) {
            error("an RDMA Read completion in state " + state);
            return;
        }
        state = RpingState.RDMA_READ_COMPLETE;
        bytesRead += readLength;
        BytesStore<?, ?> store = buffers.store;
        if (options.validate()) {
            OptionalInt mismatch = RpingPattern.mismatch(store, buffers.rdmaOffset, readLength, pings);
            if (mismatch.isPresent()) {
                int at = mismatch.getAsInt();
                error("ping " + pings + ": the data read differs from rping's at byte " + at + " (0x"
                        + Integer.toHexString(store.readByte(buffers.rdmaOffset + at) & 0xff) + ")");
                return;
            }
            verified++;
        }
        if (options.verbose()) {
            LOG.info("server ping data: {}", RpingClient.text(store, buffers.rdmaOffset, readLength));
        }
        postSend(); // "Tell client to continue"
    }

    private void writeDone() {
        if (state != RpingState.RDMA_WRITE_ADV) {
            error("an RDMA Write completion in state " + state);
            return;
        }
        state = RpingState.RDMA_WRITE_COMPLETE;
        bytesWritten += writeLength;
        pings++;
        postSend(); // "Tell client to begin again"
    }

    /** strlen(rdma_buf) + 1, within rdma_buf (rping would run past it when there is no NUL). */
    static int stringLength(BytesStore<?, ?> s, long offset, int size) {
        for (int i = 0; i < size; i++) {
            if (s.readByte(offset + i) == 0) {
                return i + 1;
            }
        }
        return size;
    }

    @Override
    public void qpEvent(QpEventType event) {
        // once the connection is being closed, how the QP ends is the close's business (rping ignores QP events)
        if (!releasing && !disconnecting && state != RpingState.DISCONNECTED) {
            fail("QP event " + event);
        }
    }

    /** Ends the connection now: an abortive disconnect, then everything is freed. */
    public void stop() {
        if (releasing) {
            return;
        }
        if (state != RpingState.DISCONNECTED) {
            fail("stopped after " + pings + " pings");
        }
        resetAndRelease(connected);
    }

    @Override
    void finish() {
        done(new RpingResult(true, failure.isEmpty(), pings, verified, bytesRead, bytesWritten, failure));
    }
}
