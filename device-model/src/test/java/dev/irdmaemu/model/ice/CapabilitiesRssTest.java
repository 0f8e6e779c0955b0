package dev.irdmaemu.model.ice;

import static org.junit.jupiter.api.Assertions.*;

import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.ListCaps;
import dev.irdmaemu.fw.aq.AqOpcode;
import java.util.HashMap;
import java.util.Map;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

/** The RSS capability is reported only when asked for, as ice_parse_common_caps reads it (number, logical_id). */
class CapabilitiesRssTest {
    private static Map<Integer, long[]> funcCaps(boolean rss) {
        AqBench bench = new AqBench();
        new Capabilities(0, 64, 0, rss).registerWith(bench.handlers::put);
        Bytes<?> buf = readable(4096);
        assertEquals(AqError.OK, bench.send(AqOpcode.LIST_FUNC_CAPS, buf));
        long count = bench.desc.paramU32(ListCaps.COUNT);
        Map<Integer, long[]> m = new HashMap<>();
        for (int i = 0; i < count; i++) {
            int at = i * ListCaps.ELEM_SIZE;
            m.put(buf.readUnsignedShort(at + ListCaps.ELEM_CAP), new long[] {
                buf.readUnsignedInt(at + ListCaps.ELEM_NUMBER), buf.readUnsignedInt(at + ListCaps.ELEM_LOGICAL_ID)});
        }
        return m;
    }

    /** The AQ engine's buffer: the driver's bytes readable from 0 to datalen. */
    private static Bytes<?> readable(int n) {
        Bytes<?> b = AqBench.buffer(n);
        b.writePosition(n);
        return b;
    }

    @Test
    void rssIsOffByDefaultAndOnWhenAskedFor() {
        assertFalse(funcCaps(false).containsKey(ListCaps.CAP_RSS), "no rss_table_size: ICE_FLAG_RSS_ENA stays clear");
        Map<Integer, long[]> on = funcCaps(true);
        assertArrayEquals(new long[] {2048, 8}, on.get(ListCaps.CAP_RSS), "rss_table_size, rss_table_entry_width");
        assertEquals(1, on.get(ListCaps.CAP_RDMA)[0], "the rest is unchanged");
        // a buffer for 11 elements (the count without RSS: FD, TX_SCHED_TOPO_COMP_MODE, DCB and 1588 included) is now
        // too small:
        // ENOMEM with the count ice retries with
        AqBench bench = new AqBench();
        new Capabilities(0, 64, 0, true).registerWith(bench.handlers::put);
        assertEquals(AqError.ENOMEM, bench.send(AqOpcode.LIST_FUNC_CAPS, readable(11 * ListCaps.ELEM_SIZE)));
        assertEquals(12, bench.desc.paramU32(ListCaps.COUNT));
    }
}
