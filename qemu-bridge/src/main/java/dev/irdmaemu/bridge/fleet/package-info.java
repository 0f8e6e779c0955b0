/**
 * Fleets (issue 28): scenarios run across several containers of the self-contained image on one container engine,
 * local or remote, with the model, QEMU and the guest inside each container. {@link dev.irdmaemu.bridge.fleet.Fleet}
 * runs them N at a time through the engine's {@code docker} command line ({@link dev.irdmaemu.bridge.fleet.DockerCli}),
 * keeps each run's folder (copied out of its container) and {@link dev.irdmaemu.bridge.fleet.JUnitXml} writes the
 * results as JUnit XML, the format CI services read.
 */
package dev.irdmaemu.bridge.fleet;
