/**
 * Classic libpcap capture files: {@link dev.irdmaemu.fw.pcap.PcapWriter} (a {@link dev.irdmaemu.fw.pcap.FrameTap}
 * any component can attach to a stream of frames) and {@link dev.irdmaemu.fw.pcap.PcapReader} (hostile-safe:
 * every malformed input answers a {@link dev.irdmaemu.fw.pcap.PcapFormatException} carrying a
 * {@link dev.irdmaemu.fw.pcap.PcapCheck}).
 *
 * <p>Format facts (the classic format as libpcap writes it, described in pcap-savefile(5) and the IETF
 * draft "PCAP Capture File Format", draft-ietf-opsawg-pcap):
 * <ul>
 *   <li>global header, 24 bytes: magic (4), version major (2), version minor (2), thiszone (4), sigfigs (4),
 *       snaplen (4), link type (4); all in the writer's byte order, which the reader learns from the magic;</li>
 *   <li>magic 0xa1b2c3d4: record timestamps in microseconds; 0xa1b23c4d: in nanoseconds;</li>
 *   <li>record header, 16 bytes: ts_sec (4), ts_usec or ts_nsec (4), incl_len (4), orig_len (4), all unsigned,
 *       then incl_len bytes of the frame;</li>
 *   <li>LINKTYPE_ETHERNET = 1 (tcpdump.org link-layer header types).</li>
 * </ul>
 */
package dev.irdmaemu.fw.pcap;
