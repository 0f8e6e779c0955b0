package dev.irdmaemu.fw.aq;

import dev.irdmaemu.fw.Check;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * One 4 KB DDP package buffer (ice_ddp.h struct ice_buf, ICE_PKG_BUF_SIZE), as download_pkg (0x0C40) carries it:
 * struct ice_buf_hdr (section_count le16, data_end le16) then section_count struct ice_section_entry (type le32,
 * offset le16, size le16). {@link #validate()} applies the rules ice_ddp.c itself applies to a buffer
 * (ice_pkg_val_buf: 1..511 sections, data_end 12..4096) and to each section (ice_pkg_enum_section: offset
 * 12..4095, size 1..4084, offset + size inside the buffer), plus: the entry table fits before data_end and every
 * section ends by data_end. A type with {@link #METADATA_BUF} set in the first entry marks a metadata buffer,
 * which the driver never sends (ice_is_buffer_metadata).
 *
 * <p>The metadata section ({@link #SID_METADATA}, struct ice_meta_sect: ice_pkg_ver ver, char name[28], le32
 * track_id) gives the package's version and name; {@link #metaVersion}, {@link #metaName} read it.
 */
public final class PkgBuffer extends LeView {
    public static final int SIZE = 4096;
    public static final int HEADER = 4;
    public static final int ENTRY_SIZE = 8;
    public static final int MIN_SECTIONS = 1;
    public static final int MAX_SECTIONS = 511;
    public static final int MIN_DATA_END = 12;
    public static final int MAX_DATA_END = 4096;
    public static final int MIN_SECTION_OFFSET = 12;
    public static final int MAX_SECTION_OFFSET = 4095;
    public static final int MIN_SECTION_SIZE = 1;
    public static final int MAX_SECTION_SIZE = 4084;
    /** ICE_METADATA_BUF. */
    public static final long METADATA_BUF = 0x80000000L;
    /** ICE_SID_METADATA. */
    public static final int SID_METADATA = 1;
    /** ICE_META_SECT_NAME_SIZE. */
    public static final int META_NAME_SIZE = 28;
    /** sizeof(struct ice_meta_sect). */
    public static final int META_SIZE = 4 + META_NAME_SIZE + 4;

    public enum Status implements Check {
        ACCEPTED("accepted"),
        TRUNCATED("shorter than a 4 KB package buffer"),
        SHORTER_THAN_DATA_END("an update buffer shorter than its data_end"),
        BAD_SECTION_COUNT("section_count outside 1..511"),
        BAD_DATA_END("data_end outside 12..4096"),
        ENTRIES_BEYOND_DATA_END("the section table reaches past data_end"),
        BAD_SECTION_OFFSET("a section offset outside 12..4095 or inside the section table"),
        BAD_SECTION_SIZE("a section size outside 1..4084"),
        SECTION_BEYOND_DATA_END("a section reaches past data_end"),
        METADATA_TOO_SHORT("a metadata section shorter than struct ice_meta_sect");

        private final String text;

        Status(String text) {
            this.text = text;
        }

        @Override
        public String describe() {
            return text;
        }
    }

    public PkgBuffer wrap(BytesStore<?, ?> store, long offset, long length) {
        attach(store, offset, Math.min(length, SIZE));
        return this;
    }

    public Status validate() {
        failedAt = -1;
        if (length < SIZE) {
            return fail(Status.TRUNCATED, 0);
        }
        return validateSections();
    }

    /**
     * An update_pkg (0x0C42) buffer: ice_ddp.c ice_update_pkg_no_lock sends only the built part of a package
     * buffer, {@code data_end} bytes (ice_aq_update_pkg's buf_size), so the window may be shorter than 4 KB but
     * never shorter than its own data_end; every other rule of {@link #validate()} holds.
     */
    public Status validateUpdate() {
        failedAt = -1;
        if (length < MIN_DATA_END) {
            return fail(Status.SHORTER_THAN_DATA_END, 0);
        }
        int end = dataEnd();
        if (end >= MIN_DATA_END && end <= MAX_DATA_END && end > length) {
            return fail(Status.SHORTER_THAN_DATA_END, 2);
        }
        return validateSections();
    }

    private Status validateSections() {
        int count = sectionCount();
        if (count < MIN_SECTIONS || count > MAX_SECTIONS) {
            return fail(Status.BAD_SECTION_COUNT, 0);
        }
        int end = dataEnd();
        if (end < MIN_DATA_END || end > MAX_DATA_END) {
            return fail(Status.BAD_DATA_END, 2);
        }
        int table = HEADER + count * ENTRY_SIZE;
        if (table > end) {
            return fail(Status.ENTRIES_BEYOND_DATA_END, 0);
        }
        for (int i = 0; i < count; i++) {
            long at = HEADER + (long) i * ENTRY_SIZE;
            int off = sectionOffset(i);
            int size = sectionSize(i);
            if (off < MIN_SECTION_OFFSET || off > MAX_SECTION_OFFSET || off < table) {
                return fail(Status.BAD_SECTION_OFFSET, at + 4);
            }
            if (size < MIN_SECTION_SIZE || size > MAX_SECTION_SIZE) {
                return fail(Status.BAD_SECTION_SIZE, at + 6);
            }
            if (off + size > end) {
                return fail(Status.SECTION_BEYOND_DATA_END, at + 6);
            }
            if (sectionType(i) == SID_METADATA && size < META_SIZE) {
                return fail(Status.METADATA_TOO_SHORT, at + 6);
            }
        }
        return Status.ACCEPTED;
    }

    public int sectionCount() {
        return u16(0);
    }

    public int dataEnd() {
        return u16(2);
    }

    public long sectionType(int i) {
        return u32(HEADER + (long) i * ENTRY_SIZE);
    }

    public int sectionOffset(int i) {
        return u16(HEADER + (long) i * ENTRY_SIZE + 4);
    }

    public int sectionSize(int i) {
        return u16(HEADER + (long) i * ENTRY_SIZE + 6);
    }

    /** ice_is_buffer_metadata: the first section's type has ICE_METADATA_BUF set. */
    public boolean isMetadataBuffer() {
        return (sectionType(0) & METADATA_BUF) != 0;
    }

    /** The metadata section's version (major, minor, update, draft) as a big-endian int: major in bits 31..24. */
    public int metaVersion(int section) {
        int at = sectionOffset(section);
        return u8(at) << 24 | u8(at + 1) << 16 | u8(at + 2) << 8 | u8(at + 3);
    }

    /** The metadata section's 28 name bytes into {@code dst}. */
    public void metaName(int section, byte[] dst) {
        copyOut(sectionOffset(section) + 4L, dst, META_NAME_SIZE);
    }

    public long metaTrackId(int section) {
        return u32(sectionOffset(section) + 4L + META_NAME_SIZE);
    }
}
