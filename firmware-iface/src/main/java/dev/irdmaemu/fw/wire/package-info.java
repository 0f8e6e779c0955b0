/**
 * The simulated Ethernet wire: a {@code Link} joining ports, per-direction seeded faults (loss, duplication,
 * reordering, one-bit corruption, delay and jitter) on simulated time, pooled link-owned buffers, and a {@code
 * FrameTap} for pcap.
 */
package dev.irdmaemu.fw.wire;
