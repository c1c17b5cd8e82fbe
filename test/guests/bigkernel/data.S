/* data.S: bigkernel's 76 MiB of initialized data (the blob mkblob.py writes; see rules.mk). */
	.section .data.big, "aw", @progbits
	.balign 4096
	.globl big_data, big_data_end
big_data:
	.incbin "blob"
big_data_end:
