/*
 * bsdsymtab: XEN_ELFNOTE_BSD_SYMTAB, the kernel's own symbol table loaded after its image.
 *
 * A PV kernel whose BSD_SYMTAB note says "yes" (public/elfnote.h; NetBSD, FreeBSD and Mini-OS use
 * it) finds, at its loaded end rounded up to the word, a uint32 size and then a small ELF file of
 * its own class (Xen's libelf, elf_load_bsdsyms): an ELF header with no program headers, e_shoff
 * 64, three section headers (null, the .symtab with sh_link 2, its .strtab), sh_offsets relative
 * to that header, then the two tables, the size word counting from the header to the strtab's
 * end. The loader counts all of it as part of the kernel, so start-of-day memory (the p2m,
 * start_info, page tables, stack) comes after it (xen.h, "Start-of-day memory layout").
 *
 * XSA-194: libelf once built this header in a union of the ELF32 and ELF64 forms on its stack and
 * copied the padding out with it, leaking hypervisor memory to a 32-bit guest. So besides the
 * fields, the exact offsets (the tables at header + 260 for ELF64, + 256 for ELF32) and a name
 * lookup of test_main and test_title through the loaded tables, this test checks that every byte
 * of the blob that is neither a field nor table data is zero: the ELF32 header's tail up to
 * e_shoff, the null section header, the gap after the section headers, the word padding.
 *
 * The 32-bit build: Xen 4.17's elf_parse_bsdsyms reserves 68 bytes less for ELF32 than
 * elf_load_bsdsyms writes (it counts 4 + 68 + 3 * 40 header bytes, the loader places the tables
 * after 260), so on the stock shim the p2m follows the page after that shorter end, and when the
 * tables cross into that page the p2m overwrites their tail; ours reserves what it writes. The
 * test takes each shim's own end exactly, and on the stock shim skips the overwritten tail.
 *
 * Expect: stock PASS on xen, the 32-bit build too; ours PASS on xen and none (64-bit and 32-bit).
 */
#include <elf.h>

#include "guest.h"

#ifdef __i386__
#define CLASS   ELFCLASS32
#define MACHINE EM_386
#define TABLES_AT 256u                  /* from the ELF header: 64 + room for three ELF64 shdrs */
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Shdr Shdr;
typedef Elf32_Sym Sym;
#define SYM_TYPE(i) ELF32_ST_TYPE(i)
#else
#define CLASS   ELFCLASS64
#define MACHINE EM_X86_64
#define TABLES_AT 260u                  /* the same, word-rounded from the blob's start (4 + 256 -> 264) */
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Shdr Shdr;
typedef Elf64_Sym Sym;
#define SYM_TYPE(i) ELF64_ST_TYPE(i)
#endif

#define WORD sizeof(unsigned long)

extern char _start[];

const char test_title[] = "bsdsymtab: the BSD_SYMTAB blob after the kernel, its layout, zero padding and symbols";

static unsigned long up(unsigned long x, unsigned long a)
{
	return (x + a - 1) & ~(a - 1);
}

/* bytes [from, to) of p are zero: the first one that is not, or -1 */
static long nonzero_at(const uint8_t *p, unsigned long from, unsigned long to)
{
	for (unsigned long i = from; i < to; i++)
		if (p[i])
			return (long)i;
	return -1;
}

static void check_zero(const uint8_t *p, unsigned long from, unsigned long to, const char *what)
{
	long at = nonzero_at(p, from, to);

	check(at < 0, "%s (header bytes %#lx-%#lx) are zero%s", what, from, to, at < 0 ? "" : ": not all");
	if (at >= 0)
		printf("  first nonzero byte at header + %#lx: %#x\n", (unsigned long)at, p[at]);
}

/* The symbol's value by name through the loaded tables, or 0. */
static unsigned long lookup(const uint8_t *eh, const Shdr *sym, const Shdr *str, const char *name, int type)
{
	const char *strs = (const char *)eh + str->sh_offset;

	for (unsigned long off = 0; off + sizeof(Sym) <= sym->sh_size; off += sizeof(Sym)) {
		Sym s;
		memcpy(&s, eh + sym->sh_offset + off, sizeof(s));
		if (s.st_name < str->sh_size && SYM_TYPE(s.st_info) == type && !strcmp(strs + s.st_name, name))
			return s.st_value;
	}
	return 0;
}

