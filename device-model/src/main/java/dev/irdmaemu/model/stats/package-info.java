/**
 * The function's statistics counters: what Gather Stats (CQP opcode 0x2E, ctrl.c irdma_sc_gather_stats) copies into
 * the driver's buffer in the gen2 layout of icrdma_hw.c icrdma_hw_stat_map ({@code fw.cqp.GatherStatsBuffer}).
 */
package dev.irdmaemu.model.stats;
