/**
 * Deliberately badly layered classes, a miniature of the real packages under this one ({@code fw}, {@code model},
 * {@code driver}, {@code cm}, {@code bridge}), so LayeringTest can show that its rules do report violations.
 */
package dev.irdmaemu.bridge.layeringfixture;
