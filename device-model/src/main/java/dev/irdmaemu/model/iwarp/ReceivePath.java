package dev.irdmaemu.model.iwarp;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.cqp.GatherStatsBuffer.Stat;
import dev.irdmaemu.fw.iwarp.DdpCheck;
import dev.irdmaemu.fw.iwarp.DdpHeader;
import dev.irdmaemu.fw.iwarp.Fpdu;
import dev.irdmaemu.fw.iwarp.FpduCheck;
import dev.irdmaemu.fw.iwarp.RdmaReadRequest;
import dev.irdmaemu.fw.iwarp.RdmapOpcode;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.fw.queue.RqWqe;
import dev.irdmaemu.fw.queue.SgeList;
import dev.irdmaemu.fw.queue.WqeCheck;
import dev.irdmaemu.model.eq.RingCursor;
import dev.irdmaemu.model.hmc.RingPages;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * What the E810 does with each whole FPDU of a QP's stream, in this order, and nothing is placed before every
 * check of the FPDU passed:
 * <ol>
 *   <li>MPA (RFC 5044 §4): the CRC32c over the FPDU (when the connection uses CRC; a mismatch raises
 *       IRDMA_AE_LLP_RECEIVED_MPA_CRC_ERROR), a ULPDU long enough for a DDP header (else
 *       IRDMA_AE_LLP_SEGMENT_TOO_SMALL);</li>
 *   <li>DDP and RDMAP control (RFC 5041 §5.1, RFC 5040 §4.1): DDP version 1 (DDP_UBE_INVALID_DDP_VERSION), RDMAP
 *       version 1 (RDMAP_ROE_INVALID_RDMAP_VERSION), a defined opcode whose tagged/untagged model matches the T bit
 *       (RDMAP_ROE_UNEXPECTED_OPCODE), the queue number RFC 5040 §5 gives the opcode (DDP_UBE_INVALID_QN);</li>
 *   <li>untagged queue 0 (Send, RFC 5041 §5.3, RFC 5040 §5.3): the MSN of the message in progress or, for a new
 *       message, exactly the next one (DDP_INVALID_MSN_GAP_IN_MSN; the next MSN while a message is unfinished means
 *       its last segment never came, DDP_NO_L_BIT); a new message takes the next RQ WQE from the ring in host
 *       memory (none posted: DDP_UBE_INVALID_MSN_NO_BUFFER_AVAILABLE); MO beyond the buffer (DDP_UBE_INVALID_MO),
 *       MO plus length beyond it (DDP_UBE_DDP_MESSAGE_TOO_LONG_FOR_AVAILABLE_BUFFER); placed into the WQE's SGEs
 *       with LOCAL_WRITE; the segment with L completes the WQE (RQ CQE: MO + length bytes, the invalidated STag of
 *       a Send with Invalidate, the solicited-event bit of Send with SE);</li>
 *   <li>untagged queue 1 (RDMA Read Request, RFC 5040 §4.4): MSN, MO 0, L, a 28-byte request
 *       (ROE_INVALID_RDMA_READ_REQUEST), room in the IRD (a request beyond it is outside the queue's MSN window,
 *       RFC 5041 §5.3, so DDP_INVALID_MSN_GAP_IN_MSN, which irdma answers with the DDP "MSN range" Terminate),
 *       the source range checked with REMOTE_READ, then queued for the {@link ReadResponder};</li>
 *   <li>untagged queue 2 (Terminate): copied to Q2, IRDMA_AE_LLP_TERMINATE_RECEIVED; irdma validates its fields
 *       itself (ctrl.c irdma_terminate_received);</li>
 *   <li>tagged RDMA Write: placed with REMOTE_WRITE at the STag and TO; tagged Read Response: it must belong to
 *       the oldest outstanding Read (its sink STag, within its range; else ROE_INVALID_RDMA_WRITE_OR_READ_RESP, or
 *       RDMAP_ROE_UNEXPECTED_OPCODE with no Read outstanding), placed with LOCAL_WRITE; the last one completes the
 *       Read WQE. A zero-length tagged message places nothing and its STag is not checked (RFC 6581 §5: the RTR
 *       messages; siw does the same).</li>
 * </ol>
 * A failure of {@link MemoryRegions} (bad STag, key, PD, rights, bounds) raises the AE it names. Every failure
 * stops the QP's data path with one AE (source RQ for Send placement, IN_RR_WR for inbound Write / Read Response,
 * OUT_RR for Read Requests) after the offending frame was copied to Q2. Allocation-free.
 */
