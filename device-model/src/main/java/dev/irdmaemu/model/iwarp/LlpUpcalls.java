package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.model.qp.QpState;
import dev.irdmaemu.model.tcp.OffloadedTcp;
import dev.irdmaemu.model.tcp.TcpEvent;
import dev.irdmaemu.model.tcp.TcpReceiver;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * What one QP's TCP (the LLP, RFC 5040 §1) calls up with, as siw takes its socket's callbacks (siw_cm.c
 * siw_qp_llp_data_ready into siw_qp_rx.c siw_tcp_rx_data, siw_qp_llp_write_space, siw_cm_llp_state_change): the
 * in-order stream bytes go to the {@link FpduAssembler}; exception segments (out of order, or ending inside an
 * FPDU) are counted for the IEQ the context names; connection resets and retry exhaustion stop the data path and,
 * like every LLP event, become an AE unless the driver already moved the QP to ERROR; acknowledged bytes complete
 * SQ work; send space wakes a transmit step that waited for it. Allocation-free.
 */
final class LlpUpcalls implements TcpReceiver, OffloadedTcp.Listener {
    private final IwarpQp q;
    private final IwarpDataPath dp;
    /** The IEQ QP named by the context (IRDMAQPC_EXCEPTION_LAN_QUEUE) that gets this QP's exception segments. */
    private final int ieqQp;
    private final long receiveBufferBytes;

    LlpUpcalls(IwarpQp q, IwarpDataPath dp, int ieqQp, long receiveBufferBytes) {
        this.q = q;
        this.dp = dp;
        this.ieqQp = ieqQp;
        this.receiveBufferBytes = receiveBufferBytes;
    }

    /**
     * An exception segment (out of order, or ending inside an FPDU): the E810 would hand it to the IEQ named by the
     * context (puda.c irdma_ieq_handle_exception); the model's TCP reassembles it itself and only counts it (the IEQ
     * contract, {@link dev.irdmaemu.model.puda}).
     */
    private void toIeq(boolean partial) {
        dp.ieqSegment(partial, ieqQp);
    }

    @Override
    public void deliver(BytesStore<?, ?> store, long offset, int length) {
        if (q.runState().released()) {
            return;
        }
        if (!q.assembler().deliver(store, offset, length)) {
            toIeq(true);
        }
    }

    @Override
    public long freeSpace() {
        // Placement is immediate (no RQ WQE is an error, not back-pressure), so what TCP may accept is its own
        // reassembly ring; the staging buffer holds at most one FPDU.
        return receiveBufferBytes;
    }

    @Override
    public void outOfOrder(long sequence, BytesStore<?, ?> store, long offset, int length) {
        // The E810 hands segments it cannot place in order to the IEQ (puda.c); here TCP reassembles them and
        // the IEQ gets nothing (one truth, see the model.puda package documentation).
        toIeq(false);
    }

    @Override
    public void event(OffloadedTcp connection, TcpEvent event) {
        if (event == TcpEvent.CONNECTION_RESET || event == TcpEvent.TOO_MANY_RETRIES) {
            q.runState().halt();
            q.service().cancel();
        }
        if (q.qp().state() == QpState.ERROR) {
            // The driver already moved the QP to ERROR: the LLP's later news is not reported.
            return;
        }
        q.runState().ae(event.aeCode().code(), AeSource.RSVD, 0, 0);
    }

    @Override
    public void sendSpaceAvailable(OffloadedTcp connection) {
        if (q.transmitter().spaceWaitEnded()) {
            q.service().kick(0);
        }
    }

    @Override
    public void acknowledged(OffloadedTcp connection) {
        if (q.sendQueue().acknowledged(connection.sndUna())) {
            // The SQ waits on a fence (or the LSMM) and work just completed.
            q.service().kick(0);
        }
    }
}
