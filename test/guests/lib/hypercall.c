/* hypercall.c: issue a hypercall through the current path (see hypercall.h). */
#include "guest.h"

/* Weak: resolves to NULL unless a test linked hcpage.o in. */
extern char hypercall_page[] __attribute__((weak));

static enum hc_path path = HC_SYSCALL;

bool hypercall_page_present(void)
{
	return hypercall_page != NULL;
}

bool hypercall_set_path(enum hc_path p)
{
	if (p == HC_PAGE && !hypercall_page_present())
		return false;
	path = p;
	return true;
}

enum hc_path hypercall_get_path(void)
{
	return path;
}

const char *hypercall_path_name(enum hc_path p)
{
#ifdef __i386__
	return p == HC_PAGE ? "hypercall page" : "int 0x82";
#else
	return p == HC_PAGE ? "hypercall page" : "syscall";
#endif
}

#ifdef __i386__
/*
 * The 32-bit build (x86_32/): the direct path is the hypercall gate, int 0x82, with eax = number
 * and the arguments in ebx, ecx, edx, esi, edi; a page stub does the same. All are in/out, as
 * below.
 */
long hypercall(unsigned int nr, unsigned long a1, unsigned long a2, unsigned long a3,
	       unsigned long a4, unsigned long a5)
{
	long eax = nr;

	if (path == HC_PAGE) {
		if (nr >= 4096 / 32)
			return -XEN_ENOSYS;
		void *stub = hypercall_page + nr * 32;

		__asm__ volatile("call *%[stub]"
				 : "+a"(eax), "+b"(a1), "+c"(a2), "+d"(a3), "+S"(a4), "+D"(a5)
				 : [stub] "m"(stub)
				 : "memory", "cc");
	} else {
		__asm__ volatile("int $0x82"
				 : "+a"(eax), "+b"(a1), "+c"(a2), "+d"(a3), "+S"(a4), "+D"(a5)
				 :
				 : "memory", "cc");
	}
	return eax;
}
#else
/*
 * All argument registers are in/out: Xen may change them (continuations, and debug builds
 * scribble over the ones a hypercall does not use). rcx/r11 go to syscall.
 */
long hypercall(unsigned int nr, unsigned long a1, unsigned long a2, unsigned long a3,
	       unsigned long a4, unsigned long a5)
{
	register unsigned long r10 __asm__("r10") = a4;
	register unsigned long r8 __asm__("r8") = a5;
	long rax = nr;

	if (path == HC_PAGE) {
		if (nr >= 4096 / 32)	/* no stub for it in the page */
			return -XEN_ENOSYS;
		void *stub = hypercall_page + nr * 32;

		__asm__ volatile("call *%[stub]"
				 : "+a"(rax), "+D"(a1), "+S"(a2), "+d"(a3), "+r"(r10), "+r"(r8)
				 : [stub] "r"(stub)
				 : "rcx", "r9", "r11", "memory", "cc");
	} else {
		__asm__ volatile("syscall"
				 : "+a"(rax), "+D"(a1), "+S"(a2), "+d"(a3), "+r"(r10), "+r"(r8)
				 :
				 : "rcx", "r11", "memory", "cc");
	}
	return rax;
}
#endif
