#!/bin/sh
# mkseeds-insn.sh OUT_DIR: seed corpus for fuzz_insn: each store form the decoder accepts, as the
# assembler encodes it, with registers shaped so the operand lands in mappable memory and the
# fuzzer starts from native runs (input layout: fuzz_insn.c).
set -eu
out=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
i=0
while IFS= read -r insn; do
	[ -n "$insn" ] || continue
	i=$((i + 1))
	printf '%s\n' "$insn" | as -o "$tmp/o" -
	objcopy -O binary -j .text "$tmp/o" "$tmp/bin"
	python3 - "$tmp/bin" "$out/seed-$i" <<'PY'
import struct, sys
code = open(sys.argv[1], 'rb').read()
regs = b''
for r in range(16):
    # rbx rsp rbp rsi rdi r8 r12 r13 point into high memory (shape 3), the rest are small (shape 1)
    shape = 3 if r in (3, 4, 5, 6, 7, 8, 12, 13) else 1
    regs += bytes([shape]) + struct.pack('<Q', 0x12345640 + r * 0x10208)
tail = struct.pack('<Q', 0x8d5) + bytes([1]) + struct.pack('<Q', 0x0123456789abcdef)
open(sys.argv[2], 'wb').write(bytes([len(code)]) + code + regs + tail)
PY
done <<'ASM'
mov %al,(%rbx)
mov %ah,0x12(%rsi)
mov %r9,-8(%r13)
mov %rax,8(%rsp)
mov %rax,(%rbx,%r12,8)
mov %eax,0x10000(%rip)
movq $-2,0x8(%rbx)
movw $0x8001,(%rbx)
mov %eax,(%ebx)
mov %eax,%gs:0x10(%rcx)
lock xchg %rax,(%rbx)
xchg %bh,(%rsi)
lock cmpxchg %rdx,(%rbx)
lock cmpxchg %cl,(%rdi)
lock cmpxchg8b (%rsi)
lock cmpxchg16b (%rsi)
lock andb $0xfd,(%rbx)
lock orq $2,(%rbx)
xorl $0x80000000,(%rdi)
lock and %r14,(%rbx)
or %ch,(%rbx)
lock btsq $63,(%rbx)
btrl $3,(%rsi)
lock btr %rcx,(%rbx)
btc %dx,(%rsi)
ASM
