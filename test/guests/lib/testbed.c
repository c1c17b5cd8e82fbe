/* testbed.c: the run's facts from the command line (testbed.h). */
#include "guest.h"

bool cmdline_word(const char *key, char *buf, size_t size)
{
	const char *p = (const char *)start_info->cmd_line;
	const char *end = p + strnlen(p, sizeof(start_info->cmd_line));
	size_t klen = strlen(key);

	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		const char *w = p;
		while (p < end && *p != ' ')
			p++;
		if ((size_t)(p - w) > klen && !strncmp(w, key, klen) && w[klen] == '=') {
			size_t n = (size_t)(p - w) - klen - 1;
			if (n >= size)
				n = size - 1;
			memcpy(buf, w + klen + 1, n);
			buf[n] = 0;
			return true;
		}
	}
	return false;
}

static const char *fact(const char *key, char *buf, size_t size)
{
	if (!cmdline_word(key, buf, size))
		test_fail("no %s= on the command line: test/run-guest passes it, and this test's "
			  "expectations differ by shim or L0", key);
	return buf;
}

const char *testbed_shim(void)
{
	static char v[64];

	return fact("testbed.shim", v, sizeof(v));
}

const char *testbed_l0(void)
{
	static char v[16];

	return fact("testbed.l0", v, sizeof(v));
}

bool testbed_ours(void)
{
	const char *s = testbed_shim();

	if (!strcmp(s, "ours"))
		return true;
	if (strcmp(s, "stock"))
		test_fail("testbed.shim=%s: this test knows only the stock shim's behaviour and ours", s);
	return false;
}
