package dev.irdmaemu.model.iwarp;

/** What one iWARP QP's data path counted; read by tests, the summary and the benches. Plain fields, no allocation. */
public final class IwarpCounters {
    long fpdusSent;
    long fpdusReceived;
    long payloadBytesSent;
    long bytesPlaced;
    long crcErrors;
    long terminatesSent;
    long terminatesReceived;
    long readRequestsReceived;
    long readResponsesSent;
    long sqWqesCompleted;
    long rqWqesCompleted;
    long errors;
    long framesDroppedAfterError;
    long streamBytesSent;
    long shadowTailWrites;
    long shadowTailFaults;

    public long fpdusSent() {
        return fpdusSent;
    }

    public long fpdusReceived() {
        return fpdusReceived;
    }

    /** ULP payload bytes put into FPDUs (Send, Write, Read Response data). */
    public long payloadBytesSent() {
        return payloadBytesSent;
    }

    /** Bytes written into host memory by placement (untagged and tagged). */
    public long bytesPlaced() {
        return bytesPlaced;
    }

    public long crcErrors() {
        return crcErrors;
    }

    public long terminatesSent() {
        return terminatesSent;
    }

    public long terminatesReceived() {
        return terminatesReceived;
    }

    public long readRequestsReceived() {
        return readRequestsReceived;
    }

    public long readResponsesSent() {
        return readResponsesSent;
    }

    public long sqWqesCompleted() {
        return sqWqesCompleted;
    }

    public long rqWqesCompleted() {
        return rqWqesCompleted;
    }

    /** Data-path errors that stopped the QP (each raised one AE). */
    public long errors() {
        return errors;
    }

    /** FPDUs taken off the stream after the data path stopped (not looked at). */
    public long framesDroppedAfterError() {
        return framesDroppedAfterError;
    }

    /** Streaming-mode bytes (the LSMM) put on the TCP stream raw. */
    public long streamBytesSent() {
        return streamBytesSent;
    }

    /** SQ tails written into the QP shadow area (one per WQE fetched). */
    public long shadowTailWrites() {
        return shadowTailWrites;
    }

    /** SQ tails not written: the shadow area lies outside mapped host memory (the first one traced). */
    public long shadowTailFaults() {
        return shadowTailFaults;
    }
}
