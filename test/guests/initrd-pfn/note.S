/* note.S: XEN_ELFNOTE_MOD_START_PFN = 1: "give me the module as a pfn, don't map it". */
#include "elfnote.h"

XEN_NOTE XEN_ELFNOTE_MOD_START_PFN, .long 1
