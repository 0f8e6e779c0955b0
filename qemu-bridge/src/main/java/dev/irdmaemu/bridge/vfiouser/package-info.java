/**
 * A PCI function served to QEMU's {@code vfio-user-pci} client (QEMU docs/interop/vfio-user.rst, as the 11.1.3
 * client speaks it: /work/shared/research/vfio-user-facts.md): one UNIX socket per function, one client at a time,
 * the message codecs (flyweights with typed {@link dev.irdmaemu.bridge.vfiouser.VfioUserStatus} answers), the
 * guest's DMA windows mapped from its shared memfd, MSI-X eventfds, and region accesses run on the model's owner
 * thread. Everything the client sends is hostile: a bad request gets the protocol's error reply, a broken stream
 * closes that client only, and the device state survives for the next one.
 *
 * <p>{@link dev.irdmaemu.bridge.vfiouser.VfioUserServer} serves any
 * {@link dev.irdmaemu.bridge.vfiouser.VfioUserFunction}; {@link dev.irdmaemu.bridge.vfiouser.E810VfioUserFunction}
 * adapts device-model's E810 PF to it. Messages are traced at DEBUG on the logger
 * {@code dev.irdmaemu.trace.vfio_user} (kind vfio_user, command, sizes, region and offset), and each client's
 * {@link dev.irdmaemu.bridge.vfiouser.VfioUserCounters#summary()} is logged when it leaves.
 */
package dev.irdmaemu.bridge.vfiouser;
