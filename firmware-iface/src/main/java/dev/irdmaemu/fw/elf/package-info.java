/** ELF64 object files as the guest kit reads kernel modules (section headers, symbol and string tables). */
package dev.irdmaemu.fw.elf;
