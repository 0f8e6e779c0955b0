/**
 * Deliberately tangled packages for {@code PackageCyclesTest}: {@code a} and {@code b} use each other (a cycle, as
 * cm.driver and cm.verbs once did), {@code c} uses {@code a} only.
 */
package dev.irdmaemu.fw.arch.cyclefixture;
