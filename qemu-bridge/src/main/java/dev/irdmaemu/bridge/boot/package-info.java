/**
 * {@code irdma-emu boot}: the model's port served to a real Linux guest. {@link dev.irdmaemu.bridge.boot.HostedNode}
 * is one model node (the E810 RDMA function, the cm module's driver layer and connection manager, the LAN
 * responder) whose Ethernet port is the guest's vhost-user NIC ({@link dev.irdmaemu.bridge.boot.GuestWire}), run by
 * one {@link dev.irdmaemu.bridge.boot.ModelLoop} thread paced against the wall clock;
 * {@link dev.irdmaemu.bridge.boot.HostedService}s are the programs it runs for a
 * {@link dev.irdmaemu.bridge.boot.BootScenario} (cm.rping's and cm.ucmatose's peers); {@link dev.irdmaemu.bridge.run.BootRun} is one boot from the
 * node's bring-up to the teardown, shared by the command line and the end-to-end tests; its QEMU runs where a
 * {@link dev.irdmaemu.bridge.boot.QemuHost} says (a child process here, or a container in the container tests).
 *
 * <p>Threading: only the model loop's thread touches the model; vhost-user threads wake it, other threads post
 * tasks to it. Everything the guest sends is hostile, as everywhere in the model.
 */
package dev.irdmaemu.bridge.boot;
