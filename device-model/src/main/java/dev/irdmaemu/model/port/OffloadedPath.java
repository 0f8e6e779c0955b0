package dev.irdmaemu.model.port;

/**
 * The offloaded QPs' data path as the port sees it: the segments of connections the hardware runs, and how many of
 * them were exceptions its IEQ took (out of order, or ending inside an FPDU).
 */
public interface OffloadedPath extends SegmentReceiver {
    /** Exception segments so far (the IEQ's share of the port's QP traffic). */
    long exceptionSegments();
}