/* The string-table offset of the name of the symbol at value, or ~0. */
static unsigned long name_of(const uint8_t *eh, const Shdr *sym, unsigned long value, int type)
{
	for (unsigned long off = 0; off + sizeof(Sym) <= sym->sh_size; off += sizeof(Sym)) {
		Sym s;
		memcpy(&s, eh + sym->sh_offset + off, sizeof(s));
		if (s.st_value == value && SYM_TYPE(s.st_info) == type)
			return s.st_name;
	}
	return ~0ul;
}

/*
 * name by name through the loaded tables: its value must be addr. Blob bytes from header + lost
 * on are gone (the stock shim's ELF32 overrun): a name there cannot be found, which is checked.
 */
static void find_symbol(const char *name, int type, unsigned long addr, const uint8_t *eh, const Shdr *sym,
			const Shdr *str, unsigned long lost)
{
	unsigned long at = lookup(eh, sym, str, name, type);
	unsigned long name_end = str->sh_offset + name_of(eh, sym, addr, type) + strlen(name) + 1;

	if (name_end > lost && at == 0)
		check(true, "%s: its name lies in the tail the p2m overwrote: not found, as on Xen 4.17", name);
	else
		check(at == addr, "%s by name through the loaded tables: %#lx (is %#lx)", name, at, addr);
}

