/**
 * The driver layer the CM runs on. {@link dev.irdmaemu.cm.driver.IrdmaDriver} brings an E810 RDMA function up as
 * irdma's probe does (GLPE_CPUSTATUS poll, CQP create through PFPE_CCQPHIGH / LOW / STATUS, Query FPM, the HMC
 * sized by {@link dev.irdmaemu.cm.driver.FpmSizing} (a port of irdma_cfg_fpm_val), Commit FPM, direct 2 MiB SDs by
 * Update PE SDs ({@link dev.irdmaemu.cm.driver.HmcBacking}), CCQ, CEQ 0, the PBLE object's first chunk and the PBLE resource ({@link dev.irdmaemu.cm.driver.PbleResource}), AEQ
 * (PBL-mapped with {@link dev.irdmaemu.cm.driver.IrdmaDriver#withVirtualAeq()}), ILQ
 * CQ 1 / QP 1 and IEQ CQ 2 / QP 2 with posted receive buffers), gathers the PE statistics on request
 * ({@link dev.irdmaemu.cm.driver.HwStatistics}), and then
 * serves CQP ops synchronously (WQE + PFPE_CQPDB, completion from the CCQ; an error completion is a
 * {@link dev.irdmaemu.cm.driver.CqpException}), the ILQ, and the CEQ / AEQ events it hands the verbs layer
 * ({@link dev.irdmaemu.cm.driver.IrdmaDriver.DeviceEvents}, AEQEs decoded into
 * {@link dev.irdmaemu.cm.driver.AsyncEvent}s), touching the device only through
 * {@link dev.irdmaemu.fw.bus.Mmio}, host memory and an {@link dev.irdmaemu.fw.bus.InterruptSink}.
 * {@link dev.irdmaemu.cm.driver.ModelHardwarePort} is the {@link dev.irdmaemu.cm.CmHardwarePort} on top of it.
 * Like the rest of cm it depends only on {@code dev.irdmaemu.fw}, never on the model.
 */
package dev.irdmaemu.cm.driver;
