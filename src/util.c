/* util: fatal errors, memory, string buffers, durable file writes. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hexpost.h"

int
hp_exit_code(int rc)
{
	switch (rc) {
	case HP_OK:
		return 0;
	case HP_EINVAL:
		return HP_EX_DATAERR;
	case HP_ENOENT:
		return HP_EX_NOINPUT;
	case HP_ESTATE:
	case HP_EBUSY:
		return HP_EX_TEMPFAIL;
	case HP_EIO:
		return HP_EX_IOERR;
	default:
		return HP_EX_SOFTWARE;
	}
}

void
hp_seterr(struct hp_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (e == NULL)
		return;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	fprintf(stderr, "hexpost: fatal: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(saved));
	abort();
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hexpost: fatal: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		fatal("malloc %zu", n);
	return p;
}

void *
xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (p == NULL)
		fatal("calloc %zu", n * sz);
	return p;
}

void *
xrealloc(void *o, size_t n)
{
	void *p = realloc(o, n ? n : 1);

	if (p == NULL)
		fatal("realloc %zu", n);
	return p;
}

char *
xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		fatal("strdup");
	return p;
}

size_t
strlcpy_(char *dst, const char *src, size_t dsz)
{
	size_t n = strlen(src);

	if (dsz != 0) {
		size_t c = n >= dsz ? dsz - 1 : n;
		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}

void
sbuf_init(struct sbuf *b)
{
	b->buf = NULL;
	b->len = 0;
	b->cap = 0;
	b->discard = false;
}

static void
sbuf_grow(struct sbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;

	if (b->len + need + 1 <= b->cap)
		return;
	while (cap < b->len + need + 1)
		cap *= 2;
	b->buf = xrealloc(b->buf, cap);
	b->cap = cap;
}

void
sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->discard)
		return;
	sbuf_grow(b, n);
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void
sbuf_puts(struct sbuf *b, const char *s)
{
	sbuf_add(b, s, strlen(s));
}

void
sbuf_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->discard)
		return;
	/* Format once into the room there is (most text fits); only when
	 * it does not, grow and format again. */
	sbuf_grow(b, 0);
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatalx("sbuf_printf: bad format");
	if ((size_t)n >= b->cap - b->len) {
		sbuf_grow(b, (size_t)n);
		va_start(ap, fmt);
		vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

char *
sbuf_steal(struct sbuf *b)
{
	char *p;

	if (b->buf == NULL)
		return xstrdup("");
	p = b->buf;
	sbuf_init(b);
	return p;
}

void
sbuf_free(struct sbuf *b)
{
	free(b->buf);
	sbuf_init(b);
}

char *
util_read_file(const char *path, size_t *lenp, struct hp_error *err)
{
	FILE *f;
	struct sbuf b;
	char chunk[8192];
	size_t n;

	if ((f = fopen(path, "rb")) == NULL) {
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		return NULL;
	}
	sbuf_init(&b);
	sbuf_add(&b, "", 0);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sbuf_add(&b, chunk, n);
	if (ferror(f)) {
		hp_seterr(err, HP_EIO, "%s: read error", path);
		fclose(f);
		sbuf_free(&b);
		return NULL;
	}
	fclose(f);
	if (lenp != NULL)
		*lenp = b.len;
	return sbuf_steal(&b);
}

/* Read the file path, opened once without following a symlink, into a
 * NUL-terminated string the caller frees; *sb is fstat of that descriptor,
 * so checks on it are checks on what was read. */
char *
util_read_file_nofollow(const char *path, struct stat *sb, size_t *lenp,
    struct hp_error *err)
{
	struct sbuf b;
	char chunk[8192];
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		if (errno == ELOOP)
			hp_seterr(err, HP_EIO, "%s: a symbolic link (refused: "
			    "name the file itself)", path);
		else
			hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, sb) == -1 || !S_ISREG(sb->st_mode)) {
		hp_seterr(err, HP_EIO, "%s: %s", path, S_ISREG(sb->st_mode) ?
		    strerror(errno) : "not a regular file");
		close(fd);
		return NULL;
	}
	sbuf_init(&b);
	sbuf_add(&b, "", 0);
	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sbuf_add(&b, chunk, (size_t)n);
	}
	if (n < 0) {
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		close(fd);
		sodium_memzero(b.buf, b.len);
		sbuf_free(&b);
		return NULL;
	}
	close(fd);
	if (lenp != NULL)
		*lenp = b.len;
	return sbuf_steal(&b);
}

/* Check that dir (the data directory) is a directory only the running
 * user (or root) owns and nobody else may write: another user who could
 * write there could replace the database or plant its WAL. */
