/**
 * Time in the model: the latencies its operations take on simulated time ({@link
 * dev.irdmaemu.model.timing.LatencyTable}) and the thin adapter that paces simulated time against the wall clock
 * for a live guest ({@link dev.irdmaemu.model.timing.WallClockPacer}). Below every other package of the model.
 */
package dev.irdmaemu.model.timing;
