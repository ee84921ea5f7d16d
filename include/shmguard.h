/* shmguard: a full disk fails SQLite with an error, not a bus error (issue
 * 21, item 2). In WAL mode SQLite maps the -shm file (the WAL index) into
 * memory; it extends that file by writing the last byte of each 4 KB page,
 * so on a file system with smaller blocks (ext4 with 1 KB blocks) the rest
 * of each page stays a hole, and the first store into it, once the disk is
 * full, is a SIGBUS that kills the process with no message. shmguard is a
 * VFS over SQLite's default one whose xShmMap allocates every block of each
 * mapped region (posix_fallocate on SQLite's own descriptor of the -shm
 * file) before SQLite touches it, and returns SQLITE_IOERR_SHMSIZE when the
 * disk is full, so the statement fails with an error hexpost reports. */
#ifndef SHMGUARD_H
#define SHMGUARD_H

#include <stdbool.h>

/* Register the guard as SQLite's default VFS (once; later calls do
 * nothing). 0 on success, else an SQLite error code. */
int shmguard_register(void);
/* Did the last guarded mapping in this thread fail for want of space?
 * Cleared by the call. */
bool shmguard_full(int *errnum);

#endif
