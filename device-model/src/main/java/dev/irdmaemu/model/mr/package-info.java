/**
 * Memory registration on the device: STags, their page lists and access rights, and the checked translation of
 * tagged offsets into host memory that the iWARP data path places through.
 */
package dev.irdmaemu.model.mr;
