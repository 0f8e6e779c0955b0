/**
 * The iWARP QP host context ({@link dev.irdmaemu.fw.qp.QpContext}) as irdma_sc_qp_setctx writes it for gen2,
 * with the driver's info structures as records ({@link dev.irdmaemu.fw.qp.TcpOffloadInfo},
 * {@link dev.irdmaemu.fw.qp.IwarpOffloadInfo}, {@link dev.irdmaemu.fw.qp.QpHostContextInfo},
 * {@link dev.irdmaemu.fw.qp.QpResources}), and the QP's Q2 buffer ({@link dev.irdmaemu.fw.qp.Q2Buffer}): the
 * Terminate message the driver builds for the device and the offending frame the device copies for the driver.
 */
package dev.irdmaemu.fw.qp;
