/*
 * mmu-ptwr's 32-bit probe, made as lib/x86_32/probe.S makes its own (probe.h): one 4-byte store,
 * half of a PAE entry, its label at the store. lib's probe_write stores a 64-bit value as two
 * such stores under one label, at the first; a bad PAE entry whose high half alone is fine is
 * refused at the second, so the test stores the halves one probe each.
 */
	.text
	.code32

/* bool probe_store32(void *p, uint32_t val) */
	.globl probe_store32
probe_store32:
	movl	$.Lfail_store32, probe_fixup
	mov	4(%esp), %eax
	mov	8(%esp), %ecx
	.globl probe_insn_store32
probe_insn_store32:
	mov	%ecx, (%eax)
	movl	$0, probe_fixup
	mov	$1, %eax
	ret
.Lfail_store32:
	movl	$0, probe_fixup
	xor	%eax, %eax
	ret
