# pvgrub32-hello/rules.mk (issue 19): PV GRUB i386-xen (Debian's grub-xen-bin) with hello-pv32's
# kernel in a ustar memdisk. GRUB starts as a 32-bit PAE PV guest, reads grub.cfg and loads the
# test guest through its own Xen PV loader (a second domain build inside the first domain's
# memory): a real 32-bit payload handed over by a real 32-bit PV bootloader.
# Expect: stock PASS on xen (hello-pv32's RESULT PASS); ours refuses 32-bit kernels until compat.
PVGRUB32_MODS := memdisk tar normal configfile echo test halt reboot ls cat minicmd linux
$(B)/pvgrub32-hello/kernel: $(B)/hello-pv32/kernel pvgrub32-hello/grub.cfg pvgrub32-hello/rules.mk
	@rm -rf $(@D)/md && mkdir -p $(@D)/md/boot/grub
	cp pvgrub32-hello/grub.cfg $(@D)/md/boot/grub/grub.cfg
	cp $(B)/hello-pv32/kernel $(@D)/md/boot/kernel
	cd $(@D)/md && find . -exec touch -h -d @0 {} + && \
		tar --format=ustar --owner=0 --group=0 --numeric-owner --sort=name -cf ../md.tar boot
	grub-mkimage -O i386-xen -d /usr/lib/grub/i386-xen -m $(@D)/md.tar -p '(memdisk)/boot/grub' \
		-o $@ $(PVGRUB32_MODS)
	@rm -rf $(@D)/md $(@D)/md.tar
all: $(B)/pvgrub32-hello/kernel
