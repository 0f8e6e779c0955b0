/**
 * The E810 firmware and PF register block as ice.ko sees them: the pre-admin-queue registers, the ATQ/ARQ engine and
 * the admin queue commands of ice's probe (Linux 7.3 drivers/net/ethernet/intel/ice). Commands are
 * {@link dev.irdmaemu.model.ice.AqCommandHandler}s registered per opcode.
 */
package dev.irdmaemu.model.ice;
