/**
 * The CM on the driver: {@link dev.irdmaemu.cm.driver.ModelHardwarePort} is the {@link dev.irdmaemu.cm.CmHardwarePort}
 * on the driver module's {@link dev.irdmaemu.driver.IrdmaDriver} and {@link dev.irdmaemu.driver.verbs.IrdmaVerbs}
 * (the ILQ for the CM's frames, the QHASH / APBVT / ARP ops, and a consumer's QP taking over a connection).
 */
package dev.irdmaemu.cm.driver;
