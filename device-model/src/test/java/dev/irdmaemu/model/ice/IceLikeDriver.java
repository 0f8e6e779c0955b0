package dev.irdmaemu.model.ice;

import static dev.irdmaemu.fw.reg.IceRegister.*;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqLayout.Nvm;
import dev.irdmaemu.fw.aq.AqLayout.ReqRes;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.bus.Mmio;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The admin queue side of ice.ko, written after ice_controlq.c: ring and buffer allocation, the register write order
 * and read-back checks of ice_cfg_cq_regs / ice_cfg_rq_regs, ice_sq_send_cmd (head check, clean, copy in, tail,
 * poll ATQH == next_to_use, copy back with the copy_size check, retval & 0xff), ice_clean_rq_elem, and the NVM
 * helpers of ice_nvm.c (every flat read wrapped in acquire / release of the NVM lock).
 */
final class IceLikeDriver {
    static final int AQ_LEN = 192;
    static final int BUF_SIZE = 4096;
    /** Status of a send as ice_sq_send_cmd answers it. */
    static final int OK = 0;
    static final int EIO = -5;
    static final int EINVAL = -22;
    static final int ENOSPC = -28;
    static final int TIMEOUT = -110;

    /** A completed command: ice's status, the AQ retval (low 8 bits), the written-back descriptor and buffer. */
    record Reply(int status, int retval, AqDescriptor desc, BytesStore<?, Void> buf, int bufLen) {
        boolean ok() {
            return status == OK;
        }
    }

    final HostRam ram;
    final Mmio bar;
    final int atqLen;
    final int arqLen;
    long atqRing;
    long arqRing;
    long[] sqBufs;
    long[] rqBufs;
    int ntu;
    int ntc;
    int rqNtc;

    IceLikeDriver(HostRam ram, Mmio bar) {
        this(ram, bar, AQ_LEN, AQ_LEN);
    }

    IceLikeDriver(HostRam ram, Mmio bar, int atqLen, int arqLen) {
        this.ram = ram;
        this.bar = bar;
        this.atqLen = atqLen;
        this.arqLen = arqLen;
    }

    // ---- ice_init_all_ctrlq for the admin queue: ATQ first, then ARQ ----

    /** ice_init_sq + ice_init_rq; false when a read-back check fails (ice answers -EIO). */
    boolean initAdminQueue() {
        atqRing = ram.allocate((long) atqLen * AqDescriptor.SIZE);
        sqBufs = new long[atqLen];
        for (int i = 0; i < atqLen; i++) {
            sqBufs[i] = ram.allocate(BUF_SIZE);
        }
        ntu = 0;
        ntc = 0;
        if (!cfgRegs(PF_FW_ATQH, PF_FW_ATQT, PF_FW_ATQLEN, PF_FW_ATQBAL, PF_FW_ATQBAH, atqRing, atqLen)) {
            return false;
        }
        arqRing = ram.allocate((long) arqLen * AqDescriptor.SIZE);
        rqBufs = new long[arqLen];
        for (int i = 0; i < arqLen; i++) {
            rqBufs[i] = ram.allocate(BUF_SIZE);
            postRqBuffer(i);
        }
        rqNtc = 0;
        if (!cfgRegs(PF_FW_ARQH, PF_FW_ARQT, PF_FW_ARQLEN, PF_FW_ARQBAL, PF_FW_ARQBAH, arqRing, arqLen)) {
            return false;
        }
        bar.write32(PF_FW_ARQT, arqLen - 1);
        return true;
    }

    private void postRqBuffer(int i) {
        AqDescriptor d = ringDesc(arqRing, i);
        d.clear().flags(AqDescriptor.BUF | AqDescriptor.LB).datalen(BUF_SIZE).bufferAddress(rqBufs[i]);
    }

    /** ice_cfg_cq_regs: head 0, tail 0, LEN | ENABLE, BAL, BAH, then BAL must read back. */
    boolean cfgRegs(int head, int tail, int len, int bal, int bah, long ring, int entries) {
        bar.write32(head, 0);
        bar.write32(tail, 0);
        bar.write32(len, entries | QLEN_ENABLE_M);
        bar.write32(bal, (int) ring);
        bar.write32(bah, (int) (ring >>> 32));
        return bar.read32(bal) == (int) ring;
    }

