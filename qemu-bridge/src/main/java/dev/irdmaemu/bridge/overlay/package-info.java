/**
 * An adapter's Ethernet cable beyond one process: {@link dev.irdmaemu.bridge.overlay.VxlanCable} carries it over a
 * VXLAN segment (RFC 7348), so that models in different containers or on different hosts, and Linux {@code vxlan}
 * devices, share one Ethernet segment.
 */
package dev.irdmaemu.bridge.overlay;
