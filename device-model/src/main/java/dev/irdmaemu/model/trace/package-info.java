/**
 * The model's structured trace: one {@link dev.irdmaemu.model.trace.TraceKind} per family of guest-visible action
 * (register access, CQP op with decoded fields and result, HMC, CEQE / AEQE, interrupts, QP state, quad-hash and
 * classifier decisions, PUDA descriptors, frames, LAN hand-off), a reusable event that costs one mask test when
 * its kind is off, JSON-lines and recording sinks, and per-op latency statistics.
 */
package dev.irdmaemu.model.trace;
