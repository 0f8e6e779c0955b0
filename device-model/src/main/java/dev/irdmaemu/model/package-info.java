/**
 * The hardware model of the E810 RDMA block: what the irdma driver programs (registers, control and work queues)
 * and how the device answers. Layering (checked by qemu-bridge's LayeringTest and the enforcer): depends only on
 * {@code dev.irdmaemu.fw}, never on {@code dev.irdmaemu.cm} or the bridge.
 */
package dev.irdmaemu.model;