final class ReceivePath implements FpduAssembler.Sink {
    private final IwarpQp q;
    private final HostMemory memory;
    private final RingCursor rq;
    private final RingPages rqRing;
    private final int rqWqeBytes;
    private final int rqWqeQuanta;
    private final Fpdu fpdu;
    private final DdpHeader ddp = new DdpHeader();
    private final RdmaReadRequest request = new RdmaReadRequest();
    private final RqWqe rqWqe = new RqWqe();

    private boolean msgActive;
    private long msgMsn;
    private int msgIndex;
    private long msgCapacity;
    /** The message's RQ WQE's non-empty SGEs (lengths are 31-bit WQE fields, so an int holds them). */
    private final SgeList sges = new SgeList();
    private long expectedSendMsn = 1;
    private long expectedReadMsn = 1;
    private boolean flushed;

    // The FPDU being processed, for the Q2 copy of an error.
    private BytesStore<?, ?> curStore;
    private long curOffset;
    private int curLength;
    private long curSequence;

    ReceivePath(IwarpQp q, HostMemory memory, RingCursor rq, RingPages rqRing, int rqWqeBytes, Fpdu fpdu) {
        this.q = q;
        this.fpdu = fpdu;
        this.memory = memory;
        this.rq = rq;
        this.rqRing = rqRing;
        this.rqWqeBytes = rqWqeBytes;
        this.rqWqeQuanta = Math.max(1, rqWqeBytes / RqWqe.MIN_SIZE);
    }

    @Override
    public void fpdu(BytesStore<?, ?> store, long offset, int length, long sequence) {
        q.stats().fpdusReceived++;
        if (q.runState().receiveStopped()) {
            q.stats().framesDroppedAfterError++;
            return;
        }
        curStore = store;
        curOffset = offset;
        curLength = length;
        curSequence = sequence;
        FpduCheck c = fpdu.wrap(store, offset, length, q.crc()).validate();
        if (c == FpduCheck.CRC_MISMATCH) {
            q.stats().crcErrors++;
            error(AeCode.LLP_RECEIVED_MPA_CRC_ERROR.code(), AeSource.RSVD, 0);
            return;
        }
        if (!c.accepted()) {
            error(AeCode.LLP_SEGMENT_TOO_SMALL.code(), AeSource.RSVD, 0);
            return;
        }
        int ulpdu = fpdu.ulpduLength();
        // The accepted FPDU holds all ulpdu (at least DdpHeader.MIN_LENGTH) bytes, so the DDP window is exactly
        // the ULPDU and validate()'s TRUNCATED means a ULPDU shorter than the header its T bit announces.
        DdpCheck d = ddp.wrap(store, fpdu.ulpduOffset(), ulpdu).validate();
        if (!d.accepted()) {
            error(ddpAe(d).code(), AeSource.RSVD, 0);
            return;
        }
        RdmapOpcode op = ddp.rdmapOpcode();
        traceRx(op, ulpdu - ddp.headerLength());
        if (op == RdmapOpcode.TERMINATE) {
            q.runState().terminateReceived(store, offset, length, sequence);
            return;
        }
        if (!q.runState().acceptsData()) {
            q.stats().framesDroppedAfterError++;
            return;
        }
        boolean first = !q.runState().firstFpduReceived();
        q.runState().peerFpduReceived();
        long payload = ddp.payloadOffset();
        int n = ulpdu - ddp.headerLength();
        if (op.tagged()) {
            if (op == RdmapOpcode.RDMA_WRITE) {
                if (ddp.last()) {
                    q.functionCounters().increment(Stat.RDMARXWRS);
                }
                write(payload, n);
            } else {
                readResponse(payload, n);
            }
            return;
        }
        if (ddp.queueNumber() != op.queue()) {
            error(AeCode.DDP_UBE_INVALID_QN.code(), AeSource.RSVD, 0);
            return;
        }
        if (op == RdmapOpcode.RDMA_READ_REQUEST) {
            q.functionCounters().increment(Stat.RDMARXRDS);
            readRequest(payload, n);
        } else {
            if (ddp.last()) {
                q.functionCounters().increment(Stat.RDMARXSNDS);
            }
            send(op, payload, n, first);
        }
    }

