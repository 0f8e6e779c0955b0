package dev.irdmaemu.fw.qp;

/**
 * The iWARP part of a QP context (type.h struct irdma_iwarp_offload_info) as irdma_sc_qp_setctx writes it.
 * {@code irdSize} is the driver's IRD (rounded and encoded by irdma_sc_get_encoded_ird_size on the way in);
 * {@code macAddr} is the local MAC as a 48-bit number, first byte most significant (ether_addr_to_u64).
 * The struct's iwarp_mode and use_stats_inst are not written by irdma_sc_qp_setctx (IWARPMODE is always 1,
 * USESTATSINSTANCE comes from the host context info) and are left out. Built through its {@link Builder}, whose
 * setters are named for the struct's fields, never positionally.
 */
public record IwarpOffloadInfo(
    int rcvMarkOffset,
    int sndMarkOffset,
    int ddpVer,
    int rdmapVer,
    int errRqIdx,
    int pdId,
    int ordSize,
    int irdSize,
    boolean ibRdEn,
    boolean alignHdrs,
    boolean rcvNoMpaCrc,
    boolean errRqIdxValid,
    boolean sndMarkEn,
    boolean rcvMarkEn,
    boolean wrRdrespEn,
    boolean bindEn,
    boolean fastRegEn,
    boolean privModeEn,
    boolean rdEn,
    boolean timelyEn,
    boolean ecnEn,
    boolean dctcpEn,
    int tHigh,
    int tLow,
    int lastByteSent,
    long macAddr,
    int rtomin) {
    /** A builder holding these fields, to change some of them by name. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Sets the fields by their names in struct irdma_iwarp_offload_info; a new builder holds all zeros. */
    public static final class Builder {
        private int rcvMarkOffset;
        private int sndMarkOffset;
        private int ddpVer;
        private int rdmapVer;
        private int errRqIdx;
        private int pdId;
        private int ordSize;
        private int irdSize;
        private boolean ibRdEn;
        private boolean alignHdrs;
        private boolean rcvNoMpaCrc;
        private boolean errRqIdxValid;
        private boolean sndMarkEn;
        private boolean rcvMarkEn;
        private boolean wrRdrespEn;
        private boolean bindEn;
        private boolean fastRegEn;
        private boolean privModeEn;
        private boolean rdEn;
        private boolean timelyEn;
        private boolean ecnEn;
        private boolean dctcpEn;
        private int tHigh;
        private int tLow;
        private int lastByteSent;
        private long macAddr;
        private int rtomin;

        public Builder() {
        }

        private Builder(IwarpOffloadInfo w) {
            this.rcvMarkOffset = w.rcvMarkOffset;
            this.sndMarkOffset = w.sndMarkOffset;
            this.ddpVer = w.ddpVer;
            this.rdmapVer = w.rdmapVer;
            this.errRqIdx = w.errRqIdx;
            this.pdId = w.pdId;
            this.ordSize = w.ordSize;
            this.irdSize = w.irdSize;
            this.ibRdEn = w.ibRdEn;
            this.alignHdrs = w.alignHdrs;
            this.rcvNoMpaCrc = w.rcvNoMpaCrc;
            this.errRqIdxValid = w.errRqIdxValid;
            this.sndMarkEn = w.sndMarkEn;
            this.rcvMarkEn = w.rcvMarkEn;
            this.wrRdrespEn = w.wrRdrespEn;
            this.bindEn = w.bindEn;
            this.fastRegEn = w.fastRegEn;
            this.privModeEn = w.privModeEn;
            this.rdEn = w.rdEn;
            this.timelyEn = w.timelyEn;
            this.ecnEn = w.ecnEn;
            this.dctcpEn = w.dctcpEn;
            this.tHigh = w.tHigh;
            this.tLow = w.tLow;
            this.lastByteSent = w.lastByteSent;
            this.macAddr = w.macAddr;
            this.rtomin = w.rtomin;
        }

        public Builder rcvMarkOffset(int rcvMarkOffset) {
            this.rcvMarkOffset = rcvMarkOffset;
            return this;
        }

        public Builder sndMarkOffset(int sndMarkOffset) {
            this.sndMarkOffset = sndMarkOffset;
            return this;
        }

        public Builder ddpVer(int ddpVer) {
            this.ddpVer = ddpVer;
            return this;
        }

        public Builder rdmapVer(int rdmapVer) {
            this.rdmapVer = rdmapVer;
            return this;
        }

        public Builder errRqIdx(int errRqIdx) {
            this.errRqIdx = errRqIdx;
            return this;
        }

        public Builder pdId(int pdId) {
            this.pdId = pdId;
            return this;
        }

        public Builder ordSize(int ordSize) {
            this.ordSize = ordSize;
            return this;
        }

        public Builder irdSize(int irdSize) {
            this.irdSize = irdSize;
            return this;
        }

        public Builder ibRdEn(boolean ibRdEn) {
            this.ibRdEn = ibRdEn;
            return this;
        }

        public Builder alignHdrs(boolean alignHdrs) {
            this.alignHdrs = alignHdrs;
            return this;
        }

        public Builder rcvNoMpaCrc(boolean rcvNoMpaCrc) {
            this.rcvNoMpaCrc = rcvNoMpaCrc;
            return this;
        }

        public Builder errRqIdxValid(boolean errRqIdxValid) {
            this.errRqIdxValid = errRqIdxValid;
            return this;
        }

        public Builder sndMarkEn(boolean sndMarkEn) {
            this.sndMarkEn = sndMarkEn;
            return this;
        }

        public Builder rcvMarkEn(boolean rcvMarkEn) {
            this.rcvMarkEn = rcvMarkEn;
            return this;
        }

        public Builder wrRdrespEn(boolean wrRdrespEn) {
            this.wrRdrespEn = wrRdrespEn;
            return this;
        }

        public Builder bindEn(boolean bindEn) {
            this.bindEn = bindEn;
            return this;
        }

        public Builder fastRegEn(boolean fastRegEn) {
            this.fastRegEn = fastRegEn;
            return this;
        }

        public Builder privModeEn(boolean privModeEn) {
            this.privModeEn = privModeEn;
            return this;
        }

        public Builder rdEn(boolean rdEn) {
            this.rdEn = rdEn;
            return this;
        }

        public Builder timelyEn(boolean timelyEn) {
            this.timelyEn = timelyEn;
            return this;
        }

        public Builder ecnEn(boolean ecnEn) {
            this.ecnEn = ecnEn;
            return this;
        }

        public Builder dctcpEn(boolean dctcpEn) {
            this.dctcpEn = dctcpEn;
            return this;
        }

        public Builder tHigh(int tHigh) {
            this.tHigh = tHigh;
            return this;
        }

        public Builder tLow(int tLow) {
            this.tLow = tLow;
            return this;
        }

        public Builder lastByteSent(int lastByteSent) {
            this.lastByteSent = lastByteSent;
            return this;
        }

        public Builder macAddr(long macAddr) {
            this.macAddr = macAddr;
            return this;
        }

        public Builder rtomin(int rtomin) {
            this.rtomin = rtomin;
            return this;
        }

        public IwarpOffloadInfo build() {
            return new IwarpOffloadInfo(
                rcvMarkOffset, sndMarkOffset, ddpVer, rdmapVer, errRqIdx, pdId, ordSize, irdSize, ibRdEn, alignHdrs,
                rcvNoMpaCrc, errRqIdxValid, sndMarkEn, rcvMarkEn, wrRdrespEn, bindEn, fastRegEn, privModeEn, rdEn,
                timelyEn, ecnEn, dctcpEn, tHigh, tLow, lastByteSent, macAddr, rtomin);
        }
    }
}
