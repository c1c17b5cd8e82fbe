#!/usr/bin/env python3
"""mkblob.py PAGES OUT: the data that makes bigkernel's image big, in a pattern it can check.

PAGES pages of 4 KiB (little-endian 64-bit words). Page 0 is a header: "PVBIGDAT", PAGES, and
the sum (mod 2^64) of every word of pages 1..PAGES-1, computed here from the bytes written.
In page p >= 1, word 0 is p ^ 0x5a5a5a5a00000000 (which page this is) and word j >= 1 is
j * 0x9e3779b97f4a7c15 mod 2^64 (where in the page), so a page loaded twice, out of order, or
shifted shows up. Built page by page from two templates: a few tenths of a second for 76 MiB.
"""
import struct, sys
from array import array

pages, out = int(sys.argv[1], 0), sys.argv[2]
M = (1 << 64) - 1
tail = struct.pack('<511Q', *((j * 0x9e3779b97f4a7c15) & M for j in range(1, 512)))
body = b''.join(struct.pack('<Q', p ^ 0x5a5a5a5a00000000) + tail for p in range(1, pages))
total = sum(array('Q', body)) & M
with open(out, 'wb') as f:
    f.write(struct.pack('<8sQQ', b'PVBIGDAT', pages, total).ljust(4096, b'\0'))
    f.write(body)
