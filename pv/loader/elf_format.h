/* elf_format.h: the ELF file format as the loader reads it (System V gABI, only what we read),
 * and what elf.c and elf_notes.c share. Private to pv/loader. */
#ifndef PV_LOADER_ELF_FORMAT_H
#define PV_LOADER_ELF_FORMAT_H

#include "pv/loader/elf.h"

struct elf64_ehdr {
    uint8_t ident[16];
    uint16_t type, machine;
    uint32_t version;
    uint64_t entry, phoff, shoff;
    uint32_t flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf64_phdr {
    uint32_t type, flags;
    uint64_t offset, vaddr, paddr, filesz, memsz, align;
};
struct elf64_shdr {
    uint32_t name, type;
    uint64_t flags, addr, offset, size;
    uint32_t link, info;
    uint64_t addralign, entsize;
};
/* ELF32's forms of the same three */
struct elf32_ehdr {
    uint8_t ident[16];
    uint16_t type, machine;
    uint32_t version, entry, phoff, shoff, flags;
    uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf32_phdr {
    uint32_t type, offset, vaddr, paddr, filesz, memsz, flags, align;
};
struct elf32_shdr {
    uint32_t name, type, flags, addr, offset, size, link, info, addralign, entsize;
};
struct elf_nhdr {
    uint32_t namesz, descsz, type;
};
#define EI_CLASS     4
#define EI_DATA      5
#define ELFCLASS32   1
#define ELFCLASS64   2
#define ELFDATA2LSB  1
#define ET_EXEC      2
#define EM_386       3
#define EM_X86_64    62
#define PT_LOAD      1
#define PT_NOTE      4
#define SHT_SYMTAB   2
#define SHT_STRTAB   3
#define SHT_NOTE     7
#define EV_CURRENT   1

#define UNSET          (~0ull)

/* The values of the Xen notes a kernel carries (UNSET: not there). */
struct note_vals {
    uint64_t entry, virt_base, paddr_offset, hypercall_page, init_p2m;
};

/* A refusal: its reason (e->why, the builder's FATAL line) is also ERR's, with the caller's
 * file:line. */
int pv_elf_fail_at(const char *file, int line, struct pv_elf *e, int err, const char *fmt, ...) __printf(5, 6);
#define fail(...) pv_elf_fail_at(__FILE__, __LINE__, __VA_ARGS__)
/* [off, off + size) lies within the image (no overflow). */
bool pv_elf_in_image(const struct pv_elf *e, uint64_t off, uint64_t size);
/* Program header i (the table was checked to lie in the file), as ELF64. */
void pv_elf_read_phdr(const struct pv_elf *e, const struct elf64_ehdr *h, unsigned i, struct elf64_phdr *p);
/* Section header i (the table was checked to lie in the file), as ELF64. */
void pv_elf_read_shdr(const struct pv_elf *e, const struct elf64_ehdr *h, unsigned i, struct elf64_shdr *s);
/* The Xen notes, from PT_NOTE segments or else note sections, into *v and e: how many, or a
 * negative error (elf_notes.c). */
int pv_elf_find_notes(struct pv_elf *e, const struct elf64_ehdr *h, struct note_vals *v);
/* With BSD_SYMTAB: place the blob after the loaded image and grow e->pend over it; or say in
 * e->bsd.skipped why there is none. 0, or a negative error for an image to refuse (bsdsyms.c). */
int pv_bsdsyms_plan(struct pv_elf *e, const struct elf64_ehdr *h);

#endif
