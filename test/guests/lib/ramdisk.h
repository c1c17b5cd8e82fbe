/*
 * ramdisk.h: checking a boot module made by lib/mkramdisk.py (its header says the format).
 * The module can be read in pieces (a guest that maps it a page at a time feeds each page):
 * begin, feed the bytes in order, then end, which reports with check() and says if all was well.
 */
#ifndef GUEST_RAMDISK_H
#define GUEST_RAMDISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RAMDISK_HDR 32

struct ramdisk_check {
	uint64_t off;			/* bytes fed so far */
	uint64_t hash;			/* FNV-1a 64 of bytes RAMDISK_HDR.. */
	unsigned long bad;		/* bytes that break the pattern */
	uint64_t first_bad;
	uint8_t hdr[RAMDISK_HDR];
};

void ramdisk_check_begin(struct ramdisk_check *c);
void ramdisk_check_feed(struct ramdisk_check *c, const void *p, size_t n);
/* Magic, header length == mod_len == bytes fed, checksum and pattern; true if all hold. */
bool ramdisk_check_end(struct ramdisk_check *c, unsigned long mod_len);

#endif
