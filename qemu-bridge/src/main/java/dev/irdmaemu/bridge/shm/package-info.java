/**
 * Pieces the vhost-user back-end and the vfio-user server share: a client's shared-memory file descriptor mapped
 * into this process ({@link dev.irdmaemu.bridge.shm.SharedFileMapping}) and published as guest memory in a
 * {@link dev.irdmaemu.fw.bus.HostMemory}.
 */
package dev.irdmaemu.bridge.shm;
