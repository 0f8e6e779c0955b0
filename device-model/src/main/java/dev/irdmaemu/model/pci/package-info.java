/**
 * The PCI Express function of an E810 PF, apart from any transport (QEMU keeps igb.c, the PCI glue, apart from
 * igb_core.c the same way): {@link dev.irdmaemu.model.pci.E810PciFunction} with its configuration space table
 * ({@link dev.irdmaemu.model.pci.PciConfigSpace}), the BAR0 dispatcher between the ice block
 * ({@link dev.irdmaemu.model.pci.FunctionBlock}) and the RDMA block ({@link dev.irdmaemu.model.E810RdmaFunction}),
 * the MSI-X BAR, FLR and the device reset. The vfio-user server in qemu-bridge calls it.
 */
package dev.irdmaemu.model.pci;
