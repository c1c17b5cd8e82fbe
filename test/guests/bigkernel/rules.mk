# bigkernel/rules.mk: the 76 MiB blob data.S includes, made at build time (not kept in git).
# The blob and data.S.o are as big as the kernel: make deletes them once the kernel is linked.
BIG_PAGES := 19456
$(B)/bigkernel/blob: bigkernel/mkblob.py bigkernel/rules.mk
	@mkdir -p $(@D)
	python3 bigkernel/mkblob.py $(BIG_PAGES) $@
$(B)/bigkernel/data.S.o: $(B)/bigkernel/blob
$(B)/bigkernel/data.S.o: ASFLAGS += -Wa,-I$(B)/bigkernel
.INTERMEDIATE: $(B)/bigkernel/blob $(B)/bigkernel/data.S.o
