/**
 * ucmatose on the model: a peer with the behaviour of rdma-core's ucmatose (librdmacm examples/cmatose.c), the
 * connection manager test, so that the stock binary in a guest has the model as its other side. A run opens
 * {@code -c} connections at once, each with resources of its own made as cmatose's init_node makes them (a PD, a
 * send and a receive CQ of {@code -C} entries (1 with {@code -C 0}), an RC QP with that many send and receive work
 * requests of one SGE, every send signalled, and a buffer of {@code -S} bytes registered for local write). Once all
 * are established the server Sends {@code -C} messages of {@code -S} bytes on each and the client, having received
 * them, Sends as many back; then the server disconnects them all and the client answers each disconnect with its
 * own. Nothing is left on the device afterwards.
 *
 * <p>{@link dev.irdmaemu.cm.ucmatose.UcmatoseServer} and {@link dev.irdmaemu.cm.ucmatose.UcmatoseClient} are state
 * machines on the CM's scheduler thread (CM upcalls and CQ completion events drive them; no thread, no blocking);
 * each connection is a {@link dev.irdmaemu.cm.ucmatose.UcmatoseConnection}; options mirror cmatose's
 * ({@link dev.irdmaemu.cm.ucmatose.UcmatoseOptions}); a run ends with a
 * {@link dev.irdmaemu.cm.ucmatose.UcmatoseResult}. Like all of cm: depends on {@code dev.irdmaemu.fw} only.
 */
package dev.irdmaemu.cm.ucmatose;
