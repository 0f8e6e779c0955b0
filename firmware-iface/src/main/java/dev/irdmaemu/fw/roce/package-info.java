/**
 * RoCEv2's wire formats (InfiniBand Architecture Specification Vol. 1, chapter 9 transport headers and Annex A17
 * RoCEv2; the kernel's include/rdma/ib_pack.h and drivers/infiniband/sw/rxe/rxe_hdr.h, rxe_opcode.c and
 * rxe_icrc.c read for the same rules), as flyweights over Chronicle stores in the style of {@code fw.frame} and
 * {@code fw.iwarp}:
 * <ul>
 *   <li>{@link dev.irdmaemu.fw.roce.Bth} and the extension headers {@link dev.irdmaemu.fw.roce.Reth},
 *       {@link dev.irdmaemu.fw.roce.Aeth} ({@link dev.irdmaemu.fw.roce.AethSyndrome},
 *       {@link dev.irdmaemu.fw.roce.NakCode}), {@link dev.irdmaemu.fw.roce.Deth}, {@link dev.irdmaemu.fw.roce.ImmDt},
 *       {@link dev.irdmaemu.fw.roce.Ieth}, {@link dev.irdmaemu.fw.roce.AtomicEth},
 *       {@link dev.irdmaemu.fw.roce.AtomicAckEth} and the CNP's reserved bytes {@link dev.irdmaemu.fw.roce.Cnp};</li>
 *   <li>{@link dev.irdmaemu.fw.roce.BthOpcode}: IBA's opcode table for RC, UC, UD and the CNP, which headers follow
 *       each opcode and whether it carries payload;</li>
 *   <li>{@link dev.irdmaemu.fw.roce.Icrc}: the invariant CRC with RoCEv2's masked fields;</li>
 *   <li>{@link dev.irdmaemu.fw.roce.RoceFrame} (parse, answering a {@link dev.irdmaemu.fw.roce.RoceCheck}) and
 *       {@link dev.irdmaemu.fw.roce.RoceFrameBuilder} (build): whole Ethernet/IP/UDP 4791 frames.</li>
 * </ul>
 * Parse: {@code wrap}, then {@code validate}; nothing throws on received bytes, and accessors read 0 outside the
 * wrapped window. Build: static {@code write} methods and the builder, which throw on a caller's bad arguments.
 * Neither side allocates per packet.
 */
package dev.irdmaemu.fw.roce;