void test_main(void)
{
	const start_info_t *si = start_info;
	const uint8_t *blob = (const uint8_t *)up((unsigned long)_image_end, WORD);
	const uint8_t *eh = blob + 4;
	uint32_t size;
	Ehdr h;
	Shdr s[3];

	memcpy(&size, blob, sizeof(size));
	memcpy(&h, eh, sizeof(h));
	printf("kernel end %p, blob at %p: size %u, class %u, e_shoff %#lx, e_shnum %u, e_phnum %u\n",
	       (void *)_image_end, (const void *)blob, size, h.e_ident[EI_CLASS], (unsigned long)h.e_shoff,
	       h.e_shnum, h.e_phnum);
	if (!check(!memcmp(h.e_ident, ELFMAG, SELFMAG), "an ELF header follows the size word at the word-rounded end"))
		test_fail("no symbol table blob after the kernel: was the BSD_SYMTAB note honoured?");
	check(h.e_ident[EI_CLASS] == CLASS && h.e_ident[EI_DATA] == ELFDATA2LSB, "class %u, data %u: the kernel's",
	      h.e_ident[EI_CLASS], h.e_ident[EI_DATA]);
	check(h.e_type == ET_EXEC && h.e_machine == MACHINE && h.e_version == EV_CURRENT,
	      "type %u, machine %u, version %u: the kernel's", h.e_type, h.e_machine, h.e_version);
	check(h.e_entry == (unsigned long)_start, "e_entry %#lx is the kernel's (%p)", (unsigned long)h.e_entry,
	      (void *)_start);
	check(!h.e_phoff && !h.e_phnum && !h.e_phentsize, "no program headers (phoff %#lx, phnum %u, phentsize %u)",
	      (unsigned long)h.e_phoff, h.e_phnum, h.e_phentsize);
	check(h.e_ehsize == sizeof(Ehdr) && h.e_shentsize == sizeof(Shdr), "e_ehsize %u, e_shentsize %u: the class's",
	      h.e_ehsize, h.e_shentsize);
	check(h.e_shoff == 64 && h.e_shnum == 3 && h.e_shstrndx == SHN_UNDEF,
	      "e_shoff %#lx == 64, e_shnum %u == 3, e_shstrndx %u undefined", (unsigned long)h.e_shoff, h.e_shnum,
	      h.e_shstrndx);
	if (test_failures())
		test_fail("the blob's ELF header is wrong: not reading its sections");

	memcpy(s, eh + h.e_shoff, sizeof(s));
	const Shdr *sym = &s[1], *str = &s[2];
	printf("symtab at +%#lx, %#lx bytes (link %u, info %u); strtab at +%#lx, %#lx bytes\n",
	       (unsigned long)sym->sh_offset, (unsigned long)sym->sh_size, sym->sh_link, sym->sh_info,
	       (unsigned long)str->sh_offset, (unsigned long)str->sh_size);
	check(sym->sh_type == SHT_SYMTAB && sym->sh_link == 2 && sym->sh_entsize == sizeof(Sym),
	      "section 1 is the SHT_SYMTAB (type %u), linked to section 2 (%u), entsize %lu", sym->sh_type,
	      sym->sh_link, (unsigned long)sym->sh_entsize);
	check(str->sh_type == SHT_STRTAB, "section 2 is an SHT_STRTAB (type %u)", str->sh_type);
	check(!sym->sh_addr && !str->sh_addr, "both keep the file's sh_addr, 0 (%#lx, %#lx)",
	      (unsigned long)sym->sh_addr, (unsigned long)str->sh_addr);
	check(sym->sh_size && sym->sh_size % sizeof(Sym) == 0 && str->sh_size,
	      "the tables are not empty, the symtab whole symbols");
	check(sym->sh_offset == TABLES_AT, "the symtab at header + %u, as libelf places it (at %#lx)", TABLES_AT,
	      (unsigned long)sym->sh_offset);
	unsigned long sym_end = sym->sh_offset + sym->sh_size, str_end = str->sh_offset + str->sh_size;
	check(str->sh_offset == up(4 + sym_end, WORD) - 4, "the strtab follows, word-aligned (at %#lx)",
	      (unsigned long)str->sh_offset);
	check(size == str_end, "the size word %u counts from the ELF header to the strtab's end (%lu)", size, str_end);
	if (test_failures())
		test_fail("the blob's sections are misplaced: not reading them");

	/*
	 * Start-of-day memory after the blob: with no initrd the p2m comes first, at the page after
	 * the image's end (dom0_construct_pv: vphysmap_start = round_pgup(vkern_end)).
	 */
	unsigned long end = (unsigned long)eh + str_end, reserved = end, lost = str_end;
#ifdef __i386__
	if (!testbed_ours()) {
		/* Xen 4.17's ELF32 count: 4 + (4 + 64) + 3 * 40 (the size word counted twice) */
		reserved = (unsigned long)blob + 192 + up(sym->sh_size, WORD) + up(str->sh_size, WORD);
		if (si->mfn_list < end)         /* then its p2m overwrote the blob's tail */
			lost = si->mfn_list - (unsigned long)eh;
	}
#endif
	unsigned long pt_end = si->pt_base + si->nr_pt_frames * PAGE_SIZE;
	printf("blob end %#lx; p2m %#lx, start_info %p, page tables %#lx-%#lx, stack end %#lx\n", end,
	       (unsigned long)si->mfn_list, (const void *)si, (unsigned long)si->pt_base, pt_end, boot_rsp);
	check(si->mfn_list == up(reserved, PAGE_SIZE), "the p2m %#lx starts at the page after the image (%#lx)",
	      (unsigned long)si->mfn_list, up(reserved, PAGE_SIZE));
	check((unsigned long)si >= up(reserved, PAGE_SIZE) && si->pt_base >= up(reserved, PAGE_SIZE) &&
	      boot_rsp - PAGE_SIZE >= up(reserved, PAGE_SIZE), "start_info, the page tables and the stack follow it");
	if (lost < str_end)
		printf("stock, ELF32: the strtab's last %lu bytes lie in the p2m's first page and were overwritten by it "
		       "(Xen 4.17 reserves 68 bytes less than it loads): not checked\n", str_end - lost);

	check_zero(eh, h.e_ehsize, h.e_shoff, "the bytes between the ELF header and the section headers");
	check_zero(eh, h.e_shoff, h.e_shoff + sizeof(Shdr), "the null section header");
	check_zero(eh, h.e_shoff + 3 * sizeof(Shdr), sym->sh_offset, "the bytes after the section headers");
	check_zero(eh, sym_end, str->sh_offset, "the padding after the symtab");
	if (lost == str_end)
		check_zero(eh, str_end, up(4 + str_end, WORD) - 4, "the padding after the strtab");

	find_symbol("test_main", STT_FUNC, (unsigned long)test_main, eh, sym, str, lost);
	find_symbol("test_title", STT_OBJECT, (unsigned long)test_title, eh, sym, str, lost);
}
