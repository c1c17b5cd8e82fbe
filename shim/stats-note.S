/* stats-note.S: ELF notes telling a host tool this image's build and where its stats page is
 * (include/public/pvshim-stats.h). Assembly, because the note holds a link-time address. */
#include "pvshim-stats.h"
#include "shim/config.h"
#include "version.h"

    .section .note.Xen, "a", @note
    .balign 4
    .long 7, 2f - 1f, PVSHIM_ELFNOTE_BUILD
    .asciz PVSHIM_ELFNOTE_NAME
    .balign 4
1:  .ascii "pvshim "
    .asciz PVSHIM_VERSION
2:  .balign 4

    .long 7, 16, PVSHIM_ELFNOTE_STATS
    .asciz PVSHIM_ELFNOTE_NAME
    .balign 4
    .quad pvshim_stats - IMAGE_VOFFSET
    .long PVSHIM_STATS_SIZE, PVSHIM_STATS_VERSION

    .section .note.GNU-stack, "", @progbits