    /** The AE for a DDP / RDMAP header check that failed, in the order DdpHeader.validate() makes them. */
    private static AeCode ddpAe(DdpCheck c) {
        return switch (c) {
            case BAD_DDP_VERSION -> AeCode.DDP_UBE_INVALID_DDP_VERSION;
            case BAD_RDMAP_VERSION -> AeCode.RDMAP_ROE_INVALID_RDMAP_VERSION;
            case UNKNOWN_OPCODE, TAGGED_MISMATCH -> AeCode.RDMAP_ROE_UNEXPECTED_OPCODE;
            case TRUNCATED -> AeCode.LLP_SEGMENT_TOO_SMALL;
            case ACCEPTED -> throw new IllegalArgumentException("an accepted header raises no AE");
        };
    }

    private void error(int ae, int source, int wqeIndex) {
        q.runState().fail(ae, source, wqeIndex, curStore, curOffset, curLength, curSequence);
    }

    // ---- tagged

    private void write(long payload, int n) {
        if (!q.inboundWriteAllowed()) {
            error(AeCode.AMP_RIGHTS_VIOLATION.code(), AeSource.IN_RR_WR, 0);
            return;
        }
        if (n == 0) {
            return;
        }
        int stag = ddp.stag();
        long to = ddp.taggedOffset();
        int rc = q.regions().write(stag, to, curStore, payload, n, MemoryRegions.REMOTE_WRITE, q.pd());
        if (rc != MemoryRegions.OK) {
            error(rc, AeSource.IN_RR_WR, 0);
            return;
        }
        placed(stag, to, n);
    }

    private void readResponse(long payload, int n) {
        SendQueue sq = q.sendQueue();
        if (!sq.readOutstanding()) {
            error(AeCode.RDMAP_ROE_UNEXPECTED_OPCODE.code(), AeSource.IN_RR_WR, 0);
            return;
        }
        int stag = ddp.stag();
        long to = ddp.taggedOffset();
        if (stag != sq.expectedSinkStag() || !sq.withinSink(to, n)) {
            error(AeCode.ROE_INVALID_RDMA_WRITE_OR_READ_RESP.code(), AeSource.IN_RR_WR, 0);
            return;
        }
        if (n > 0) {
            if (!q.inboundWriteAllowed()) {
                error(AeCode.AMP_RIGHTS_VIOLATION.code(), AeSource.IN_RR_WR, 0);
                return;
            }
            int rc = q.regions().write(stag, to, curStore, payload, n, MemoryRegions.LOCAL_WRITE, q.pd());
            if (rc != MemoryRegions.OK) {
                error(rc, AeSource.IN_RR_WR, 0);
                return;
            }
            placed(stag, to, n);
        }
        boolean complete = sq.placed(n);
        if (ddp.last()) {
            if (!complete) {
                // The last segment came before the bytes the request asked for.
                error(AeCode.ROE_INVALID_RDMA_WRITE_OR_READ_RESP.code(), AeSource.IN_RR_WR, 0);
                return;
            }
            sq.readResponseDone();
            q.service().kick(0);
        }
    }

    // ---- untagged

    private void readRequest(long payload, int n) {
        long msn = ddp.msn();
        if (msn != expectedReadMsn) {
            error(AeCode.DDP_INVALID_MSN_GAP_IN_MSN.code(), AeSource.OUT_RR, 0);
            return;
        }
        if (ddp.messageOffset() != 0) {
            error(AeCode.DDP_UBE_INVALID_MO.code(), AeSource.OUT_RR, 0);
            return;
        }
        if (!ddp.last()) {
            error(AeCode.DDP_NO_L_BIT.code(), AeSource.OUT_RR, 0);
            return;
        }
        if (n != RdmaReadRequest.LENGTH) {
            error(AeCode.ROE_INVALID_RDMA_READ_REQUEST.code(), AeSource.OUT_RR, 0);
            return;
        }
        ReadResponder responder = q.responder();
        if (responder.full()) {
            error(AeCode.DDP_INVALID_MSN_GAP_IN_MSN.code(), AeSource.OUT_RR, 0);
            return;
        }
        request.wrap(curStore, payload, n);
        long size = request.readMessageSize();
        if (size > 0) {
            if (!q.remoteReadAllowed()) {
                error(AeCode.AMP_RIGHTS_VIOLATION.code(), AeSource.OUT_RR, 0);
                return;
            }
            int rc = q.regions().check(request.sourceStag(), request.sourceTaggedOffset(), size,
                    MemoryRegions.REMOTE_READ, q.pd());
            if (rc != MemoryRegions.OK) {
                error(rc, AeSource.OUT_RR, 0);
                return;
            }
        }
        expectedReadMsn = (expectedReadMsn + 1) & 0xffff_ffffL;
        q.stats().readRequestsReceived++;
        responder.accept(request.sinkStag(), request.sinkTaggedOffset(), size, request.sourceStag(),
                request.sourceTaggedOffset());
        q.service().kick(0);
    }

