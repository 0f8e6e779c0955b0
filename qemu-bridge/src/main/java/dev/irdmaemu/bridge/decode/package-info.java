/** Human-readable summaries of frames, for {@code irdma-emu decode} and logs. */
package dev.irdmaemu.bridge.decode;
