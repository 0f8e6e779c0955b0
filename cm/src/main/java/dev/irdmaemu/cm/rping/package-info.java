/**
 * rping on the model: the peer service issue 5 asks for, with the protocol of rdma-core's rping (librdmacm
 * examples/rping.c) so that it interoperates with the stock rping binary. Each ping the client advertises its start
 * buffer in a Send ({@link dev.irdmaemu.cm.rping.RpingInfo}, 16 bytes in network order), the server Reads it and
 * Sends a go-ahead, the client advertises its sink, the server Writes the data back and Sends the second go-ahead,
 * and the client checks the data ({@link dev.irdmaemu.cm.rping.RpingPattern}).
 *
 * <p>{@link dev.irdmaemu.cm.rping.RpingClient} and {@link dev.irdmaemu.cm.rping.RpingServer} (each connection a
 * {@link dev.irdmaemu.cm.rping.RpingServerConnection}) are state machines on the CM's scheduler thread, driven by CM
 * upcalls and CQ completions, with no thread and no blocking, and nothing allocated per ping. Their resources are a
 * {@link dev.irdmaemu.cm.rping.RpingControlBlock} on {@link dev.irdmaemu.driver.verbs}, set up as rping sets them up. The
 * protocol talks to it through {@link dev.irdmaemu.cm.rping.RpingVerbs}, which a test can script. Options mirror
 * rping's ({@link dev.irdmaemu.cm.rping.RpingOptions}); each connection ends with a
 * {@link dev.irdmaemu.cm.rping.RpingResult}. Like all of cm: depends on {@code dev.irdmaemu.fw} only.
 */
package dev.irdmaemu.cm.rping;
