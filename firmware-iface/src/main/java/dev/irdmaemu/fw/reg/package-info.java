/**
 * The gen2 (E810) BAR0 register map irdma uses ({@link dev.irdmaemu.fw.reg.Gen2Register}, icrdma_regs[]), the
 * gen-dependent WQE masks ({@link dev.irdmaemu.fw.reg.Gen2HwMask}, icrdma_masks[]), the register field layouts and
 * doorbell values ({@link dev.irdmaemu.fw.reg.Gen2Registers}), and the shared plumbing of the quadword codecs:
 * {@link dev.irdmaemu.fw.reg.Bits} (GENMASK / FIELD_GET / FIELD_PREP) and {@link dev.irdmaemu.fw.reg.QuadwordView}.
 */
package dev.irdmaemu.fw.reg;
