/* shim.lds.S: the image layout: one contiguous run from IMAGE_PHYS_BASE, virtual = physical + IMAGE_VOFFSET. */
#include "shim/config.h"

OUTPUT_FORMAT("elf64-x86-64")
OUTPUT_ARCH(i386:x86-64)
ENTRY(pvh_entry)

PHDRS
{
    text   PT_LOAD FLAGS(5);
    rodata PT_LOAD FLAGS(4);
    data   PT_LOAD FLAGS(6);
    note   PT_NOTE FLAGS(4);
}

SECTIONS
{
    . = IMAGE_VOFFSET + IMAGE_PHYS_BASE;
    __image_start = .;

    .text : AT(ADDR(.text) - IMAGE_VOFFSET) {
        __text_start = .;
        *(.text.head)
        *(.text .text.*)
        __text_end = .;
    } :text

    . = ALIGN(4096);
    .rodata : AT(ADDR(.rodata) - IMAGE_VOFFSET) {
        __rodata_start = .;
        *(.rodata .rodata.* .rodata.trampoline)
        . = ALIGN(8);
        __fixup_start = .;              /* (faulting instruction, where to resume) pairs */
        *(.fixup_table)
        __fixup_end = .;
    } :rodata
    .note.Xen : AT(ADDR(.note.Xen) - IMAGE_VOFFSET) { *(.note.Xen) } :rodata :note
    .symtab.shim : AT(ADDR(.symtab.shim) - IMAGE_VOFFSET) {
        *(.symtab.shim)
        __rodata_end = .;
    } :rodata

    . = ALIGN(4096);
    .data : AT(ADDR(.data) - IMAGE_VOFFSET) {
        __data_start = .;
        *(.data.stats)                  /* the page-aligned stats page first: no padding before it */
        *(.data .data.*)
        . = ALIGN(4096);
        __load_end = .;
    } :data

    .bss : AT(ADDR(.bss) - IMAGE_VOFFSET) {
        __bss_start = .;
        *(.bss.boot)
        *(.bss .bss.* COMMON)
        . = ALIGN(4096);
        __bss_end = .;
    } :data
    __image_end = .;

    /DISCARD/ : {
        *(.comment) *(.note.GNU-stack) *(.note.gnu.property) *(.eh_frame) *(.eh_frame_hdr)
        *(.interp) *(.dynamic) *(.dynsym) *(.dynstr) *(.hash) *(.gnu.hash)
    }
}
