#!/usr/bin/env python3
"""badimage.py KIND GOOD_KERNEL OUT: a deliberately broken PV kernel image made from a good one.

Each badimage-KIND test directory names one way an image can be malformed or hostile. A shim
must refuse it with a one-line reason and SHUTDOWN_crash, never fault itself:
  truncated   the ELF cut in the middle of its loadable segment
  overlap     a second PT_LOAD overlapping the first
  entry       the ENTRY note points outside the loaded image
  huge        a PT_LOAD claiming 1 TiB of memory
  elf32       an ELF64 image labelled ELFCLASS32: its header is not an i386 ELF32's
  corrupt-gz  a bzImage whose gzip payload has a corrupted byte
  corrupt-xz  a bzImage whose xz payload has a corrupted byte
  symtab      (from bsdsymtab's kernel, which asks for BSD_SYMTAB) its .symtab runs past the end of the file
"""
import gzip, lzma, struct, sys

kind, src, out = sys.argv[1:4]
img = bytearray(open(src, 'rb').read())

EHDR = '<16sHHIQQQIHHHHHH'
PHDR = '<IIQQQQQQ'
(ident, etype, mach, ver, entry, phoff, shoff, flags, ehsz, phentsz, phnum, shentsz, shnum, shstrndx) = \
    struct.unpack_from(EHDR, img, 0)

def phdrs():
    return [(phoff + i * phentsz,) + struct.unpack_from(PHDR, img, phoff + i * phentsz) for i in range(phnum)]

def load0():
    return next(p for p in phdrs() if p[1] == 1)

def xen_notes():
    """(offset of desc, type, descsz) of each Xen note in the image's note section(s)."""
    res = []
    for i in range(shnum):
        name, typ, fl, addr, off, size = struct.unpack_from('<IIQQQQ', img, shoff + i * shentsz)
        if typ != 7:
            continue
        p = off
        while p + 12 <= off + size:
            nsz, dsz, ntype = struct.unpack_from('<III', img, p)
            d = p + 12 + ((nsz + 3) & ~3)
            if img[p + 12:p + 12 + nsz] == b'Xen\0':
                res.append((d, ntype, dsz))
            p = d + ((dsz + 3) & ~3)
    return res

from packimage import wrap as bzimage  # noqa: E402  (a minimal bzImage around a payload)

if kind == 'truncated':
    ph = load0()
    img = img[:ph[3] + ph[6] // 2]
elif kind == 'overlap':
    ph = load0()
    # turn the PT_NOTE header (the one after the first PT_LOAD: loaded after it) into a PT_LOAD
    # of the entry's page, filled with ud2 from bytes appended to the file. A loader that checks
    # for overlaps refuses it; one that does not (Xen 4.17's) loads it over the kernel's first
    # instructions, and the guest dies of #UD at its entry wherever its code lies.
    other = next(p for p in phdrs() if p[1] != 1)
    page = entry & ~0xfff
    assert ph[4] <= page < ph[4] + ph[7], 'the entry is outside the first PT_LOAD'   # p_vaddr, p_memsz
    img += b'\0' * (-len(img) % 0x1000)
    off = len(img)
    img += b'\x0f\x0b' * 0x800
    struct.pack_into(PHDR, img, other[0], 1, 5, off, page, ph[5] + (page - ph[4]), 0x1000, 0x1000, 0x1000)
elif kind == 'entry':
    for d, t, sz in xen_notes():
        if t == 1:                      # XEN_ELFNOTE_ENTRY
            struct.pack_into('<Q', img, d, 0x40000000)
elif kind == 'huge':
    ph = load0()
    struct.pack_into('<Q', img, ph[0] + 40, 1 << 40)   # p_memsz
elif kind == 'elf32':
    img[4] = 1                          # EI_CLASS = ELFCLASS32
elif kind in ('corrupt-gz', 'corrupt-xz'):
    if kind == 'corrupt-gz':
        payload = bytearray(gzip.compress(bytes(img), 9, mtime=0))
    else:
        payload = bytearray(lzma.compress(bytes(img), format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32,
                                          filters=[{'id': lzma.FILTER_X86}, {'id': lzma.FILTER_LZMA2}]))
        payload += struct.pack('<I', len(img))
    payload[len(payload) // 2] ^= 0x55
    img = bytearray(bzimage(bytes(payload)))
elif kind == 'symtab':
    # the symbol table's contents start 16 bytes before the end of the file and run past it
    for i in range(shnum):
        at = shoff + i * shentsz
        if struct.unpack_from('<I', img, at + 4)[0] == 2:           # SHT_SYMTAB
            struct.pack_into('<Q', img, at + 24, len(img) - 16)     # sh_offset
            break
    else:
        sys.exit('badimage.py: symtab: the kernel has no symbol table')
else:
    sys.exit('badimage.py: unknown kind ' + kind)
open(out, 'wb').write(img)
