/**
 * virtio's split virtqueue in guest memory (virtio 1.x §2.7), as the vhost-user back end of the virtio-net NIC
 * reads and writes it.
 */
package dev.irdmaemu.fw.virtio;
