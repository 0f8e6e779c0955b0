/**
 * The queue entries that cross the device's host-memory interface, byte-exact with Linux 7.3 irdma for the gen2
 * (E810) device: completion entries ({@link dev.irdmaemu.fw.queue.Cqe}, {@link dev.irdmaemu.fw.queue.CqeExtension}),
 * completion and asynchronous event entries ({@link dev.irdmaemu.fw.queue.Ceqe}, {@link dev.irdmaemu.fw.queue.Aeqe},
 * {@link dev.irdmaemu.fw.queue.AeCode}), send and receive WQEs ({@link dev.irdmaemu.fw.queue.SqWqe},
 * {@link dev.irdmaemu.fw.queue.RqWqe}) including the PUDA (ILQ/IEQ) descriptors, and where the device places
 * frames for the ILQ ({@link dev.irdmaemu.fw.queue.PudaLayout}). Each flyweight has a writer side for whoever
 * produces the entry (device or driver) and a reader side for the consumer, reuses one instance per queue and
 * allocates nothing.
 */
package dev.irdmaemu.fw.queue;
