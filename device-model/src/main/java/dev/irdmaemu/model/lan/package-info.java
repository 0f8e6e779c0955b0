/**
 * The LAN path of the E810 as ice.ko drives it: the Rx queues ice programs through QRX_CONTEXT / QRX_CTRL /
 * QRX_TAIL ({@link dev.irdmaemu.model.lan.RxPath}), the Tx queues add_txqs creates and QTX_COMM_DBELL rings
 * ({@link dev.irdmaemu.model.lan.TxPath}, with TSO and checksum offload), receive-side scaling over the VSI's RSS key,
 * LUT and queue map ({@link dev.irdmaemu.model.lan.RssView}, {@link dev.irdmaemu.model.lan.VsiRssSteering}), their
 * interrupts through QINT_RQCTL / QINT_TQCTL (with the ITR index each names), and malicious-driver detection, behind one register table ({@link dev.irdmaemu.model.lan.LanQueues}).
 */
package dev.irdmaemu.model.lan;
