/**
 * The hardware model of the E810 RDMA block: what the irdma driver programs (registers, control and work queues) and
 * how the device answers. {@link dev.irdmaemu.model.E810RdmaFunction} is the bus glue (BAR0 through {@link
 * dev.irdmaemu.fw.bus.Mmio}, DMA through {@link dev.irdmaemu.fw.bus.HostMemory}, MSI-X through {@link
 * dev.irdmaemu.fw.bus.InterruptSink}); the device core is split by concern: {@code reg} (the register table), {@code
 * cqp} (control QP and ops), {@code hmc}, {@code eq} (CEQ / AEQ / MSI-X), {@code qp} (CQs, QPs), {@code mr} (STags,
 * memory registration), {@code port} (quad hash, APBVT, ARP, classifier, Ethernet port), {@code puda} (ILQ / IEQ),
 * {@code ws} (the work-scheduler tree of Work scheduler node), {@code tcp} (an offloaded QP's TCP), {@code ice} (the PF's
 * ice register block, admin queue engine and the firmware's probe commands, as ice.ko sees them), {@code iwarp} (the
 * offloaded QPs' data path: MPA, DDP, RDMAP over that TCP, placing through {@code mr}'s memory registration),
 * {@code pci} (the PF as a PCI Express function: configuration space, the BAR0 dispatch between the ice and RDMA
 * blocks, MSI-X, FLR) and {@code trace}. Every action is an event on the one {@link dev.irdmaemu.fw.sim.SimScheduler}, costed by the {@link
 * dev.irdmaemu.model.timing.LatencyTable}; the model has no threads and never reads the wall clock ({@link
 * dev.irdmaemu.model.timing.WallClockPacer} is the adapter for a live guest).
 *
 * <p>A driver brings it up as irdma's probe does: wait for GLPE_CPUSTATUS0..2 = 0x80, write the CQP host context
 * address to PFPE_CCQPHIGH / PFPE_CCQPLOW and poll PFPE_CCQPSTATUS, then Query RDMA features (gen2), Query FPM, Commit
 * FPM, Update PE SDs and Static HMC pages allocated (completions polled through PFPE_CQPTAIL), Create CQ 0 (the CCQ;
 * from then on completions arrive there), CEQ 0 and the AEQ (routed with GLINT_CEQCTL / PFINT_AEQCTL, armed with
 * GLINT_DYN_CTL), the ILQ (CQ 1, UDA QP 1) and IEQ (CQ 2, UDA QP 2, after ws.c's Work scheduler nodes for its
 * qs_handle), then APBVT and quad-hash entries. {@link dev.irdmaemu.model.E810RdmaFunction#reset()} (FLR, the
 * transport's device reset) returns all of it to power-on state, and the driver starts over.
 *
 * <p>Layering (checked by qemu-bridge's LayeringTest and the enforcer): depends only on {@code dev.irdmaemu.fw}, never
 * on {@code dev.irdmaemu.cm} or the bridge.
 */
package dev.irdmaemu.model;
