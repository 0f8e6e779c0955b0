/**
 * The emulated E810 as a PCI function of a QEMU guest: {@link dev.irdmaemu.bridge.e810.E810Host} runs one
 * physical function of the model on its own loop and serves it over vfio-user, so that the guest's stock ice.ko
 * (and then irdma.ko) drive it through BAR0, DMA and MSI-X.
 */
package dev.irdmaemu.bridge.e810;
