package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Check;
import dev.irdmaemu.fw.Flyweight;

/**
 * A whole DDP package file (ice_ddp.h), as the driver reads {@code intel/ice/ddp/ice.pkg}: struct ice_pkg_hdr
 * (pkg_format_ver 4 bytes, seg_count le32, seg_offset[] le32), then segments, each starting with struct
 * ice_generic_seg_hdr (seg_type le32, seg_format_ver 4 bytes, seg_size le32, char seg_id[32]: 44 bytes).
 * <ul>
 * <li>The ice segment (SEGMENT_TYPE_ICE_E810 0x10 / E830 0x17, struct ice_seg): device_table_count le32, that
 * many 8-byte device entries, struct ice_nvm_table (table_count le32, that many le32), then struct ice_buf_table
 * (buf_count le32, 4 KB buffers) (ice_ddp.c ice_find_buf_table).</li>
 * <li>A signing segment (SEGMENT_TYPE_SIGNING 0x1001, struct ice_sign_seg): seg_id, sign_type, signed_seg_idx,
 * signed_buf_start, signed_buf_count, flags (le32 each), 40 reserved, then its own buffer table.</li>
 * </ul>
 * {@link #validate()} applies ice_ddp.c ice_verify_pkg (format 1.0.0.0, at least one segment, the offset table and
 * every segment inside the file) and checks that each ice or signing segment's buffer table lies inside its
 * segment. Used by tests and the Java driver to send a package the way ice_ddp.c ice_download_pkg does.
 */
public final class DdpPackageFile extends LeView implements Flyweight<DdpPackageFile> {
    public static final int SEG_HEADER = 44;
    public static final int SEG_ID_SIZE = 32;
    public static final long SEGMENT_TYPE_METADATA = 0x1;
    public static final long SEGMENT_TYPE_ICE_E810 = 0x10;
    public static final long SEGMENT_TYPE_ICE_E830 = 0x17;
    public static final long SEGMENT_TYPE_SIGNING = 0x1001;
    public static final long SIGN_TYPE_RSA2K = 1;
    public static final long SIGN_SEG_FLAGS_VALID = 0x80000000L;
    public static final long SIGN_SEG_FLAGS_LAST = 0x1;
    /** What {@link #findSegment} answers when no segment has the type (ice_find_seg_in_pkg answers NULL). */
    public static final int NO_SEGMENT = -1;
    /** What {@link #bufferTable} answers for a segment without a buffer table, or one reaching past the file. */
    public static final long NO_BUFFER_TABLE = -1;
    private static final int SIGN_FIELDS = SEG_HEADER;
    private static final int SIGN_BUF_TABLE = SEG_HEADER + 24 + 40;

    public enum Status implements Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than a package header with one segment offset"),
        BAD_FORMAT_VERSION("package format version is not 1.0.0.0"),
        NO_SEGMENTS("seg_count is 0"),
        OFFSETS_BEYOND_FILE("the segment offset table reaches past the file"),
        SEGMENT_BEYOND_FILE("a segment header or body reaches past the file"),
        BUFFER_TABLE_BEYOND_SEGMENT("a segment's buffer table reaches past the segment");

        private final String text;

        Status(String text) {
            this.text = text;
        }

        @Override
        public String describe() {
            return text;
        }
    }

    public Status validate() {
        failedAt = -1;
        if (length < 12) {
            return fail(Status.TRUNCATED, 0);
        }
        if (formatVersion() != 0x01000000) {
            return fail(Status.BAD_FORMAT_VERSION, 0);
        }
        long n = segmentCount();
        if (n < 1) {
            return fail(Status.NO_SEGMENTS, 4);
        }
        if (8 + 4 * n > length) {
            return fail(Status.OFFSETS_BEYOND_FILE, 4);
        }
        for (int i = 0; i < n; i++) {
            long off = segmentOffset(i);
            if (off + SEG_HEADER > length || off + segmentSize(off) > length) {
                return fail(Status.SEGMENT_BEYOND_FILE, 8 + 4L * i);
            }
            long type = segmentType(off);
            if (type == SEGMENT_TYPE_ICE_E810 || type == SEGMENT_TYPE_ICE_E830 || type == SEGMENT_TYPE_SIGNING) {
                long table = bufferTable(off);
                if (table < 0 || table + 4 + PkgBuffer.SIZE * bufferCount(table) > off + segmentSize(off)) {
                    return fail(Status.BUFFER_TABLE_BEYOND_SEGMENT, off);
                }
            }
        }
        return Status.ACCEPTED;
    }

    /** pkg_format_ver, major in bits 31..24. */
    public int formatVersion() {
        return u8(0) << 24 | u8(1) << 16 | u8(2) << 8 | u8(3);
    }

    public long segmentCount() {
        return u32(4);
    }

    /** Offset (from the file start) of segment {@code i}. */
    public long segmentOffset(int i) {
        return u32(8 + 4L * i);
    }

    public long segmentType(long seg) {
        return u32(seg);
    }

    public int segmentFormatVersion(long seg) {
        return u8(seg + 4) << 24 | u8(seg + 5) << 16 | u8(seg + 6) << 8 | u8(seg + 7);
    }

    public long segmentSize(long seg) {
        return u32(seg + 8);
    }

    /**
     * Index of the first segment of {@code type} (ice_find_seg_in_pkg), or {@link #NO_SEGMENT}. Only the offsets
     * that lie inside the file are looked at, whatever seg_count claims.
     */
    public int findSegment(long type) {
        long n = Math.min(segmentCount(), Math.max(0, (length - 8) / 4));
        for (int i = 0; i < n; i++) {
            if (segmentType(segmentOffset(i)) == type) {
                return i;
            }
        }
        return NO_SEGMENT;
    }

    public long signSegmentId(long seg) {
        return u32(seg + SIGN_FIELDS);
    }

    public long signType(long seg) {
        return u32(seg + SIGN_FIELDS + 4);
    }

    public long signedSegmentIndex(long seg) {
        return u32(seg + SIGN_FIELDS + 8);
    }

    public long signedBufferStart(long seg) {
        return u32(seg + SIGN_FIELDS + 12);
    }

    public long signedBufferCount(long seg) {
        return u32(seg + SIGN_FIELDS + 16);
    }

    public long signFlags(long seg) {
        return u32(seg + SIGN_FIELDS + 20);
    }

    /**
     * Offset of the segment's struct ice_buf_table (its buf_count), or {@link #NO_BUFFER_TABLE} when the segment has
     * none or its tables reach past the file.
     */
    public long bufferTable(long seg) {
        long type = segmentType(seg);
        if (type == SEGMENT_TYPE_SIGNING) {
            return seg + SIGN_BUF_TABLE;
        }
        if (type != SEGMENT_TYPE_ICE_E810 && type != SEGMENT_TYPE_ICE_E830) {
            return NO_BUFFER_TABLE;
        }
        long devices = u32(seg + SEG_HEADER);
        long nvm = seg + SEG_HEADER + 4 + 8 * devices;
        if (!has(nvm, 4)) {
            return NO_BUFFER_TABLE;
        }
        long table = nvm + 4 + 4 * u32(nvm);
        return has(table, 4) ? table : NO_BUFFER_TABLE;
    }

    public long bufferCount(long table) {
        return u32(table);
    }

    /** Offset of buffer {@code i} of the table at {@code table}. */
    public long buffer(long table, long i) {
        return table + 4 + PkgBuffer.SIZE * i;
    }

    /** Absolute offset in the wrapped store of file offset {@code rel}. */
    public long absolute(long rel) {
        return base + rel;
    }
}
