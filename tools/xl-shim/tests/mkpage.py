#!/usr/bin/env python3
"""mkpage.py: stats pages for xl-shim's host tests (layout: include/public/pvshim-stats.h).

  mkpage.py OUT good|live|badmagic|badversion|torn|short   a made-up page of that kind
  mkpage.py OUT --from-image SHIM                       the page as the shim image holds it,
                                                        found through its "pvshim" ELF note
"""
import struct
import sys

MAGIC = 0x5441545348535650
SIZE = 4096


def made_up(kind):
    p = bytearray(SIZE)
    struct.pack_into("<QII48s", p, 0, MAGIC if kind != "badmagic" else 0x1234, 2 if kind == "badversion" else 1,
                     SIZE, b"pvshim test-build")
    gen = 7 if kind == "torn" else 6
    # generation, snapshots, uptime, flags (FINAL), reason (poweroff), cpus, interval, l0
    flags = 0 if kind == "live" else 1                  # FINAL
    struct.pack_into("<QQQIIII16s", p, 64, gen, 3, 2_345_678_901, flags, 0, 2, 1000, b"xen")
    hc = [0] * 64
    hc[1], hc[17], hc[18], hc[29] = 4, 9, 12, 1         # mmu_update, xen_version, console_io, sched_op
    struct.pack_into("<Q64Q", p, 128, sum(hc), *hc)
    struct.pack_into("<QQ", p, 648, 5, 6)               # bounces, emulated
    l0 = [0] * 64
    l0[12], l0[34] = 20, 3                              # memory_op, hvm_op
    struct.pack_into("<Q64Q", p, 664, sum(l0), *l0)
    struct.pack_into("<7Q", p, 1184, 8, 0, 0, 0, 0, 2, 0)   # ipis .. pt_validations
    return bytes(p[:100] if kind == "short" else p)


def from_image(path):
    b = open(path, "rb").read()
    phoff, = struct.unpack_from("<Q", b, 32)
    phnum, = struct.unpack_from("<H", b, 56)
    phs = [struct.unpack_from("<IIQQQQQQ", b, phoff + 56 * i) for i in range(phnum)]
    paddr = None
    for t, _, off, _, _, fsz, _, _ in phs:
        if t != 4:                                      # PT_NOTE
            continue
        o = off
        while o + 12 <= off + fsz:
            nsz, dsz, typ = struct.unpack_from("<III", b, o)
            name = b[o + 12:o + 12 + nsz - 1]
            d = o + 12 + ((nsz + 3) & ~3)
            if name == b"pvshim" and typ == 2:
                paddr, = struct.unpack_from("<Q", b, d)
            o = d + ((dsz + 3) & ~3)
    if paddr is None:
        sys.exit("no pvshim stats note in " + path)
    for t, _, off, _, pa, fsz, _, _ in phs:
        if t == 1 and pa <= paddr and paddr + SIZE <= pa + fsz:   # PT_LOAD holding it
            return b[off + paddr - pa:off + paddr - pa + SIZE]
    sys.exit("the stats page of %s is not in its loaded data" % path)


if __name__ == "__main__":
    out, kind = sys.argv[1], sys.argv[2]
    data = from_image(sys.argv[3]) if kind == "--from-image" else made_up(kind)
    open(out, "wb").write(data)
