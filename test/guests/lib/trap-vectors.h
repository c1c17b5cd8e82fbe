/*
 * trap-vectors.h (assembly only): the exception vectors every test guest handles, as TRAP lines
 * (vector, and 1 where the CPU pushes an error code); each entry.S defines TRAP for its frame
 * and includes this. traps.c's table lists the same vectors.
 */
TRAP 0
TRAP 1
TRAP 2
TRAP 3
TRAP 4
TRAP 5
TRAP 6
TRAP 7
TRAP 8, 1
TRAP 10, 1
TRAP 11, 1
TRAP 12, 1
TRAP 13, 1
TRAP 14, 1
TRAP 16
TRAP 17, 1
TRAP 18
TRAP 19
TRAP 20
TRAP 21, 1
