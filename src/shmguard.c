/* shmguard: allocate the blocks of SQLite's WAL index before it is touched
 * (see include/shmguard.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hexpost.h"
#include "shmguard.h"

/* A main database file opened through the guard: the -shm path. */
struct shmguard_file {
	sqlite3_file *f;
	char *shm;
};

static sqlite3_vfs shmguard_vfs;
static sqlite3_vfs *shmguard_real;
static sqlite3_io_methods shmguard_methods;
static const sqlite3_io_methods *shmguard_real_methods;
static pthread_mutex_t shmguard_mu = PTHREAD_MUTEX_INITIALIZER;
static struct shmguard_file *shmguard_files;
static size_t shmguard_nfiles;
static _Thread_local int shmguard_errno;

/* The -shm path of open file f (a copy the caller frees), or NULL. */
static char *
shmguard_path_of(sqlite3_file *f)
{
	char *p = NULL;
	size_t i;

	pthread_mutex_lock(&shmguard_mu);
	for (i = 0; i < shmguard_nfiles; i++)
		if (shmguard_files[i].f == f) {
			p = xstrdup(shmguard_files[i].shm);
			break;
		}
	pthread_mutex_unlock(&shmguard_mu);
	return p;
}

/* SQLite's own descriptor of the file at path: found among the process's
 * open descriptors by device and inode, never opened here (closing another
 * descriptor of the -shm file would drop SQLite's POSIX locks on it). -1
 * if none. */
static int
shmguard_fd_of(const char *path)
{
	struct stat want, sb;
	struct dirent *de;
	DIR *d;
	int fd = -1, n;

	if (stat(path, &want) == -1 || (d = opendir("/proc/self/fd")) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		n = atoi(de->d_name);
		if (n == dirfd(d) || fstat(n, &sb) == -1)
			continue;
		if (sb.st_dev == want.st_dev && sb.st_ino == want.st_ino &&
		    (fcntl(n, F_GETFL) & O_ACCMODE) == O_RDWR) {
			fd = n;
			break;
		}
	}
	closedir(d);
	return fd;
}

/* xShmMap: SQLite's, then every block of the region allocated; a full
 * disk is an error before anything touches the region. */
static int
shmguard_shm_map(sqlite3_file *f, int region, int size, int extend,
    void volatile **pp)
{
	char *shm;
	int rc, fd, e;

	rc = shmguard_real_methods->xShmMap(f, region, size, extend, pp);
	if (rc != SQLITE_OK || *pp == NULL)
		return rc;
	if ((shm = shmguard_path_of(f)) == NULL)
		return rc;
	fd = shmguard_fd_of(shm);
	free(shm);
	if (fd == -1)
		return rc;
	e = posix_fallocate(fd, (off_t)region * size, size);
	if (e == ENOSPC || e == EDQUOT) {
		/* SQLite keeps the pointer it is given even with an error
		 * (and touches it when it closes): it gets none. */
		*pp = NULL;
		shmguard_errno = e;
		return SQLITE_IOERR_SHMSIZE;
	}
	return rc;
}

/* xClose: forget the file, then SQLite's. */
static int
shmguard_close(sqlite3_file *f)
{
	size_t i;

	pthread_mutex_lock(&shmguard_mu);
	for (i = 0; i < shmguard_nfiles; i++)
		if (shmguard_files[i].f == f) {
			free(shmguard_files[i].shm);
			shmguard_files[i] = shmguard_files[--shmguard_nfiles];
			break;
		}
	pthread_mutex_unlock(&shmguard_mu);
	return shmguard_real_methods->xClose(f);
}

/* xOpen: SQLite's; a main database gets the guarded methods. */
static int
shmguard_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f,
    int flags, int *out)
{
	size_t n;
	int rc;

	(void)vfs;
	rc = shmguard_real->xOpen(shmguard_real, name, f, flags, out);
	if (rc != SQLITE_OK || name == NULL || !(flags & SQLITE_OPEN_MAIN_DB) ||
	    f->pMethods == NULL || f->pMethods->iVersion < 2)
		return rc;
	pthread_mutex_lock(&shmguard_mu);
	if (shmguard_real_methods == NULL) {
		shmguard_real_methods = f->pMethods;
		shmguard_methods = *f->pMethods;
		shmguard_methods.xShmMap = shmguard_shm_map;
		shmguard_methods.xClose = shmguard_close;
	}
	if (f->pMethods == shmguard_real_methods) {
		shmguard_files = xrealloc(shmguard_files, (shmguard_nfiles + 1) *
		    sizeof *shmguard_files);
		n = strlen(name) + 5;
		shmguard_files[shmguard_nfiles].f = f;
		shmguard_files[shmguard_nfiles].shm = xmalloc(n);
		snprintf(shmguard_files[shmguard_nfiles].shm, n, "%s-shm",
		    name);
		shmguard_nfiles++;
		f->pMethods = &shmguard_methods;
	}
	pthread_mutex_unlock(&shmguard_mu);
	return rc;
}

static int shmguard_rc = -1;
static pthread_once_t shmguard_once = PTHREAD_ONCE_INIT;

/* Register the VFS, once. */
static void
shmguard_init(void)
{
	if ((shmguard_real = sqlite3_vfs_find(NULL)) == NULL) {
		shmguard_rc = SQLITE_ERROR;
		return;
	}
	shmguard_vfs = *shmguard_real;
	shmguard_vfs.zName = "hexpost-shmguard";
	shmguard_vfs.pNext = NULL;
	shmguard_vfs.xOpen = shmguard_open;
	shmguard_rc = sqlite3_vfs_register(&shmguard_vfs, 1);
}

int
shmguard_register(void)
{
	pthread_once(&shmguard_once, shmguard_init);
	return shmguard_rc;
}

bool
shmguard_full(int *errnum)
{
	int e = shmguard_errno;

	shmguard_errno = 0;
	if (errnum != NULL)
		*errnum = e;
	return e != 0;
}
