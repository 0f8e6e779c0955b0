/**
 * BAR0 as a table from offset to behaviour ({@link dev.irdmaemu.model.reg.RegisterFile}): plain storage for most
 * registers, named handlers for the ones with side effects, unknown offsets read 0 and are traced once. The gen2
 * offsets come from {@code dev.irdmaemu.fw.reg.Gen2Register}; the handlers are wired by
 * {@link dev.irdmaemu.model.E810RdmaFunction}.
 */
package dev.irdmaemu.model.reg;
