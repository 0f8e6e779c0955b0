/**
 * The E810's offloaded TCP: what an iWARP QP runs once the driver has moved it to RTS with the connection the CM
 * set up in software (irdma_init_tcp_ctx, cm.c). {@code OffloadedTcp} is one connection on simulated time; it
 * takes whole FPDUs from the layer above ({@code send}), hands the in-order stream back through
 * {@code TcpReceiver}, transmits frames through a {@code model.port.FrameTransmitter}, and reports the LLP
 * asynchronous events ({@code TcpEvent}, each carrying its {@code fw.queue.AeCode}) to its
 * {@code OffloadedTcp.Listener}.
 *
 * <p>Boundary for the MPA/DDP/RDMAP step: the upper layer owns framing (FPDUs, markers, CRC) and the receive
 * buffer the window is advertised from; this package owns sequence space, windows, timers, retransmission and
 * reassembly. Demultiplexing a received frame to its connection (quad hash) stays with the port's classifier.
 *
 * <p>{@code OffloadedTcp} is the only public class of the engine; behind it the work is split the way Linux splits
 * its TCP: {@code TcpInput} (tcp_input.c), {@code TcpOutput} (tcp_output.c), {@code TcpTimers} (tcp_timer.c) and
 * {@code CongestionControl} (tcp_cong.c), over a shared {@code TransmissionControlBlock}.
 */
package dev.irdmaemu.model.tcp;
