/**
 * The LAN queues of the E810 as ice.ko drives them (Linux 7.3 drivers/net/ethernet/intel/ice): the Rx queue
 * context written through QRX_CONTEXT ({@link dev.irdmaemu.fw.lan.RxQueueContext}), the 32-byte Rx flex descriptor
 * and its write-back ({@link dev.irdmaemu.fw.lan.RxFlexDescriptor}), the Tx data and context descriptors
 * ({@link dev.irdmaemu.fw.lan.TxDescriptor}), the packet types ice's lookup expects
 * ({@link dev.irdmaemu.fw.lan.RxPacketType}) and the register offsets ({@link dev.irdmaemu.fw.lan.LanRegister}).
 */
package dev.irdmaemu.fw.lan;
