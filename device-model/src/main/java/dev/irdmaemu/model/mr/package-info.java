/**
 * Memory registration on the device: STags, their page lists and access rights, and the checked translation of
 * tagged offsets into host memory that the iWARP data path places through. {@link dev.irdmaemu.model.mr.MemoryRegions}
 * is the contract the QP engine uses; {@link dev.irdmaemu.model.mr.MemoryRegionTable} implements it and holds the
 * CQP STag ops' state (Alloc STag, Register MR, Deallocate STag); refusals are named by
 * {@link dev.irdmaemu.model.mr.AccessFault} (answered as AE codes) and
 * {@link dev.irdmaemu.model.mr.RegistrationFault} (answered by the CQP as error completions).
 */
package dev.irdmaemu.model.mr;
