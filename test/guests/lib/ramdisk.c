/* ramdisk.c: verify a mkramdisk.py module's length, checksum and pattern (see ramdisk.h). */
#include "guest.h"
#include "ramdisk.h"

#define FNV_BASIS 0xcbf29ce484222325UL
#define FNV_PRIME 0x100000001b3UL

static uint8_t pattern(uint64_t i)
{
	return (uint8_t)((i >> 12) * 37 + i * 13 + 0x5a);
}

void ramdisk_check_begin(struct ramdisk_check *c)
{
	memset(c, 0, sizeof(*c));
	c->hash = FNV_BASIS;
}

void ramdisk_check_feed(struct ramdisk_check *c, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t k = 0; k < n; k++, c->off++) {
		if (c->off < RAMDISK_HDR) {
			c->hdr[c->off] = b[k];
			continue;
		}
		c->hash = (c->hash ^ b[k]) * FNV_PRIME;
		if (b[k] != pattern(c->off) && !c->bad++)
			c->first_bad = c->off;
	}
}

bool ramdisk_check_end(struct ramdisk_check *c, unsigned long mod_len)
{
	uint64_t len, sum;
	bool ok;

	memcpy(&len, c->hdr + 8, sizeof(len));
	memcpy(&sum, c->hdr + 16, sizeof(sum));
	ok = check(c->off >= RAMDISK_HDR && !memcmp(c->hdr, "PVRAMDSK", 8),
		   "the module starts with the ramdisk header (magic PVRAMDSK)");
	ok &= check(ok && len == mod_len && c->off == mod_len,
		    "mod_len %lu is the file's length (%lu in its header)", mod_len, (unsigned long)len);
	ok &= check(ok && c->hash == sum, "checksum %#lx (the header says %#lx)",
		    (unsigned long)c->hash, (unsigned long)sum);
	ok &= check(!c->bad, "content follows the pattern (%lu bytes do not, first at offset %#lx)",
		    c->bad, (unsigned long)c->first_bad);
	return ok;
}
