#!/bin/sh
# mkseeds.sh OUT_DIR GUESTS_DIR: seed corpus for fuzz_image: the test guests' kernels (ELF), the
# same gzip'ed and xz'ed (--x86, as Linux does), bzImage wrappers around both payloads, and hello's
# kernel in the other formats Linux builds (raw and in a bzImage).
set -eu
out=$1 guests=$2
mkdir -p "$out"
bz() { # bz PAYLOAD: a minimal bzImage (boot protocol 2.15: setup 2 sectors, payload at 1024)
	python3 - "$1" <<'PY'
import struct, sys
p = open(sys.argv[1], 'rb').read()
img = bytearray(1024)
img[0x1f1] = 1
img[0x202:0x206] = b'HdrS'
img[0x206:0x208] = struct.pack('<H', 0x020f)
img[0x248:0x24c] = struct.pack('<I', 0)
img[0x24c:0x250] = struct.pack('<I', len(p))
sys.stdout.buffer.write(bytes(img) + p)
PY
}
for k in "$guests"/*/kernel; do
	[ -f "$k" ] || continue
	n=$(basename "$(dirname "$k")")
	cp "$k" "$out/$n.elf"
	gzip -9 -n -c "$k" > "$out/$n.gz"
	{ xz --format=xz --check=crc32 --x86 --lzma2=dict=1MiB -c "$k"; python3 -c "import os,struct,sys; sys.stdout.buffer.write(struct.pack('<I', os.path.getsize('$k')))"; } > "$out/$n.xzs"
	bz "$out/$n.gz" > "$out/$n.bz-gz"
	bz "$out/$n.xzs" > "$out/$n.bz-xz"
	xz --format=xz --check=crc32 -c "$k" > "$out/$n.xz"
	rm -f "$out/$n.xzs"
done
# the other formats Linux builds, around one small kernel (each with the size a kernel build appends)
k=$guests/hello/kernel
for f in "bzip2 -9:bz2" "lzop -9:lzo" "zstd -19 -q:zst" "lz4 -l -9:lz4" "lzma -9:lzma"; do
	cmd=${f%%:*} ext=${f##*:}
	{ $cmd -c < "$k"; python3 -c "import os,struct,sys; sys.stdout.buffer.write(struct.pack('<I', os.path.getsize('$k')))"; } > "$out/hello.$ext"
	bz "$out/hello.$ext" > "$out/hello.bz-$ext"
done
