/**
 * The E810 admin queue contract between ice.ko and the firmware: the 32-byte descriptor
 * ({@link dev.irdmaemu.fw.aq.AqDescriptor}, struct libie_aq_desc), its return codes
 * ({@link dev.irdmaemu.fw.aq.AqError})
 * and opcodes ({@link dev.irdmaemu.fw.aq.AqOpcode}). Linux 7.3 include/linux/net/intel/libie/adminq.h and
 * drivers/net/ethernet/intel/ice/ice_adminq_cmd.h.
 */
package dev.irdmaemu.fw.aq;
