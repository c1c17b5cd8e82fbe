/* x86_32/note.S: the 32-bit build's note, the same string. */
#include "../note.S"
