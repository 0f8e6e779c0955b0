/**
 * The UNIX-socket side the vhost-user back-end and the vfio-user server share: one socket path bound and accepted on
 * by its own thread ({@link dev.irdmaemu.bridge.sock.UnixAcceptLoop}), and the reading of one message off a
 * connection, its bytes and the descriptors passed with them ({@link dev.irdmaemu.bridge.sock.UnixMessageInput}).
 */
package dev.irdmaemu.bridge.sock;
