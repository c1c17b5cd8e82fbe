/*
 * elfnote.h (assembly only): XEN_NOTE type, desc... emits one "Xen" ELF note into .note.Xen,
 * the section the linker script also exposes as PT_NOTE. desc is the directive(s) for the payload.
 */
#ifndef GUEST_ELFNOTE_H
#define GUEST_ELFNOTE_H

#include <xen/elfnote.h>

.macro XEN_NOTE type:req, desc:vararg
	.pushsection .note.Xen, "a", @note
	.balign 4
	.long .Lname_end\@ - .Lname\@
	.long .Ldesc_end\@ - .Ldesc\@
	.long \type
.Lname\@:
	.asciz "Xen"
.Lname_end\@:
	.balign 4
.Ldesc\@:
	\desc
.Ldesc_end\@:
	.balign 4
	.popsection
.endm

#endif
