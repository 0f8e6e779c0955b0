/**
 * The Host Memory Cache: the limits answered to Query FPM Values ({@link dev.irdmaemu.model.hmc.HmcLimits}), the
 * committed layout, the SD table and PD cache, and object index to host address resolution
 * ({@link dev.irdmaemu.model.hmc.HmcFunction}).
 */
package dev.irdmaemu.model.hmc;
