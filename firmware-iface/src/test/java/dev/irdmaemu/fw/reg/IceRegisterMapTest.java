package dev.irdmaemu.fw.reg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.fw.lan.LanRegister;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;

/** Names of ice's plain-storage registers at the offsets of ice_hw_autogen.h (Linux 7.3). */
class IceRegisterMapTest {
    private static void assertNamed(String name, int index, long offset) {
        int e = IceRegisterMap.find(offset);
        assertTrue(e >= 0, "no entry for 0x" + Long.toHexString(offset));
        assertEquals(name, IceRegisterMap.name(e), "0x" + Long.toHexString(offset));
        assertEquals(index, IceRegisterMap.index(e, offset), "index at 0x" + Long.toHexString(offset));
    }

    @Test
    void namesTheOffsetsIceTouches() {
        assertNamed("GLGEN_STAT", 0, 0x000B612C);
        assertNamed("GLPRT_GORCL", 0, 0x00380000);
        assertNamed("GLPRT_GORCH", 0, 0x00380004); // the high dword of ice_stat_update40's 64-bit read
        assertNamed("GLPRT_GORCL", 3, 0x00380018);
        assertNamed("GLPRT_PTC9522L", 0, 0x00380D00);
        assertNamed("GLQF_HMASK", 31, 0x0040FC7C);
        assertNamed("GLQF_FDMASK", 0, 0x00410800);
        assertNamed("GL_MDCK_TX_TDPU", 0, 0x00049348);
        assertNamed("GLINT_CTL", 0, 0x0016CC54);
        assertNamed("E800_PRTMAC_HSEC_CTL_TX_PS_QNT", 8, 0x001E37E0);
        // GLINT_ITR(_i, _INT) = 0x00154000 + _i * 8192 + _INT * 4
        int e = IceRegisterMap.find(0x00154000 + 8192 + 5 * 4);
        assertEquals("GLINT_ITR", IceRegisterMap.name(e));
        assertTrue(IceRegisterMap.twoDimensional(e));
        assertEquals(1, IceRegisterMap.index(e, 0x00154000 + 8192 + 5 * 4), "_i, the ITR index");
        assertEquals(5, IceRegisterMap.index2(e, 0x00154000 + 8192 + 5 * 4), "_INT, the vector");
        assertFalse(IceRegisterMap.isElement(e, 0x00154000 + 3 * 8192), "no ITR index 3");
        // GLPRT_PXONRXC(_i, _j) = 0x00380300 + _i * 8 + _j * 64: the larger stride is the second argument
        int p = IceRegisterMap.find(0x00380300 + 2 * 8 + 3 * 64);
        assertEquals("GLPRT_PXONRXC", IceRegisterMap.name(p));
        assertEquals(2, IceRegisterMap.index(p, 0x00380300 + 2 * 8 + 3 * 64));
        assertEquals(3, IceRegisterMap.index2(p, 0x00380300 + 2 * 8 + 3 * 64));
    }

    @Test
    void offsetsOfNoRegisterAreNotNamed() {
        assertEquals(IceRegisterMap.NO_ENTRY, IceRegisterMap.find(0x00380002)); // inside a register, not at its start
        assertEquals(IceRegisterMap.NO_ENTRY, IceRegisterMap.find(0x7FFF_0000L));
        assertEquals(IceRegisterMap.NO_ENTRY, IceRegisterMap.find(0));
        assertEquals(IceRegisterMap.NO_ENTRY, IceRegisterMap.find(-4));
    }

    /** The table names only what no block's own table already names: no offset of theirs falls in it. */
    @Test
    void namesNoRegisterAModelBlockDefines() throws IllegalAccessException {
        for (Gen2Register r : Gen2Register.values()) {
            if (r.isRegister()) {
                for (int i = 0; i < r.count(); i += Math.max(1, r.count() / 64)) {
                    assertEquals(IceRegisterMap.NO_ENTRY, IceRegisterMap.find(r.at(i)), r.name() + "[" + i + "]");
                }
            }
        }
        for (Class<?> c : new Class<?>[] {IceRegister.class, LanRegister.class}) {
            for (Field f : c.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class && !f.getName().endsWith("_M")
                        && !f.getName().endsWith("_S") && f.getInt(null) >= 0x1000) {
                    assertFalse(IceRegisterMap.find(f.getInt(null)) >= 0,
                            c.getSimpleName() + "." + f.getName() + " is named twice");
                }
            }
        }
    }
}
