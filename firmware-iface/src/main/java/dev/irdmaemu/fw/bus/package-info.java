/**
 * The device's bus contract, the same in-process and under QEMU: BAR0 MMIO ({@link dev.irdmaemu.fw.bus.Mmio}),
 * guest-physical host memory reached by DMA ({@link dev.irdmaemu.fw.bus.HostMemory}), and MSI-X vectors raised
 * toward the host ({@link dev.irdmaemu.fw.bus.InterruptSink}). Every address the host hands the device is checked
 * against the mapped regions before it is used.
 */
package dev.irdmaemu.fw.bus;
