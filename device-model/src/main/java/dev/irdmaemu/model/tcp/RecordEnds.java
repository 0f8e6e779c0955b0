package dev.irdmaemu.model.tcp;

/**
 * Where the upper layer's records end in a connection's send ring, oldest first ({@link OffloadedTcp#RECORDS} at
 * most): the list {@link SendBuffer} keeps so that segments can be cut on FPDU boundaries (RFC 5044 §8). An
 * {@link OffloadedTcp} makes its own unless it is lent one, so that whoever runs many connections one after another
 * (the iWARP data path, as the E810 keeps such state in per-function memory rather than per connection) hands
 * one connection's table to the next instead of allocating 16 kB each time. Only entries the connection wrote
 * are ever read, so what a previous one left is never seen.
 */
public final class RecordEnds {
    final int[] ends = new int[OffloadedTcp.RECORDS];
}
