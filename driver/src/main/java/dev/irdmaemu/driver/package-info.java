/**
 * The driver layer: irdma.ko's device side in Java, which the CM, the hosted node and the device model's tests
 * run on. {@link dev.irdmaemu.driver.IrdmaDriver} brings an E810 RDMA function up as irdma's probe does (GLPE_CPUSTATUS poll, CQP create through PFPE_CCQPHIGH / LOW / STATUS, Query FPM, the HMC
 * sized by {@link dev.irdmaemu.driver.FpmSizing} (a port of irdma_cfg_fpm_val), Commit FPM, direct 2 MiB SDs by
 * Update PE SDs ({@link dev.irdmaemu.driver.HmcBacking}), CCQ, CEQ 0, the PBLE object's first chunk and the PBLE resource ({@link dev.irdmaemu.driver.PbleResource}), AEQ
 * (PBL-mapped with {@link dev.irdmaemu.driver.IrdmaDriver#withVirtualAeq()}), ILQ
 * CQ 1 / QP 1 and IEQ CQ 2 / QP 2 with posted receive buffers), gathers the PE statistics on request
 * ({@link dev.irdmaemu.driver.HwStatistics}), and then
 * serves CQP ops synchronously (WQE + PFPE_CQPDB, completion from the CCQ; an error completion is a
 * {@link dev.irdmaemu.driver.CqpException}), the ILQ, and the CEQ / AEQ events it hands the verbs layer
 * ({@link dev.irdmaemu.driver.IrdmaDriver.DeviceEvents}, AEQEs decoded into
 * {@link dev.irdmaemu.driver.AsyncEvent}s), touching the device only through
 * {@link dev.irdmaemu.fw.bus.Mmio}, host memory and an {@link dev.irdmaemu.fw.bus.InterruptSink}.
 * {@code IrdmaDriver} is the facade; its parts follow irdma's files (the CQP channel and its waiting of ctrl.c and
 * utils.c, the CEQ and AEQ handling and the HMC setup of hw.c, the PUDA queues of puda.c, the work scheduler of
 * ws.c, the address handles of utils.c / uda.c) and are package-private.
 * The verbs on top of it are {@link dev.irdmaemu.driver.verbs}; this package never refers to them (no package
 * cycle: {@code DriverLayeringTest}), and the CM's port on the driver lives in cm. The module depends only on
 * {@code dev.irdmaemu.fw}, never on the model nor on the CM.
 */
package dev.irdmaemu.driver;
