/**
 * Nodes on the device model: {@link dev.irdmaemu.bridge.model.ModelNode} assembles host RAM, the E810 model, the
 * cm module's driver layer and a connection manager; {@link dev.irdmaemu.bridge.model.ModelPair} joins two on a
 * simulated link (the {@code demo --model} scenario and the integration tests).
 */
package dev.irdmaemu.bridge.model;
