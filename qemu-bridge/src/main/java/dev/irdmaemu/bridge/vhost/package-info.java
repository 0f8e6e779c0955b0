/**
 * The model's Ethernet port served to QEMU as a vhost-user-net back-end (QEMU docs/interop/vhost-user.rst): the
 * UNIX-socket control protocol with file-descriptor passing, the guest's shared memory mapped into a
 * {@link dev.irdmaemu.fw.bus.HostMemory}, and the device side of the virtio 1.x split virtqueues (virtio 1.x §2.7)
 * carrying virtio-net frames (virtio 1.x §5.1). Everything the front-end or the guest hands us is hostile: a bad
 * message or a bad ring is a logged error that closes that connection and nothing else.
 */
package dev.irdmaemu.bridge.vhost;
