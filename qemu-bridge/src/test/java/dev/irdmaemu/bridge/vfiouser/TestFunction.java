package dev.irdmaemu.bridge.vfiouser;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small PCIe endpoint for the server's tests, with a config space QEMU accepts: 8086:1592, class 02 00 00,
 * 64-bit BAR0 of 128 MiB and 64-bit BAR3 of 64 KiB (MSI-X table at 0, PBA at 0x8000), PM at 0x40, MSI-X at 0x50,
 * a PCIe v2 endpoint cap at 0x70 (FLR capable), DSN at 0x100; ROM 0x30 reads 0. Per-byte write and RW1C masks.
 *
 * <p>BAR0: the first 64 KiB are scratch storage; {@link #DMA_ADDR}/{@link #DMA_GO} make the device write a quadword
 * into guest memory through the DMA space (status in {@link #DMA_STATUS}: 1 done, 2 refused); {@link #IRQ} raises
 * the MSI-X vector written.
 */
class TestFunction implements VfioUserFunction {
    static final long BAR0_SIZE = 128L << 20;
    static final long BAR3_SIZE = 64L << 10;
    static final int VECTORS = 64;
    static final long DMA_ADDR = 0x10200;
    static final long DMA_GO = 0x10208;
    static final long DMA_STATUS = 0x10210;
    static final long IRQ = 0x10220;
    static final int SCRATCH = 0x10000;
    /** Write: the device copies {@link #DMA_LENGTH} bytes from guest memory at DMA_ADDR into its fetch buffer. */
    static final long DMA_FETCH = 0x10230;
    /** Read: 8 bytes of the fetch buffer at the offset written to DMA_FETCH_AT... kept simple: its first quadword. */
    static final long DMA_FETCHED = 0x10238;
    /** Write: the length of a DMA_FETCH or a DMA_FILL (at most 64 KiB). */
    static final long DMA_LENGTH = 0x10240;
    /** Write: the device writes DMA_LENGTH bytes of the pattern (i * 7 + value) at DMA_ADDR. */
    static final long DMA_FILL = 0x10248;

    private final byte[] config = new byte[CONFIG_SIZE];
    private final byte[] wmask = new byte[CONFIG_SIZE];
    private final byte[] w1c = new byte[CONFIG_SIZE];
    private final byte[] scratch = new byte[SCRATCH];
    private long dmaAddr;
    private long dmaStatus;
    private int dmaLength = 8;
    final byte[] fetched = new byte[64 << 10];
    volatile MessageDma.Result lastDma;
    private VfioUserInterrupts interrupts;
    private DmaSpace dma;

    final AtomicInteger resets = new AtomicInteger();
    final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    final CopyOnWriteArrayList<String> windowEvents = new CopyOnWriteArrayList<>();

    TestFunction() {
        powerOn();
    }

    private void powerOn() {
        java.util.Arrays.fill(config, (byte) 0);
        java.util.Arrays.fill(wmask, (byte) 0);
        java.util.Arrays.fill(w1c, (byte) 0);
        java.util.Arrays.fill(scratch, (byte) 0);
        dmaAddr = 0;
        dmaStatus = 0;
        put(0x00, 2, 0x8086);
        put(0x02, 2, 0x1592);
        put(0x04, 2, 0);
        mask(0x04, 2, 0x0546, 0); // MEM, BME, parity, SERR, INTx disable (no I/O BAR)
        put(0x06, 2, 0x0010); // capabilities list
        mask(0x06, 2, 0, 0xf900);
        put(0x08, 4, 0x02000002); // class 02 00 00, revision 2
        put(0x0c, 4, 0);
        mask(0x0c, 1, 0xff, 0); // cache line size
        put(0x10, 4, 0x4); // BAR0: 64-bit memory
        mask(0x10, 4, (int) ~(BAR0_SIZE - 1), 0);
        mask(0x14, 4, 0xffffffff, 0);
        put(0x1c, 4, 0x4); // BAR3: 64-bit memory
        mask(0x1c, 4, (int) ~(BAR3_SIZE - 1), 0);
        mask(0x20, 4, 0xffffffff, 0);
        put(0x2c, 2, 0x8086);
        put(0x2e, 2, 0x0001);
        put(0x34, 1, 0x40);
        mask(0x3c, 1, 0xff, 0); // interrupt line; pin 0
        // PM (PCI PM 1.2): PMC version 3, D0..D3hot; PMCSR power state RW, PME status RW1C
        put(0x40, 2, 0x5001);
        put(0x42, 2, 0x0003);
        put(0x44, 2, 0x0008); // no soft reset
        mask(0x44, 2, 0x0103, 0x8000);
        // MSI-X: table size VECTORS, table BIR 3 offset 0, PBA BIR 3 offset 0x8000; enable and function mask RW
        put(0x50, 2, 0x7011);
        put(0x52, 2, VECTORS - 1);
        mask(0x52, 2, 0xc000, 0);
        put(0x54, 4, 0x00000003);
        put(0x58, 4, 0x00008003);
        // PCI Express v2, endpoint; DEVCAP FLR; DEVCTL RW; link x8 at 8 GT/s
        put(0x70, 2, 0x0010);
        put(0x72, 2, 0x0002);
        put(0x74, 4, 0x10008000);
        put(0x78, 2, 0x2810);
        mask(0x78, 2, 0x7fff, 0);
        mask(0x7a, 2, 0, 0x000f);
        put(0x7c, 4, 0x00000083);
        put(0x80, 2, 0);
        mask(0x80, 2, 0x01c3, 0);
        put(0x82, 2, 0x0083);
        // Device Serial Number extended capability
        put(0x100, 4, 0x00010003);
        put(0x104, 4, 0x33221100);
        put(0x108, 4, 0x77665544);
    }

    private void put(int at, int size, int v) {
        for (int i = 0; i < size; i++) {
            config[at + i] = (byte) (v >>> (8 * i));
        }
    }

    private void mask(int at, int size, int rw, int rw1c) {
        for (int i = 0; i < size; i++) {
            wmask[at + i] = (byte) (rw >>> (8 * i));
            w1c[at + i] = (byte) (rw1c >>> (8 * i));
        }
    }

    @Override
    public String name() {
        return "test-function";
    }

    @Override
    public long barSize(int bar) {
        return bar == 0 ? BAR0_SIZE : bar == 3 ? BAR3_SIZE : 0;
    }

    @Override
    public int configRead(int offset, int size) {
        threads.add(Thread.currentThread());
        int v = 0;
        for (int i = 0; i < size; i++) {
            v |= (config[offset + i] & 0xff) << (8 * i);
        }
        return v;
    }

    @Override
    public void configWrite(int offset, int size, int value) {
        threads.add(Thread.currentThread());
        for (int i = 0; i < size; i++) {
            int at = offset + i;
            int b = value >>> (8 * i) & 0xff;
            int m = wmask[at] & 0xff;
            int c = w1c[at] & 0xff;
            config[at] = (byte) ((config[at] & ~m | b & m) & ~(b & c));
        }
        if (offset <= 0x79 && offset + size > 0x79 && (value >>> (8 * (0x79 - offset)) & 0x80) != 0) {
            reset(); // DEVCTL bit 15: initiate function-level reset
        }
    }

    @Override
    public long barRead(int bar, long offset, int size) {
        threads.add(Thread.currentThread());
        if (bar == 0 && offset + size <= SCRATCH) {
            long v = 0;
            for (int i = 0; i < size; i++) {
                v |= (scratch[(int) offset + i] & 0xffL) << (8 * i);
            }
            return v;
        }
        if (bar == 0 && offset == DMA_STATUS) {
            return dmaStatus;
        }
        if (bar == 0 && offset == DMA_FETCHED) {
            return java.nio.ByteBuffer.wrap(fetched).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(0);
        }
        return 0;
    }

    @Override
    public void barWrite(int bar, long offset, int size, long value) {
        threads.add(Thread.currentThread());
        if (bar == 0 && offset + size <= SCRATCH) {
            for (int i = 0; i < size; i++) {
                scratch[(int) offset + i] = (byte) (value >>> (8 * i));
            }
        } else if (bar == 0 && offset == DMA_ADDR) {
            dmaAddr = value;
        } else if (bar == 0 && offset == DMA_GO) {
            byte[] q = new byte[8];
            java.nio.ByteBuffer.wrap(q).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(0, value);
            lastDma = dma.write(dmaAddr, q, 0, 8);
            dmaStatus = lastDma == MessageDma.Result.OK ? 1 : 2;
        } else if (bar == 0 && offset == DMA_LENGTH) {
            dmaLength = (int) Math.min(value, fetched.length);
        } else if (bar == 0 && offset == DMA_FETCH) {
            lastDma = dma.read(dmaAddr, fetched, 0, dmaLength);
            dmaStatus = lastDma == MessageDma.Result.OK ? 1 : 2;
        } else if (bar == 0 && offset == DMA_FILL) {
            byte[] b = new byte[dmaLength];
            for (int i = 0; i < b.length; i++) {
                b[i] = (byte) (i * 7 + value);
            }
            lastDma = dma.write(dmaAddr, b, 0, b.length);
            dmaStatus = lastDma == MessageDma.Result.OK ? 1 : 2;
        } else if (bar == 0 && offset == IRQ) {
            interrupts.raiseMsix((int) value);
        }
    }

    @Override
    public int msixVectors() {
        return VECTORS;
    }

    @Override
    public void reset() {
        threads.add(Thread.currentThread());
        resets.incrementAndGet();
        powerOn();
    }

    @Override
    public void attach(VfioUserInterrupts irq, DmaSpace space) {
        this.interrupts = irq;
        this.dma = space;
    }

    @Override
    public void dmaWindowAdded(DmaWindow window) {
        threads.add(Thread.currentThread());
        windowEvents.add("+" + window);
    }

    @Override
    public void dmaWindowRemoved(DmaWindow window) {
        threads.add(Thread.currentThread());
        windowEvents.add("-" + window);
    }
}
