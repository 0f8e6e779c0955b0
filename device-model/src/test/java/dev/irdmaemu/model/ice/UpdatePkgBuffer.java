package dev.irdmaemu.model.ice;

import dev.irdmaemu.fw.aq.ProfileTableSection;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An update_pkg buffer built the way ice_flex_pipe.c builds one (ice_pkg_buf_alloc, ice_pkg_buf_reserve_section,
 * ice_pkg_buf_alloc_section: the section table first, each section 4-byte aligned after it, data_end at the end of
 * the last), with the section bodies of ice_prof_bld_es / ice_prof_bld_tcam / ice_prof_bld_xlt1 / ice_prof_bld_xlt2.
 */
public final class UpdatePkgBuffer {
    private final List<Long> types = new ArrayList<>();
    private final List<byte[]> bodies = new ArrayList<>();

    public UpdatePkgBuffer section(long sid, byte[] body) {
        types.add(sid);
        bodies.add(body);
        return this;
    }

    /** ice_prof_bld_es: one profile's field vector of the block's width; {@code words} as {prot_id, off} pairs. */
    public UpdatePkgBuffer fieldVector(int block, int profile, int[][] words) {
        int fvw = ProfileTableSection.fieldVectorWords(block);
        ByteBuffer b = le(4 + fvw * 4);
        b.putShort((short) 1).putShort((short) profile);
        for (int w = 0; w < fvw; w++) {
            int prot = w < words.length ? words[w][0] : 0xFF;
            int off = w < words.length ? words[w][1] : 0;
            b.put((byte) prot).putShort((short) off).put((byte) 0);
        }
        return section(ProfileTableSection.sectionId(block, ProfileTableSection.KIND_ES), b.array());
    }

    /** ice_prof_bld_tcam: one entry keyed on (ptg, vsig) exactly, flags don't care (ice_prof_tcam_ena_dis's dc_msk). */
    public UpdatePkgBuffer tcam(int block, int address, int ptg, int vsig, int profile) {
        ByteBuffer b = le(2 + 13);
        b.putShort((short) 1).putShort((short) address);
        // struct ice_prof_id_key: flags le16 (don't care), xlt1, xlt2_cdid le16
        int[] in = {0, 0, ptg, vsig & 0xFF, vsig >>> 8 & 0xFF};
        byte[] key = new byte[10];
        for (int i = 0; i < 5; i++) {
            boolean dontCare = i < 2;
            key[i] = dontCare ? (byte) 0xFF : (byte) ~in[i]; // exact 0 bits: key 1; exact 1 bits: key 0
            key[5 + i] = dontCare ? (byte) 0xFF : (byte) in[i]; // exact 1 bits: inverted key 1
        }
        b.put(key).put((byte) profile);
        return section(ProfileTableSection.sectionId(block, ProfileTableSection.KIND_TCAM), b.array());
    }

    public UpdatePkgBuffer xlt1(int block, int ptype, int ptg) {
        ByteBuffer b = le(5);
        b.putShort((short) 1).putShort((short) ptype).put((byte) ptg);
        return section(ProfileTableSection.sectionId(block, ProfileTableSection.KIND_XLT1), b.array());
    }

    public UpdatePkgBuffer xlt2(int block, int vsi, int vsig) {
        ByteBuffer b = le(6);
        b.putShort((short) 1).putShort((short) vsi).putShort((short) vsig);
        return section(ProfileTableSection.sectionId(block, ProfileTableSection.KIND_XLT2), b.array());
    }

    /** The buffer's {@code data_end} bytes, as ice_aq_update_pkg sends them. */
    public byte[] build() {
        int n = types.size();
        int at = 4 + 8 * n;
        ByteBuffer b = le(4096);
        b.putShort(0, (short) n);
        for (int i = 0; i < n; i++) {
            at = at + 3 & ~3;
            byte[] body = bodies.get(i);
            b.putInt(4 + 8 * i, types.get(i).intValue());
            b.putShort(4 + 8 * i + 4, (short) at);
            b.putShort(4 + 8 * i + 6, (short) body.length);
            b.put(at, body);
            at += body.length;
        }
        b.putShort(2, (short) at);
        return Arrays.copyOf(b.array(), at);
    }

    private static ByteBuffer le(int n) {
        return ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    }
}
