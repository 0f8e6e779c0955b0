package dev.irdmaemu.bridge.boot;

import dev.irdmaemu.cm.rping.RpingResult;
import java.util.Map;

/**
 * The summary fields both rping services give one connection's result after their own: the bytes read and written
 * (rdma-core's rping.c moves them with RDMA Reads and Writes), and the failure when there was one, its spaces made
 * underscores so that the summary's {@code key=value} words stay single words.
 */
final class RpingSummaryFields {
    private RpingSummaryFields() {
    }

    static void put(Map<String, String> fields, RpingResult r) {
        fields.put("bytes_read", Long.toString(r.bytesRead()));
        fields.put("bytes_written", Long.toString(r.bytesWritten()));
        if (!r.failure().isEmpty()) {
            fields.put("failure", r.failure().replace(' ', '_'));
        }
    }
}