    private void send(RdmapOpcode op, long payload, int n, boolean firstFpdu) {
        long msn = ddp.msn();
        long mo = ddp.messageOffset();
        boolean last = ddp.last();
        if (!msgActive) {
            if (msn != expectedSendMsn) {
                error(AeCode.DDP_INVALID_MSN_GAP_IN_MSN.code(), AeSource.RQ, rq.index());
                return;
            }
            if (firstFpdu && op == RdmapOpcode.SEND && n == 0 && mo == 0 && last) {
                // RFC 6581 §5: a zero-length Send as the first FPDU is the RTR; it takes no receive buffer and
                // makes no completion (it does use its MSN).
                expectedSendMsn = (expectedSendMsn + 1) & 0xffff_ffffL;
                return;
            }
            RqFetch fetched = fetch();
            if (fetched == RqFetch.MALFORMED) {
                return;
            }
            if (fetched == RqFetch.NOT_POSTED) {
                error(AeCode.DDP_UBE_INVALID_MSN_NO_BUFFER_AVAILABLE.code(), AeSource.RQ, rq.index());
                return;
            }
            msgActive = true;
            msgMsn = msn;
            msgIndex = rq.index();
        } else if (msn != msgMsn) {
            error(msn == ((msgMsn + 1) & 0xffff_ffffL) ? AeCode.DDP_NO_L_BIT.code()
                    : AeCode.DDP_INVALID_MSN_GAP_IN_MSN.code(), AeSource.RQ, msgIndex);
            return;
        }
        if (mo > msgCapacity) {
            error(AeCode.DDP_UBE_INVALID_MO.code(), AeSource.RQ, msgIndex);
            return;
        }
        if (mo + n > msgCapacity) {
            error(AeCode.DDP_UBE_DDP_MESSAGE_TOO_LONG_FOR_AVAILABLE_BUFFER.code(), AeSource.RQ, msgIndex);
            return;
        }
        if (n > 0 && !place(payload, mo, n)) {
            return;
        }
        if (!last) {
            return;
        }
        boolean invalidate = op.carriesInvalidateStag();
        int stag = ddp.invalidateStag();
        if (invalidate) {
            int rc = q.regions().invalidate(stag, q.pd(), true);
            if (rc != MemoryRegions.OK) {
                error(rc, AeSource.RQ, msgIndex);
                return;
            }
        }
        boolean solicited = op == RdmapOpcode.SEND_WITH_SE || op == RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE;
        q.completions().rq(q.qp(), msgIndex, mo + n, stag, invalidate, solicited, 0, 0);
        q.stats().rqWqesCompleted++;
        for (int i = 0; i < rqWqeQuanta; i++) {
            rq.advance();
        }
        msgActive = false;
        expectedSendMsn = (expectedSendMsn + 1) & 0xffff_ffffL;
        TraceEvent t = q.trace().start(TraceKind.PLACEMENT);
        if (t != null) {
            t.text("action", "receive_complete").num("qp", q.qp().id()).num("wqe", msgIndex).num("bytes", mo + n)
                    .flag("solicited", solicited).hex("invalidated", invalidate ? stag : 0).emit();
        }
    }

    /** What a new Send message found at the RQ's device index. */
    private enum RqFetch {
        /** A posted, well-formed WQE: its SGEs are the message's buffer. */
        FETCHED,
        /** None posted (or the RQ was flushed, or its ring is not mapped there). */
        NOT_POSTED,
        /** A malformed WQE: its AE was raised and the QP stopped. */
        MALFORMED
    }

