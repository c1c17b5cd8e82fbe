# badimage-symtab is made from bsdsymtab's kernel (the one that asks for BSD_SYMTAB), not hello's.
$(B)/badimage-symtab/kernel: $(B)/bsdsymtab/kernel lib/badimage.py
	@mkdir -p $(@D)
	python3 lib/badimage.py symtab $< $@
