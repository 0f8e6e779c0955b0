/**
 * Two in-process nodes on a simulated wire ({@code CmPair}), the demo scenario ({@code TwoNodeDemo}) and a
 * setup/teardown driver for benchmarks ({@code ConnectionChurn}).
 */
package dev.irdmaemu.cm.demo;