    /** Reads the RQ WQE at the device's index and loads its SGEs. */
    private RqFetch fetch() {
        if (flushed) {
            return RqFetch.NOT_POSTED;
        }
        int index = rq.index();
        long offset = (long) index * RqWqe.MIN_SIZE;
        if (!rqRing.holds(offset)) {
            return RqFetch.NOT_POSTED;
        }
        long gpa = rqRing.address(offset);
        int r = memory.find(gpa, rqWqeBytes);
        if (r < 0) {
            return RqFetch.NOT_POSTED;
        }
        rqWqe.wrap(memory.store(r), memory.offset(r, gpa), rqWqeBytes);
        WqeCheck c = rqWqe.validate(rq.polarity(), rqWqeBytes);
        if (c == WqeCheck.NOT_POSTED) {
            return RqFetch.NOT_POSTED;
        }
        if (!c.accepted()) {
            AeCode ae = c.suggestedAe();
            error((ae != null ? ae : AeCode.WQE_INVALID_PARAMETER).code(), AeSource.RQ, index);
            return RqFetch.MALFORMED;
        }
        sges.clear();
        long total = 0;
        int slots = Math.min(rqWqe.fragmentSlots(), 15);
        for (int s = 0; s < slots && sges.count() < SgeList.CAPACITY; s++) {
            long len = rqWqe.fragmentLength(s);
            if (len > 0) {
                sges.add(rqWqe.fragmentAddress(s), (int) len, rqWqe.fragmentStag(s));
                total += len;
            }
        }
        msgCapacity = total;
        return RqFetch.FETCHED;
    }

    /** Places {@code n} bytes at message offset {@code mo} into the WQE's SGEs; false when memory refused. */
    private boolean place(long payload, long mo, int n) {
        int i = 0;
        long base = 0;
        while (i < sges.count() && base + sges.length(i) <= mo) {
            base += sges.length(i);
            i++;
        }
        long pos = mo;
        long src = payload;
        int left = n;
        while (left > 0 && i < sges.count()) {
            long within = pos - base;
            int piece = (int) Math.min(left, sges.length(i) - within);
            int rc = q.regions().write(sges.stag(i), sges.address(i) + within, curStore, src, piece,
                    MemoryRegions.LOCAL_WRITE, q.pd());
            if (rc != MemoryRegions.OK) {
                error(rc, AeSource.RQ, msgIndex);
                return false;
            }
            placed(sges.stag(i), sges.address(i) + within, piece);
            pos += piece;
            src += piece;
            left -= piece;
            base += sges.length(i);
            i++;
        }
        return true;
    }

    private void placed(int stag, long to, int n) {
        q.stats().bytesPlaced += n;
        TraceEvent t = q.trace().start(TraceKind.PLACEMENT);
        if (t != null) {
            t.text("action", "place").num("qp", q.qp().id()).hex("stag", stag).hex("to", to).num("len", n).emit();
        }
    }

    private void traceRx(RdmapOpcode op, int payload) {
        TraceEvent t = q.trace().start(TraceKind.FPDU_RX);
        if (t != null) {
            t.num("qp", q.qp().id()).hex("seq", curSequence).num("fpdu_len", curLength).text("op", op.name())
                    .flag("last", ddp.last()).num("payload", payload);
            if (ddp.tagged()) {
                t.hex("stag", ddp.stag()).hex("to", ddp.taggedOffset());
            } else {
                t.num("qn", ddp.queueNumber()).num("msn", ddp.msn()).num("mo", ddp.messageOffset());
            }
            t.emit();
        }
    }

    // ---- flush (CQP Flush WQEs)

    /**
     * Ends the RQ: answers whether a WQE was outstanding (a message in progress, or one posted at the device's
     * index); if so writes one flush completion for it (gen2: uk.c completes the rest of its RQ from that one).
     */
    boolean flush(int major, int minor) {
        boolean outstanding = msgActive || !flushed && postedAtIndex();
        int index = msgActive ? msgIndex : rq.index();
        msgActive = false;
        flushed = true;
        if (!outstanding) {
            return false;
        }
        q.completions().rq(q.qp(), index, 0, 0, false, false, major, minor);
        return true;
    }

    private boolean postedAtIndex() {
        long offset = (long) rq.index() * RqWqe.MIN_SIZE;
        if (!rqRing.holds(offset)) {
            return false;
        }
        long gpa = rqRing.address(offset);
        int r = memory.find(gpa, RqWqe.MIN_SIZE);
        return r >= 0 && rqWqe.wrap(memory.store(r), memory.offset(r, gpa), RqWqe.MIN_SIZE).valid() == rq.polarity();
    }
}
