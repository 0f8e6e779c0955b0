/**
 * The emulated E810 as a PCI function of a QEMU guest: {@link dev.irdmaemu.bridge.e810.E810Host} runs one
 * physical function of the model on its own loop and serves it over vfio-user, so that the guest's stock ice.ko
 * (and then irdma.ko) drive it through BAR0, DMA and MSI-X. {@link dev.irdmaemu.bridge.e810.E810ProbeRun} boots
 * the kit's guest against one; {@link dev.irdmaemu.bridge.e810.E810Serve} ({@code irdma-emu serve}) serves
 * functions to a QEMU the user starts, one QEMU after another, each finding them at power-on.
 */
package dev.irdmaemu.bridge.e810;
