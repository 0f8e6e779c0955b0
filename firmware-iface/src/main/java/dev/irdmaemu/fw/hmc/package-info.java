/**
 * The host memory cache contract: object types ({@link dev.irdmaemu.fw.hmc.HmcObjectType}), the Query and Commit
 * FPM value buffers ({@link dev.irdmaemu.fw.hmc.FpmQueryBuffer}, {@link dev.irdmaemu.fw.hmc.FpmCommitBuffer}),
 * segment-descriptor updates ({@link dev.irdmaemu.fw.hmc.SegmentDescriptor}) and page descriptors
 * ({@link dev.irdmaemu.fw.hmc.PageDescriptor}), as hmc.c and ctrl.c encode and parse them.
 */
package dev.irdmaemu.fw.hmc;
