package dev.irdmaemu.model.roce;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.queue.AeCode;
import dev.irdmaemu.fw.queue.AeSource;
import dev.irdmaemu.model.eq.RingCursor;
import dev.irdmaemu.fw.queue.SqOpcode;
import dev.irdmaemu.fw.queue.SqWqe;
import dev.irdmaemu.fw.queue.WqeCheck;
import dev.irdmaemu.fw.roce.BthOpcode;
import dev.irdmaemu.fw.roce.RoceFrameBuilder;
import dev.irdmaemu.model.ah.AddressHandle;
import dev.irdmaemu.model.ah.AddressHandleTable;
import dev.irdmaemu.model.eq.AsyncEventQueue;
import dev.irdmaemu.model.mr.MemoryRegions;
import dev.irdmaemu.model.port.ArpTable;
import dev.irdmaemu.model.port.FrameTransmitter;
import dev.irdmaemu.model.qp.QueuePair;
import dev.irdmaemu.model.trace.Trace;
import dev.irdmaemu.model.trace.TraceEvent;
import dev.irdmaemu.model.trace.TraceKind;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The UD / QP1 send side: each SEND WQE posted at the device's SQ position (uk.c irdma_uk_send for a UD QP: the
 * fragments, IRDMAQPSQ_DESTQKEY 31:0 and IRDMAQPSQ_DESTQPN 55:32 in quadword 2, IRDMAQPSQ_AHID in the header, the
 * immediate in quadword 0) becomes one RoCEv2 frame (IBA vol. 1 Annex A17): Ethernet to the MAC of the AH's ARP
 * entry (or the own MAC through a loopback AH), 802.1Q when the AH says so, IPv4 or IPv6 from the AH's addresses,
 * TOS / traffic class, TTL / hop limit and flow label, UDP from the QP context's source port to 4791, BTH
 * (UD SEND_ONLY, with immediate 0x65; SE for SEND_SOL; the QP's P_Key; the WQE's destination QP; the QP's next
 * PSN, which advances per packet), DETH (the WQE's Q_Key, or the QP's own when bit 31 is set, IBA §10.2.5: this
 * is how the MAD layer's 0x80000000 becomes the GSI Q_Key 0x80010000; the sending QP), payload, pad and ICRC
 * (fw.roce.RoceFrameBuilder), then a signalled SQ completion. A WQE the device cannot send (malformed, no such AH,
 * an AH of another PD, no ARP entry, longer than the path MTU, a buffer the STag refuses) raises its AE (user.h:
 * WQE_UNEXPECTED_OPCODE, INVALID_AH_ENTRY, UDA_XMIT_BAD_PD, UDA_XMIT_DGRAM_TOO_LONG, the memory AE) and stops the
 * SQ with the WQE left posted: irdma then moves the QP to error and Flush WQEs completes it (hw.c
 * irdma_process_aeq). Allocation-free: one frame buffer, one builder, one WQE flyweight.
 */
final class UdSender {
    /** The largest UD payload: the path MTU is at most 4096 (IBA §9.7.7; SNDMSS checked at context load). */
    static final int MAX_PAYLOAD = 4096;
    private static final int MAX_FRAME = MAX_PAYLOAD + 128;

    private final HostMemory memory;
    private final LocalBuffers buffers;
    private final AddressHandleTable ahs;
    private final ArpTable arp;
    private final AsyncEventQueue aeq;
    private final Trace trace;
    private final RoceCounters counters;
    private final SendCompletions completions;
    private final SqWqe wqe = new SqWqe();
    private final RoceFrameBuilder builder = new RoceFrameBuilder();
    private final BytesStore<?, Void> frame = BytesStore.nativeStoreWithFixedCapacity(MAX_FRAME);
    private int identification;

    /** Where a built frame goes: the wire, or the own receive path for a loopback AH. */
    interface Output {
        void wire(BytesStore<?, ?> store, long offset, int length);

        void loopback(BytesStore<?, ?> store, long offset, int length);
    }

    /** The SQ completion of a sent WQE (written at once: the frame is on its way). */
    interface SendCompletions {
        void sent(QueuePair qp, int wqeIndex, int opcode);
    }

    UdSender(HostMemory memory, LocalBuffers buffers, AddressHandleTable ahs, ArpTable arp, AsyncEventQueue aeq,
             Trace trace, RoceCounters counters, SendCompletions completions) {
        this.memory = memory;
        this.buffers = buffers;
        this.ahs = ahs;
        this.arp = arp;
        this.aeq = aeq;
        this.trace = trace;
        this.counters = counters;
        this.completions = completions;
    }

    /** Sends what is posted on {@code qp}'s SQ, at most one ring's worth; answers the WQEs sent. */
    int drain(QueuePair qp, RoceQp q, Output out) {
        RingCursor sq = qp.sqCursor();
        int sent = 0;
        for (int n = 0; n < sq.size() && !q.sqStopped; n++) {
            long offset = (long) sq.index() * SqWqe.QUANTUM;
            if (!qp.sqRing().holds(offset)) {
                break;
            }
            long gpa = qp.sqRing().address(offset);
            int r = memory.find(gpa, SqWqe.QUANTUM);
            if (r < 0) {
                break;
            }
            long room = Math.min((long) SqWqe.MAX_QUANTA * SqWqe.QUANTUM, memory.length(r) - (gpa - memory.base(r)));
            wqe.wrap(memory.store(r), memory.offset(r, gpa), room);
            WqeCheck check = wqe.validate(sq.polarity());
            if (check == WqeCheck.NOT_POSTED) {
                break;
            }
            int index = sq.index();
            int ae = check.accepted() ? send(qp, q, out) : aeOf(check);
            if (ae != MemoryRegions.OK) {
                refuse(qp, q, index, ae);
                break;
            }
            int quanta = Math.max(1, wqe.quanta());
            for (int i = 0; i < quanta; i++) {
                sq.advance();
            }
            if (wqe.signaled()) {
                completions.sent(qp, index, wqe.opcode());
            }
            sent++;
        }
        return sent;
    }

    private static int aeOf(WqeCheck check) {
        AeCode ae = check.suggestedAe();
        return (ae != null ? ae : AeCode.WQE_UNEXPECTED_OPCODE).code();
    }

    /** Builds and sends the accepted WQE's frame; answers OK or the AE that refuses it. */
    private int send(QueuePair qp, RoceQp q, Output out) {
        int opcode = wqe.opcode();
        if (opcode != SqOpcode.RDMA_SEND.code() && opcode != SqOpcode.RDMA_SEND_SOL_EVENT.code()) {
            return AeCode.WQE_UNEXPECTED_OPCODE.code();
        }
        AddressHandle ah = ahs.get(wqe.ahId());
        if (ah == null) {
            return AeCode.INVALID_AH_ENTRY.code();
        }
        if (ah.pdIndex() != q.pd) {
            return AeCode.UDA_XMIT_BAD_PD.code();
        }
        long length = wqe.totalLength();
        if (length > q.pathMtu || length > MAX_PAYLOAD) {
            return AeCode.UDA_XMIT_DGRAM_TOO_LONG.code();
        }
        long dstMac;
        if (ah.loopback()) {
            dstMac = ah.mac();
        } else if (arp.valid(ah.arpIndex())) {
            dstMac = arp.mac(ah.arpIndex());
        } else {
            return AeCode.INVALID_AH_ENTRY.code();
        }
        if (ah.ipv4()) {
            identification = identification + 1 & 0xffff;
        }
        if (!ah.writeLinkAndIp(builder.reset(), dstMac, identification)) {
            return AeCode.INVALID_AH_ENTRY.code();
        }
        int n = (int) length;
        int wqeQKey = wqe.destQKey();
        int qKey = wqeQKey < 0 ? q.qKey : wqeQKey;
        int destQp = wqe.destQp();
        boolean imm = wqe.immediate();
        builder.bth(imm ? BthOpcode.UD_SEND_ONLY_WITH_IMMEDIATE : BthOpcode.UD_SEND_ONLY,
                        destQp, q.takeSendPsn())
                .flags(opcode == SqOpcode.RDMA_SEND_SOL_EVENT.code(), false, false)
                .partitionKey(q.pKey).ecn(false, false).deth(qKey, qp.id()).immediate((int) wqe.immediateData())
                .udp(q.srcPort != 0 ? q.srcPort : 0xC000, !ah.ipv4());
        long at = builder.begin(frame, 0, n);
        int rc = gather(q, at, n);
        if (rc != MemoryRegions.OK) {
            return rc;
        }
        int len = builder.finish();
        counters.sent(n, ah.loopback());
        TraceEvent t = trace.start(TraceKind.ROCE_TX);
        if (t != null) {
            t.num("qp", qp.id()).num("wqe", qp.sqCursor().index()).num("ah", ah.index())
                    .num("dest_qp", destQp).hex("qkey", qKey & 0xffff_ffffL)
                    .num("len", n).flag("imm", imm).flag("loopback", ah.loopback()).emit();
        }
        if (ah.loopback()) {
            out.loopback(frame, 0, len);
        } else {
            out.wire(frame, 0, len);
        }
        return MemoryRegions.OK;
    }

    /** Copies the WQE's {@code n} payload bytes (inline, or through its SGEs) into the frame at {@code at}. */
    private int gather(RoceQp q, long at, int n) {
        if (wqe.inline()) {
            wqe.copyInline(frame, at);
            return MemoryRegions.OK;
        }
        long to = at;
        int slots = Math.min(wqe.fragmentSlots(), 15);
        for (int s = wqe.firstDataSlot(); s < slots; s++) {
            int len = (int) wqe.fragmentLength(s);
            if (len == 0) {
                continue;
            }
            int rc = buffers.read(q, wqe.fragmentStag(s), wqe.fragmentAddress(s), frame, to, len);
            if (rc != MemoryRegions.OK) {
                return rc;
            }
            to += len;
        }
        return MemoryRegions.OK;
    }

    private void refuse(QueuePair qp, RoceQp q, int wqeIndex, int ae) {
        q.sqStopped = true;
        counters.sendError();
        aeq.post(qp.completionContext(), qp.id(), ae, AeSource.SQ, qp.state().code(), 0, wqeIndex);
        TraceEvent t = trace.start(TraceKind.ROCE_DROP);
        if (t != null) {
            t.text("queue", "SQ").num("qp", qp.id()).num("wqe", wqeIndex).hex("ae", ae).emit();
        }
    }
}
