/*
 * x86_32/note.S: the 32-bit build's note, the same 4-byte value (libelf's elf_note_numeric reads
 * a 4- or 8-byte desc alike for either ELF class).
 */
#include "../note.S"
