package dev.irdmaemu.fw.cqp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import net.openhft.chronicle.bytes.BytesStore;

/** Test helpers: stores, quadword dumps and field-by-field comparison of the reusable field holders. */
final class Wqes {
    private Wqes() {
    }

    static BytesStore<?, ?> heap(int size) {
        return BytesStore.wrap(new byte[size]);
    }

    static long[] qwords(BytesStore<?, ?> s, long off, int n) {
        long[] q = new long[n];
        for (int i = 0; i < n; i++) {
            q[i] = s.readLong(off + 8L * i);
        }
        return q;
    }

    static void assertQwords(long[] expected, BytesStore<?, ?> s, long off) {
        long[] actual = qwords(s, off, expected.length);
        for (int i = 0; i < expected.length; i++) {
            assertEquals(Long.toHexString(expected[i]), Long.toHexString(actual[i]), "quadword " + i + " (byte "
                    + 8 * i + ")");
        }
    }

    /** Every public instance field of two holders of the same class is equal (arrays by content). */
    static void assertSameFields(Object expected, Object actual) {
        for (Field f : expected.getClass().getFields()) {
            if (Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            try {
                Object a = f.get(expected);
                Object b = f.get(actual);
                if (a instanceof int[] ia) {
                    assertEquals(Arrays.toString(ia), Arrays.toString((int[]) b), f.getName());
                } else {
                    assertEquals(a, b, f.getName());
                }
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
        }
    }
}
