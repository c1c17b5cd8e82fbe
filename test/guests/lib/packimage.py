#!/usr/bin/env python3
"""packimage.py FORMAT GOOD_KERNEL OUT: a good PV kernel as a Linux bzImage, its ELF compressed
with FORMAT (gzip, bzip2, lzma, xz, lzo, lz4 or zstd) as the kernel build does it: the payload is the compressed ELF and
the 4-byte little-endian size of the ELF after it (size_append); the setup header's
payload_offset and payload_length point at it (x86 boot protocol 2.08+). Only what a PV loader
reads is filled in: a loader that runs the real decompressor stub has none here.

Each image-FORMAT test directory (image.txt) names one: the guest inside is hello, so the image
passes where hello passes, and the loader's report says which payload it unpacked.
"""
import bz2, gzip, lzma, struct, subprocess, sys


def compress(fmt, elf):
    """The payload as the kernel build makes it: FORMAT's stream, then the ELF's size (LE32)."""
    if fmt == 'gzip':
        payload = gzip.compress(elf, 9, mtime=0)
    elif fmt == 'xz':
        payload = lzma.compress(elf, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32,
                                filters=[{'id': lzma.FILTER_X86}, {'id': lzma.FILTER_LZMA2, 'preset': 9}])
    elif fmt == 'lzma':
        payload = lzma.compress(elf, format=lzma.FORMAT_ALONE, preset=9)
    elif fmt == 'lz4':
        payload = subprocess.run(['lz4', '-l', '-9', '-c', '-q'], input=elf, stdout=subprocess.PIPE,
                                 check=True).stdout
    elif fmt == 'bzip2':
        payload = bz2.compress(elf, 9)
    elif fmt == 'lzo':
        payload = subprocess.run(['lzop', '-9', '-c', '-q'], input=elf, stdout=subprocess.PIPE, check=True).stdout
    elif fmt == 'zstd':
        payload = subprocess.run(['zstd', '--ultra', '-22', '-c', '-q'], input=elf, stdout=subprocess.PIPE,
                                 check=True).stdout
    else:
        sys.exit('packimage.py: unknown format ' + fmt)
    return payload + struct.pack('<I', len(elf))


def wrap(payload):
    """A minimal bzImage around payload: only what a PV loader reads."""
    setup = bytearray(1024)
    setup[0x1f1] = 1                    # setup sectors: 1 (+ the boot sector): the payload at 1024
    setup[0x202:0x206] = b'HdrS'
    struct.pack_into('<H', setup, 0x206, 0x020f)
    struct.pack_into('<I', setup, 0x248, 0)
    struct.pack_into('<I', setup, 0x24c, len(payload))
    return bytes(setup) + payload


if __name__ == '__main__':
    fmt, src, out = sys.argv[1:4]
    open(out, 'wb').write(wrap(compress(fmt, open(src, 'rb').read())))
