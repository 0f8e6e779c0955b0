/**
 * The listening side the vhost-user back-end and the vfio-user server share: one UNIX socket path bound and
 * accepted on by its own thread ({@link dev.irdmaemu.bridge.sock.UnixAcceptLoop}).
 */
package dev.irdmaemu.bridge.sock;