    /** ice_check_sq_alive. */
    boolean sqAlive() {
        return (bar.read32(PF_FW_ATQLEN) & (QLEN_LEN_M | QLEN_ENABLE_M)) == (atqLen | QLEN_ENABLE_M);
    }

    AqDescriptor ringDesc(long ring, int i) {
        long gpa = ring + (long) i * AqDescriptor.SIZE;
        int r = ram.memory().find(gpa, AqDescriptor.SIZE);
        return new AqDescriptor().wrap(ram.memory().store(r), ram.memory().offset(r, gpa));
    }

    /** A zeroed direct command as ice_fill_dflt_direct_cmd_desc makes it (flags SI). */
    static AqDescriptor command(int opcode) {
        return new AqDescriptor().wrap(BytesStore.nativeStoreWithFixedCapacity(AqDescriptor.SIZE), 0).clear()
                .opcode(opcode).flags(AqDescriptor.SI);
    }

    Reply send(AqDescriptor desc) {
        return send(desc, null, 0);
    }

    /** ice_sq_send_cmd with a buffer of {@code bufSize} bytes whose first bytes are {@code in} (null: zeros). */
    Reply send(AqDescriptor desc, byte[] in, int bufSize) {
        if (bufSize > BUF_SIZE) {
            return new Reply(EINVAL, 0, desc, null, 0);
        }
        if (bufSize > 0) {
            desc.flags(desc.flags() | AqDescriptor.BUF);
            if (bufSize > AqDescriptor.LG_BUF) {
                desc.flags(desc.flags() | AqDescriptor.LB);
            }
        }
        int head = bar.read32(PF_FW_ATQH);
        if (head >= atqLen) {
            return new Reply(EIO, 0, desc, null, 0);
        }
        // ice_clean_sq
        while (bar.read32(PF_FW_ATQH) != ntc) {
            ringDesc(atqRing, ntc).clear();
            ntc = ntc + 1 == atqLen ? 0 : ntc + 1;
        }
        if ((ntc > ntu ? 0 : atqLen) + ntc - ntu - 1 == 0) {
            return new Reply(ENOSPC, 0, desc, null, 0);
        }
        AqDescriptor onRing = ringDesc(atqRing, ntu);
        onRing.store().write(onRing.offset(), desc.store(), desc.offset(), AqDescriptor.SIZE);
        long bufGpa = sqBufs[ntu];
        if (bufSize > 0) {
            ram.store().zeroOut(bufGpa - base(), bufGpa - base() + BUF_SIZE);
            if (in != null) {
                for (int i = 0; i < Math.min(in.length, bufSize); i++) {
                    ram.store().writeByte(bufGpa - base() + i, in[i]);
                }
            }
            onRing.datalen(bufSize).bufferAddress(bufGpa);
        }
        ntu = ntu + 1 == atqLen ? 0 : ntu + 1;
        bar.write32(PF_FW_ATQT, ntu);
        if (bar.read32(PF_FW_ATQH) != ntu) {
            return new Reply(TIMEOUT, 0, desc, null, 0);
        }
        desc.store().write(desc.offset(), onRing.store(), onRing.offset(), AqDescriptor.SIZE);
        int status = OK;
        BytesStore<?, Void> out = null;
        int copy = 0;
        if (bufSize > 0) {
            copy = desc.datalen();
            if (copy > bufSize) {
                status = EIO;
                copy = 0;
            } else {
                out = BytesStore.nativeStoreWithFixedCapacity(Math.max(1, bufSize));
                out.zeroOut(0, out.capacity());
                out.write(0, ram.store(), bufGpa - base(), copy);
            }
        }
        int retval = desc.retval() & 0xff;
        if (status == OK && retval != AqError.OK) {
            status = EIO;
        }
        return new Reply(status, retval, desc, out, copy);
    }

    long base() {
        return ram.memory().base(ram.memory().find(atqRing, 1));
    }

