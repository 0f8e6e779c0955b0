/**
 * The connection manager and driver-side layer (MPA negotiation, connection setup and teardown). Layering
 * (checked by qemu-bridge's LayeringTest and the enforcer): depends only on {@code dev.irdmaemu.fw}, never on
 * {@code dev.irdmaemu.model} or the bridge.
 */
package dev.irdmaemu.cm;
