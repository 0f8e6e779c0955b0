/**
 * MPA for the CM: the receive rules of irdma cm.c irdma_parse_mpa as typed rejections, and the RFC 6581
 * IRD/ORD negotiation of irdma_negotiate_mpa_v2_ird_ord. The frames themselves are built and parsed by {@code
 * dev.irdmaemu.fw.iwarp.MpaFrame}.
 */
package dev.irdmaemu.cm.mpa;
