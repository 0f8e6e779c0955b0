/**
 * The guest kit the end-to-end tests boot, and the QEMU that boots it. {@code ./irdma-emu kit} (the script
 * {@code qemu-bridge/src/main/kit/provision-kit.sh}) provisions the kit into the project cache
 * ({@code .cache/kit/current/}, described by its {@code kit.properties}); {@link dev.irdmaemu.bridge.kit.GuestKit}
 * finds and validates it and builds QEMU command lines ({@link dev.irdmaemu.bridge.kit.GuestLaunch}),
 * {@link dev.irdmaemu.bridge.kit.QemuProcess} runs one and waits for the guest's result line
 * ({@link dev.irdmaemu.bridge.kit.GuestResult}).
 */
package dev.irdmaemu.bridge.kit;
