/**
 * Event queues and interrupts: CEQs and the AEQ as rings in host memory written with the consumer's valid-bit
 * polarity, AEQ credit through PFPE_AEQALLOC, and MSI-X routing and arming (GLINT_CEQCTL, PFINT_AEQCTL,
 * GLINT_DYN_CTL) in {@link dev.irdmaemu.model.eq.InterruptController}.
 */
package dev.irdmaemu.model.eq;
