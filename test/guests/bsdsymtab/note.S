/* note.S: XEN_ELFNOTE_BSD_SYMTAB = "yes" (a string note: libelf loads the tables only for "yes"). */
#include "elfnote.h"

XEN_NOTE XEN_ELFNOTE_BSD_SYMTAB, .asciz "yes"
