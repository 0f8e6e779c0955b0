package dev.irdmaemu.fw.bus;

/** Where the device raises MSI-X vectors: the in-process driver, or the vhost/vfio-user glue under QEMU. */
@FunctionalInterface
public interface InterruptSink {
    InterruptSink NONE = vector -> { };

    void raise(int msixVector);
}
