/**
 * PCI configuration-space layout facts (include/uapi/linux/pci_regs.h): header, capability and extended
 * capability offsets and bits. The E810's own values and write masks live with the device model
 * ({@code dev.irdmaemu.model.pci}).
 */
package dev.irdmaemu.fw.pci;
