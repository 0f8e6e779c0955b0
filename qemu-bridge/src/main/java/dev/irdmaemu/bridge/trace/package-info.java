/**
 * {@code irdma-emu trace}: reads a model trace ({@code trace.jsonl}, one JSON object per line as
 * {@code dev.irdmaemu.model.trace.JsonLinesTraceSink} writes it) as a stream, decodes each event (register fields,
 * admin queue commands, CQP ops, AEs, CEQEs, MSI-X messages, frames, configuration-space writes) into one readable
 * line on the simulated-time axis, filters and summarises it.
 */
package dev.irdmaemu.bridge.trace;