    /** ice_clean_rq_elem: the next event, or null (-EALREADY) when ARQH == next_to_clean. */
    Reply cleanRqElem() {
        int ntuRq = bar.read32(PF_FW_ARQH) & QH_M;
        if (ntuRq == rqNtc) {
            return null;
        }
        AqDescriptor d = ringDesc(arqRing, rqNtc);
        AqDescriptor copy = new AqDescriptor().wrap(BytesStore.nativeStoreWithFixedCapacity(32), 0);
        copy.store().write(0, d.store(), d.offset(), AqDescriptor.SIZE);
        int len = Math.min(copy.datalen(), BUF_SIZE);
        BytesStore<?, Void> msg = BytesStore.nativeStoreWithFixedCapacity(BUF_SIZE);
        msg.zeroOut(0, BUF_SIZE);
        msg.write(0, ram.store(), rqBufs[rqNtc] - base(), len);
        postRqBuffer(rqNtc);
        bar.write32(PF_FW_ARQT, rqNtc);
        rqNtc = rqNtc + 1 == arqLen ? 0 : rqNtc + 1;
        int status = (copy.flags() & AqDescriptor.ERR) != 0 ? EIO : OK;
        return new Reply(status, copy.retval(), copy, msg, len);
    }

    // ---- ice_nvm.c ----

    int acquireNvm() {
        AqDescriptor d = command(AqOpcode.REQ_RES);
        d.paramU16(ReqRes.RES_ID, ReqRes.RES_ID_NVM).paramU16(ReqRes.ACCESS_TYPE, ReqRes.ACCESS_READ)
                .paramU32(ReqRes.TIMEOUT, 180000);
        return send(d).status();
    }

    void releaseNvm() {
        AqDescriptor d = command(AqOpcode.RELEASE_RES);
        d.paramU16(ReqRes.RES_ID, ReqRes.RES_ID_NVM);
        send(d);
    }

    /** One ice_aq_read_nvm (module 0) wrapped in acquire/release, as one step of ice_read_flat_nvm. */
    Reply readNvmChunk(long offset, int length, boolean lastCmd, boolean shadowRam) {
        int s = acquireNvm();
        if (s != OK) {
            return new Reply(s, 0, null, null, 0);
        }
        AqDescriptor d = command(AqOpcode.NVM_READ);
        int flags = (shadowRam ? 0 : Nvm.FLASH_ONLY) | (lastCmd ? Nvm.LAST_CMD : 0);
        d.paramU16(Nvm.OFFSET_LOW, (int) (offset & 0xFFFF)).paramU8(Nvm.OFFSET_HIGH, (int) (offset >>> 16) & 0xFF)
                .paramU8(Nvm.CMD_FLAGS, flags).paramU16(Nvm.MODULE_TYPEID, Nvm.START_POINT)
                .paramU16(Nvm.LENGTH, length);
        Reply r = send(d, null, length);
        releaseNvm();
        return r;
    }

    /** ice_read_flat_nvm: 4 KiB sector-bounded chunks; null on failure. */
    byte[] readFlatNvm(long offset, int length, boolean shadowRam) {
        byte[] out = new byte[length];
        int done = 0;
        while (done < length) {
            int sectorOffset = (int) ((offset + done) % BUF_SIZE);
            int n = Math.min(BUF_SIZE - sectorOffset, length - done);
            Reply r = readNvmChunk(offset + done, n, done + n >= length, shadowRam);
            if (!r.ok()) {
                return null;
            }
            for (int i = 0; i < n; i++) {
                out[done + i] = r.buf().readByte(i);
            }
            done += n;
        }
        return out;
    }

    /** ice_read_sr_word; -1 on failure. */
    int readSrWord(int word) {
        byte[] b = readFlatNvm(word * 2L, 2, true);
        return b == null ? -1 : (b[0] & 0xFF) | (b[1] & 0xFF) << 8;
    }

    int readFlashWord(long byteOffset) {
        byte[] b = readFlatNvm(byteOffset, 2, false);
        return b == null ? -1 : (b[0] & 0xFF) | (b[1] & 0xFF) << 8;
    }

    /** ice_discover_flash_size: bisection over 24 bits, EINVAL past the end lowers the upper bound. */
    long discoverFlashSize() {
        long min = 0;
        long max = Nvm.MAX_OFFSET + 1L;
        while (max - min > 1) {
            long offset = (max + min) / 2;
            Reply r = readNvmChunk(offset, 1, true, false);
            if (r.status() == EIO && r.retval() == AqError.EINVAL) {
                max = offset;
            } else if (r.ok()) {
                min = offset;
            } else {
                return -1;
            }
        }
        return max;
    }
}
