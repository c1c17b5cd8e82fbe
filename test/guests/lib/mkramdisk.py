#!/usr/bin/env python3
"""mkramdisk.py LENGTH OUT: a boot module (ramdisk) whose content a test guest can verify alone.

Format (lib/ramdisk.h reads it): a 32-byte header, then a pattern up to LENGTH bytes.
  0  "PVRAMDSK"       magic
  8  u64 LENGTH       the file's exact length: the guest compares it with start_info.mod_len
  16 u64 FNV-1a 64    over bytes 32..LENGTH, computed here, independently of the guest's pattern
  24 u64 0
Byte i (i >= 32) is ((i >> 12) * 37 + i * 13 + 0x5a) & 0xff: it differs from page to page, so a
module with pages swapped, repeated or cut short fails the pattern check and says where.
"""
import struct, sys

length, out = int(sys.argv[1], 0), sys.argv[2]
if length < 32:
    sys.exit('mkramdisk.py: LENGTH must be at least 32')
# one page of the pattern per page-number residue (the page term repeats every 256 pages)
pages = [bytes(((p * 37 + i * 13 + 0x5a) & 0xff) for i in range(4096)) for p in range(256)]
body = bytearray(b''.join(pages[p & 255] for p in range((length + 4095) // 4096))[:length])
h = 0xcbf29ce484222325
for b in memoryview(body)[32:]:
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
body[0:32] = struct.pack('<8sQQQ', b'PVRAMDSK', length, h, 0)
with open(out, 'wb') as f:
    f.write(body)