int
util_check_private_dir(const char *dir, struct hp_error *err)
{
	struct stat sb;

	if (stat(dir, &sb) == -1) {
		hp_seterr(err, HP_EIO, "data directory %s: %s", dir,
		    strerror(errno));
		return HP_EIO;
	}
	if (!S_ISDIR(sb.st_mode)) {
		hp_seterr(err, HP_EINVAL, "data directory %s: not a directory",
		    dir);
		return HP_EINVAL;
	}
	if ((sb.st_mode & 022) != 0) {
		hp_seterr(err, HP_EINVAL, "data directory %s is writable by "
		    "%s (mode %04o): refusing to run there; fix it with "
		    "'chmod go-w %s' (or chmod 700)", dir, (sb.st_mode & 002) ?
		    "others" : "its group", (unsigned)(sb.st_mode & 07777), dir);
		return HP_EINVAL;
	}
	if (sb.st_uid != geteuid() && sb.st_uid != 0) {
		hp_seterr(err, HP_EINVAL, "data directory %s is owned by uid %u, "
		    "not by the user running hexpost (uid %u): refusing to run "
		    "there; fix it with 'chown' or run as its owner", dir,
		    (unsigned)sb.st_uid, (unsigned)geteuid());
		return HP_EINVAL;
	}
	return HP_OK;
}

/* Write data to path durably and atomically: a temporary file with a
 * random name in path's directory, created exclusively without following
 * symlinks, its mode set on the descriptor (a planted file cannot keep its
 * own), written, fsync'ed, renamed over path relative to the opened
 * directory, and the directory fsync'ed. */
int
util_write_file_atomic(const char *path, const void *data, size_t len,
    int mode, struct hp_error *err)
{
	char *dcopy = NULL, *bcopy = NULL, tmp[NAME_MAX + 1];
	const char *p = data, *dir, *base;
	unsigned char rnd[12];
	int fd = -1, dfd = -1, rc = HP_EIO, tries;
	size_t off = 0, i;
	bool made = false;

	dcopy = xstrdup(path);
	bcopy = xstrdup(path);
	dir = dirname(dcopy);
	base = basename(bcopy);
	if (*base == '\0' || strcmp(base, "/") == 0 || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0 || strlen(base) > NAME_MAX - 32) {
		hp_seterr(err, HP_EINVAL, "%s: not a file name", path);
		rc = HP_EINVAL;
		goto out;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", dir, strerror(errno));
		goto out;
	}
	for (tries = 0; tries < 16; tries++) {
		randombytes_buf(rnd, sizeof rnd);
		i = (size_t)snprintf(tmp, sizeof tmp, ".%s.tmp.", base);
		sodium_bin2hex(tmp + i, sizeof tmp - i, rnd, sizeof rnd);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd != -1 || errno != EEXIST)
			break;
	}
	if (fd == -1) {
		hp_seterr(err, HP_EIO, "%s/%s: %s", dir, tmp, strerror(errno));
		goto out;
	}
	made = true;
	if (fchmod(fd, (mode_t)mode) == -1) {
		hp_seterr(err, HP_EIO, "%s/%s: %s", dir, tmp, strerror(errno));
		goto out;
	}
	while (off < len) {
		ssize_t w = write(fd, p + off, len - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			hp_seterr(err, HP_EIO, "%s/%s: %s", dir, tmp,
			    strerror(errno));
			goto out;
		}
		off += (size_t)w;
	}
	if (fsync(fd) == -1 || close(fd) == -1) {
		fd = -1;
		hp_seterr(err, HP_EIO, "%s/%s: %s", dir, tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (renameat(dfd, tmp, dfd, base) == -1) {
		hp_seterr(err, HP_EIO, "rename %s: %s", path, strerror(errno));
		goto out;
	}
	made = false;
	if (fsync(dfd) == -1 && errno != EINVAL) {
		hp_seterr(err, HP_EIO, "%s: %s", dir, strerror(errno));
		goto out;
	}
	rc = HP_OK;
out:
	if (fd != -1)
		close(fd);
	if (made)
		(void)unlinkat(dfd, tmp, 0);
	if (dfd != -1)
		close(dfd);
	free(dcopy);
	free(bcopy);
	return rc;
}

bool
util_field(const char **p, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *e;

	if (strncmp(*p, key, kl) != 0 || (*p)[kl] != ':' || (*p)[kl + 1] != ' ')
		return false;
	*p += kl + 2;
	if ((e = strchr(*p, '\n')) == NULL || (size_t)(e - *p) >= len)
		return false;
	memcpy(buf, *p, (size_t)(e - *p));
	buf[e - *p] = '\0';
	*p = e + 1;
	return true;
}
