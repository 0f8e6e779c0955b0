/**
 * Memory registration on the device: STags, their page lists and access rights, and the checked translation of
 * tagged offsets into host memory that the iWARP data path places through. {@link dev.irdmaemu.model.mr.MemoryRegions}
 * is the contract the QP engine uses; {@link dev.irdmaemu.model.mr.MemoryRegionTable} implements it and answers the
 * CQP STag ops (Alloc STag, Register MR, Deallocate STag), delegating by concern: the table (StagEntries), the CQP
 * ops (StagRegistration), Fast Register and invalidation (FastRegistration), the access checks (StagAdmission), the
 * page-list walk and copy (RegionTranslation), the counts (StagCounters); refusals are named by
 * {@link dev.irdmaemu.model.mr.AccessFault} (answered as AE codes) and
 * {@link dev.irdmaemu.model.mr.RegistrationFault} (answered by the CQP as error completions).
 */
package dev.irdmaemu.model.mr;
