/**
 * An in-memory stand-in for the device behind {@code dev.irdmaemu.cm.CmHardwarePort}: quad hash steering, the
 * host stack's resets, and a small offloaded TCP per QP. The device-model issue replaces it with the real
 * model behind the same interface.
 */
package dev.irdmaemu.cm.hw;
