/**
 * The admin queue contract between ice.ko and the E810 firmware (ice_adminq_cmd.h, ice_ddp.h,
 * libie/adminq.h): the descriptor and its codes (owned by branch aqcore) and the flyweights over each command's
 * buffer: the Tx scheduler ({@link dev.irdmaemu.fw.aq.SchedElement}, {@link dev.irdmaemu.fw.aq.SchedGroup},
 * {@link dev.irdmaemu.fw.aq.SchedResources}), the switch ({@link dev.irdmaemu.fw.aq.SwitchConfigElement},
 * {@link dev.irdmaemu.fw.aq.SwitchRule}, {@link dev.irdmaemu.fw.aq.VsiCommand}), Tx queues and RDMA qsets
 * ({@link dev.irdmaemu.fw.aq.TxQueueGroup}, {@link dev.irdmaemu.fw.aq.TxQueueContext},
 * {@link dev.irdmaemu.fw.aq.DisableTxqItem}, {@link dev.irdmaemu.fw.aq.RdmaQsetGroup}) and the DDP package
 * ({@link dev.irdmaemu.fw.aq.DdpPackageFile}, {@link dev.irdmaemu.fw.aq.PkgBuffer},
 * {@link dev.irdmaemu.fw.aq.PkgInfoList}).
 */
package dev.irdmaemu.fw.aq;
