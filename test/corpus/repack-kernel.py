#!/usr/bin/env python3
"""repack-kernel.py VMLINUZ FORMAT OUT: Debian's bzImage with its payload recompressed in FORMAT
(bzip2, lzo or zstd: the kernel formats Debian does not build), as the kernel build would have
made it (test/guests/lib/packimage.py's compress). The setup sectors and everything before the
payload stay Debian's; the image ends after the new payload, and payload_length says its size.
The decompressor stub inside would not understand the new payload, but a PV loader never runs
it: it reads the payload fields, as Xen's and ours do.
"""
import lzma, os, struct, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'guests', 'lib'))
import packimage  # noqa: E402

src, fmt, out = sys.argv[1:4]
img = open(src, 'rb').read()
setup = ((img[0x1f1] or 4) + 1) * 512
off = setup + struct.unpack_from('<I', img, 0x248)[0]
plen = struct.unpack_from('<I', img, 0x24c)[0]
payload = img[off:off + plen]
if payload[:6] != b'\xfd7zXZ\x00':
    sys.exit('repack-kernel.py: %s: the payload is not xz' % src)
elf = lzma.decompress(payload[:-4], format=lzma.FORMAT_XZ)
if len(elf) != struct.unpack_from('<I', payload, plen - 4)[0] or elf[:4] != b'\x7fELF':
    sys.exit('repack-kernel.py: %s: the payload does not hold the ELF it claims' % src)
new = packimage.compress(fmt, elf)
head = bytearray(img[:off])
struct.pack_into('<I', head, 0x24c, len(new))
open(out, 'wb').write(bytes(head) + new)
