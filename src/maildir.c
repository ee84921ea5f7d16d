/* maildir: the Maildir format, with Dovecot's ":2,<flags>" names (see
 * include/maildir.h). */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hexpost.h"
#include "maildir.h"

#define HINT_MAX 200

/* Deliveries made by this process: the Q part of unique names. */
static atomic_ulong deliveries;

/* A set of flag characters, indexed by byte value. */
struct flagset {
	bool on[256];
};

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool
valid_flag(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Is s usable as a file name in new/ or cur/ (one component, not hidden)? */
static bool
valid_name(const char *s)
{
	return s != NULL && s[0] != '\0' && s[0] != '.' &&
	    strchr(s, '/') == NULL;
}

/* Is s usable as the unique part of a message name? */
static bool
valid_hint(const char *s)
{
	const unsigned char *p;

	if (!valid_name(s) || strlen(s) > HINT_MAX)
		return false;
	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if (*p == ':' || *p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* dir/sub/name (name may be NULL: dir/sub), without doubled slashes after
 * dir. Caller frees. */
static char *
mkpath(const char *dir, const char *sub, const char *name)
{
	struct sbuf b;
	size_t dl = strlen(dir);

	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	sbuf_init(&b);
	sbuf_add(&b, dir, dl);
	if (!(dl == 1 && dir[0] == '/'))
		sbuf_puts(&b, "/");
	sbuf_puts(&b, sub);
	if (name != NULL) {
		sbuf_puts(&b, "/");
		sbuf_puts(&b, name);
	}
	return sbuf_steal(&b);
}

/* Split a message name into the length of its unique part (up to the first
 * ':') and the flags of a ":2," info part, if any. */
static size_t
parse_name(const char *name, struct flagset *fs)
{
	const char *colon = strchr(name, ':');
	const unsigned char *p;

	memset(fs, 0, sizeof *fs);
	if (colon == NULL)
		return strlen(name);
	if (strncmp(colon, ":2,", 3) == 0)
		for (p = (const unsigned char *)colon + 3; *p != '\0'; p++)
			fs->on[*p] = true;
	return (size_t)(colon - name);
}

/* Write the set's flags in ASCII order into buf (truncated to fit). */
static void
flags_string(const struct flagset *fs, char *buf, size_t sz)
{
	size_t i, n = 0;

	for (i = 1; i < 256 && n + 1 < sz; i++)
		if (fs->on[i])
			buf[n++] = (char)i;
	if (sz > 0)
		buf[n] = '\0';
}

/* Compare the unique parts of two names (up to ':' or the end), runs of
 * digits as numbers so that delivery times and counters sort in order. */
static int
name_cmp(const char *a, const char *b)
{
	const char *za, *zb, *ea, *eb;
	int c;

	for (;;) {
		char ca = *a == ':' ? '\0' : *a;
		char cb = *b == ':' ? '\0' : *b;

		if (ca == '\0' || cb == '\0')
			return (unsigned char)ca - (unsigned char)cb;
		if (is_digit(ca) && is_digit(cb)) {
			for (za = a; *za == '0'; za++)
				;
			for (ea = za; is_digit(*ea); ea++)
				;
			for (zb = b; *zb == '0'; zb++)
				;
			for (eb = zb; is_digit(*eb); eb++)
				;
			if (ea - za != eb - zb)
				return ea - za < eb - zb ? -1 : 1;
			if ((c = memcmp(za, zb, (size_t)(ea - za))) != 0)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (ca != cb)
			return (unsigned char)ca - (unsigned char)cb;
		a++;
		b++;
	}
}

static int
entry_cmp(const void *va, const void *vb)
{
	const struct maildir_entry *a = va, *b = vb;
	int c;

	if ((c = name_cmp(a->name, b->name)) != 0)
		return c;
	if ((c = strcmp(a->name, b->name)) != 0)
		return c;
	return (int)b->in_new - (int)a->in_new;
}

/* Is name in the directory open as dfd a regular file (symbolic links are
 * not)? 1 yes, 0 no or gone, -1 error (errno set). */
static int
is_regular(int dfd, const struct dirent *de)
{
	struct stat st;

#ifdef DT_REG
	if (de->d_type == DT_REG)
		return 1;
	if (de->d_type != DT_UNKNOWN)
		return 0;
#endif
	if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -1;
	return S_ISREG(st.st_mode) ? 1 : 0;
}

static int
fsync_retry(int fd)
{
	int r;

	while ((r = fsync(fd)) == -1 && errno == EINTR)
		;
	return r;
}

/* Make a directory's entries (renames, creations) durable. */
static int
fsync_dir(const char *path, struct hp_error *err)
{
	int fd, r, saved;

	while ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 &&
	    errno == EINTR)
		;
	if (fd == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		return HP_EIO;
	}
	r = fsync_retry(fd);
	saved = errno;
	close(fd);
	/* EINVAL: the file system cannot sync directories. */
	if (r == -1 && saved != EINVAL) {
		hp_seterr(err, HP_EIO, "fsync %s: %s", path, strerror(saved));
		return HP_EIO;
	}
	return HP_OK;
}

/* mkdir path (0700) unless it already is a directory. */
static int
mkdir_one(const char *path, struct hp_error *err)
{
	struct stat st;

	if (mkdir(path, 0700) == 0)
		return HP_OK;
	if (errno != EEXIST) {
		hp_seterr(err, HP_EIO, "mkdir %s: %s", path, strerror(errno));
		return HP_EIO;
	}
	if (stat(path, &st) == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		return HP_EIO;
	}
	if (!S_ISDIR(st.st_mode)) {
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(ENOTDIR));
		return HP_EIO;
	}
	return HP_OK;
}

int
maildir_create(const char *dir, struct hp_error *err)
{
	static const char *subs[] = { "tmp", "new", "cur" };
	char *p;
	size_t i;
	int rc;

	if (dir == NULL || dir[0] == '\0') {
		hp_seterr(err, HP_EINVAL, "maildir: empty directory name");
		return HP_EINVAL;
	}
	if ((rc = mkdir_one(dir, err)) != HP_OK)
		return rc;
	for (i = 0; i < sizeof subs / sizeof subs[0]; i++) {
		p = mkpath(dir, subs[i], NULL);
		rc = mkdir_one(p, err);
		free(p);
		if (rc != HP_OK)
			return rc;
	}
	return HP_OK;
}

/* Add the messages of dir/sub to *v (*n used, *cap allocated): all regular
 * non-dot files, except in cur/ those whose flags hold flagchar (if
 * flagged, only those). */
static int
scan(const char *dir, const char *sub, char flagchar, bool flagged,
    struct maildir_entry **v, size_t *n, size_t *cap, struct hp_error *err)
{
	struct maildir_entry *e;
	struct dirent *de;
	struct flagset fs;
	char *path;
	DIR *d;
	bool in_new = strcmp(sub, "new") == 0;
	int r, rc = HP_EIO;

	path = mkpath(dir, sub, NULL);
	if ((d = opendir(path)) == NULL) {
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		free(path);
		return HP_EIO;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno != 0) {
				hp_seterr(err, HP_EIO, "%s: %s", path,
				    strerror(errno));
				goto out;
			}
			break;
		}
		if (de->d_name[0] == '.')
			continue;
		if ((r = is_regular(dirfd(d), de)) == -1) {
			hp_seterr(err, HP_EIO, "%s/%s: %s", path, de->d_name,
			    strerror(errno));
			goto out;
		}
		if (r == 0) {
			log_info("%s/%s: skipped: not a regular file (a "
			    "symbolic link, FIFO or directory)", path,
			    de->d_name);
			continue;
		}
		parse_name(de->d_name, &fs);
		if (in_new)
			memset(&fs, 0, sizeof fs);
		else if (fs.on[(unsigned char)flagchar] != flagged)
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 16;
			*v = xrealloc(*v, *cap * sizeof **v);
		}
		e = &(*v)[(*n)++];
		e->name = xstrdup(de->d_name);
		e->path = mkpath(dir, sub, de->d_name);
		e->in_new = in_new;
		flags_string(&fs, e->flags, sizeof e->flags);
	}
	rc = HP_OK;
out:
	closedir(d);
	free(path);
	return rc;
}

int
maildir_list(const char *dir, char flagchar, struct maildir_entry **out,
    size_t *n, struct hp_error *err)
{
	struct maildir_entry *v = NULL;
	size_t nv = 0, cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!valid_flag(flagchar)) {
		hp_seterr(err, HP_EINVAL, "maildir: bad flag 0x%02x",
		    (unsigned char)flagchar);
		return HP_EINVAL;
	}
	if ((rc = scan(dir, "new", flagchar, false, &v, &nv, &cap, err)) !=
	    HP_OK || (rc = scan(dir, "cur", flagchar, false, &v, &nv, &cap,
	    err)) != HP_OK) {
		maildir_list_free(v, nv);
		return rc;
	}
	if (nv > 1)
		qsort(v, nv, sizeof *v, entry_cmp);
	*out = v;
	*n = nv;
	return HP_OK;
}

int
maildir_list_flagged(const char *dir, char flagchar,
    struct maildir_entry **out, size_t *n, struct hp_error *err)
{
	struct maildir_entry *v = NULL;
	size_t nv = 0, cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!valid_flag(flagchar)) {
		hp_seterr(err, HP_EINVAL, "maildir: bad flag 0x%02x",
		    (unsigned char)flagchar);
		return HP_EINVAL;
	}
	if ((rc = scan(dir, "cur", flagchar, true, &v, &nv, &cap, err)) !=
	    HP_OK) {
		maildir_list_free(v, nv);
		return rc;
	}
	if (nv > 1)
		qsort(v, nv, sizeof *v, entry_cmp);
	*out = v;
	*n = nv;
	return HP_OK;
}

int
maildir_unmark(const char *dir, const struct maildir_entry *e,
    char flagchar, struct hp_error *err)
{
	struct flagset fs;
	struct sbuf b;
	char flags[257], *src = NULL, *dst = NULL, *curdir = NULL;
	size_t baselen;
	int rc = HP_EIO;

	if (!valid_flag(flagchar) || e->in_new || !valid_name(e->name)) {
		hp_seterr(err, HP_EINVAL, "maildir: cannot unflag \"%s\"",
		    e->name != NULL ? e->name : "");
		return HP_EINVAL;
	}
	baselen = parse_name(e->name, &fs);
	fs.on[(unsigned char)flagchar] = false;
	flags_string(&fs, flags, sizeof flags);
	sbuf_init(&b);
	sbuf_add(&b, e->name, baselen);
	sbuf_printf(&b, ":2,%s", flags);
	dst = mkpath(dir, "cur", b.buf);
	sbuf_free(&b);
	src = mkpath(dir, "cur", e->name);
	curdir = mkpath(dir, "cur", NULL);
	if (rename(src, dst) == -1) {
		hp_seterr(err, HP_EIO, "rename %s to %s: %s", src, dst,
		    strerror(errno));
		goto out;
	}
	rc = fsync_dir(curdir, err);
out:
	free(src);
	free(dst);
	free(curdir);
	return rc;
}

void
maildir_list_free(struct maildir_entry *v, size_t n)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].path);
	}
	free(v);
}

int
maildir_open(const struct maildir_entry *e, int *fdp, uint64_t *size,
    struct hp_error *err)
{
	struct stat st;
	int fd;

	*fdp = -1;
	/* As maildir_read: no symbolic link, never hang on a FIFO. */
	while ((fd = open(e->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1 && errno == EINTR)
		;
	if (fd == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", e->path, strerror(errno));
		return HP_EIO;
	}
	if (fstat(fd, &st) == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", e->path, strerror(errno));
		close(fd);
		return HP_EIO;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < 0) {
		hp_seterr(err, HP_EINVAL, "%s: not a regular file", e->path);
		close(fd);
		return HP_EINVAL;
	}
	*fdp = fd;
	*size = (uint64_t)st.st_size;
	return HP_OK;
}

unsigned char *
maildir_read(const struct maildir_entry *e, size_t max, size_t *lenp,
    struct hp_error *err)
{
	unsigned char *buf = NULL;
	struct stat st;
	size_t len = 0, cap, want;
	intmax_t size;
	ssize_t r;
	int fd;

	if (lenp != NULL)
		*lenp = 0;
	if (max > SIZE_MAX - 2)
		max = SIZE_MAX - 2;
	/* O_NONBLOCK: never hang on a FIFO put in place of the message. */
	while ((fd = open(e->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1 && errno == EINTR)
		;
	if (fd == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", e->path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", e->path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		hp_seterr(err, HP_EINVAL, "%s: not a regular file", e->path);
		goto fail;
	}
	size = (intmax_t)st.st_size;
	if (st.st_size < 0 || (uintmax_t)st.st_size > max)
		goto toolarge;
	cap = (size_t)st.st_size + 2;
	buf = xmalloc(cap);
	/* Read at most max + 1 bytes, in case the file grew since fstat. */
	for (;;) {
		if (len > max) {
			size = (intmax_t)len;	/* it grew: at least this */
			goto toolarge;
		}
		if (cap - len < 2) {
			cap = cap > (max + 2) / 2 ? max + 2 : cap * 2;
			buf = xrealloc(buf, cap);
		}
		want = cap - len - 1;
		if (want > max + 1 - len)
			want = max + 1 - len;
		if ((r = read(fd, buf + len, want)) == -1) {
			if (errno == EINTR)
				continue;
			hp_seterr(err, HP_EIO, "%s: %s", e->path,
			    strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return buf;
toolarge:
	hp_seterr(err, HP_EINVAL, "%s: message too large (%jd bytes, limit "
	    "%zu)", e->path, size, max);
fail:
	close(fd);
	free(buf);
	return NULL;
}

/* Look in dir/cur for the message whose unique part is base, with flag set
 * (flag 0: any flags). 1 found (*found, if non-NULL, gets its path, caller
 * frees), 0 not found, HP_EIO on error. */
static int
find_cur(const char *dir, const char *base, size_t baselen, char flag,
    char **found, struct hp_error *err)
{
	struct flagset fs;
	struct dirent *de;
	char *path;
	DIR *d;
	int r, rc = 0;

	path = mkpath(dir, "cur", NULL);
	if ((d = opendir(path)) == NULL) {
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		free(path);
		return HP_EIO;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno != 0) {
				hp_seterr(err, HP_EIO, "%s: %s", path,
				    strerror(errno));
				rc = HP_EIO;
			}
			break;
		}
		if (de->d_name[0] == '.' ||
		    parse_name(de->d_name, &fs) != baselen ||
		    strncmp(de->d_name, base, baselen) != 0)
			continue;
		if (flag != '\0' && !fs.on[(unsigned char)flag])
			continue;
		if ((r = is_regular(dirfd(d), de)) == -1) {
			hp_seterr(err, HP_EIO, "%s/%s: %s", path, de->d_name,
			    strerror(errno));
			rc = HP_EIO;
			break;
		}
		if (r == 1) {
			if (found != NULL)
				*found = mkpath(dir, "cur", de->d_name);
			rc = 1;
			break;
		}
	}
	closedir(d);
	free(path);
	return rc;
}

int
maildir_mark(const char *dir, const struct maildir_entry *e, char flagchar,
    struct hp_error *err)
{
	return maildir_mark_sync(dir, e, flagchar, true, err);
}

int
maildir_sync(const char *dir, struct hp_error *err)
{
	char *curdir = mkpath(dir, "cur", NULL), *newdir = mkpath(dir, "new",
	    NULL);
	int rc;

	if ((rc = fsync_dir(curdir, err)) == HP_OK)
		rc = fsync_dir(newdir, err);
	free(curdir);
	free(newdir);
	return rc;
}

int
maildir_mark_sync(const char *dir, const struct maildir_entry *e,
    char flagchar, bool sync, struct hp_error *err)
{
	struct flagset fs;
	struct sbuf b;
	struct stat st;
	char flags[257], *src = NULL, *dst = NULL, *newname = NULL, *curdir;
	size_t baselen;
	int rc = HP_EIO, saved, r;

	if (!valid_flag(flagchar)) {
		hp_seterr(err, HP_EINVAL, "maildir: bad flag 0x%02x",
		    (unsigned char)flagchar);
		return HP_EINVAL;
	}
	if (!valid_name(e->name)) {
		hp_seterr(err, HP_EINVAL, "maildir: bad message name \"%s\"",
		    e->name != NULL ? e->name : "");
		return HP_EINVAL;
	}
	baselen = parse_name(e->name, &fs);
	if (e->in_new)	/* new/ names carry no flags */
		memset(&fs, 0, sizeof fs);
	fs.on[(unsigned char)flagchar] = true;
	flags_string(&fs, flags, sizeof flags);
	sbuf_init(&b);
	sbuf_add(&b, e->name, baselen);
	sbuf_printf(&b, ":2,%s", flags);
	newname = sbuf_steal(&b);
	src = mkpath(dir, e->in_new ? "new" : "cur", e->name);
	dst = mkpath(dir, "cur", newname);
	curdir = mkpath(dir, "cur", NULL);

	if (rename(src, dst) == -1) {
		saved = errno;
		if (saved != ENOENT) {
			hp_seterr(err, HP_EIO, "rename %s to %s: %s", src, dst,
			    strerror(saved));
			goto out;
		}
		/* Already done, perhaps by a run that crashed after it. */
		if (lstat(dst, &st) == 0 && S_ISREG(st.st_mode)) {
			rc = HP_OK;
			goto out;
		}
		if ((r = find_cur(dir, e->name, baselen, flagchar, NULL,
		    err)) == 1)
			rc = HP_OK;
		else if (r == 0)
			hp_seterr(err, HP_EIO, "rename %s to %s: %s", src, dst,
			    strerror(saved));
		goto out;
	}
	rc = HP_OK;
	if (sync && (rc = fsync_dir(curdir, err)) != HP_OK)
		goto out;
	if (sync && e->in_new) {
		char *newdir = mkpath(dir, "new", NULL);

		rc = fsync_dir(newdir, err);
		free(newdir);
	}
out:
	free(curdir);
	free(src);
	free(dst);
	free(newname);
	return rc;
}

/* time.M<usec>P<pid>Q<counter>.<hostname>, '/' and ':' in the host name
 * escaped as \057 and \072. Caller frees. */
static char *
unique_name(void)
{
	struct timespec ts;
	struct sbuf b;
	char host[256];
	const char *h;
	unsigned long q;

	if (clock_gettime(CLOCK_REALTIME, &ts) == -1) {
		ts.tv_sec = time(NULL);
		ts.tv_nsec = 0;
	}
	q = atomic_fetch_add(&deliveries, 1) + 1;
	if (gethostname(host, sizeof host) == -1 || host[0] == '\0')
		strlcpy_(host, "localhost", sizeof host);
	host[sizeof host - 1] = '\0';
	sbuf_init(&b);
	sbuf_printf(&b, "%jd.M%ldP%ldQ%lu.", (intmax_t)ts.tv_sec,
	    (long)(ts.tv_nsec / 1000), (long)getpid(), q);
	for (h = host; *h != '\0'; h++) {
		if (*h == '/')
			sbuf_puts(&b, "\\057");
		else if (*h == ':')
			sbuf_puts(&b, "\\072");
		else
			sbuf_add(&b, h, 1);
	}
	return sbuf_steal(&b);
}

static int
write_all(int fd, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t off = 0;
	ssize_t w;

	while (off < len) {
		if ((w = write(fd, p + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

/* Does the message hint already exist in new/ or cur/? 1 yes (*found gets
 * its path, caller frees), 0 no, HP_EIO on error. */
static int
hint_exists(const char *dir, const char *hint, char **found,
    struct hp_error *err)
{
	struct stat st;
	char *p;

	p = mkpath(dir, "new", hint);
	if (lstat(p, &st) == 0) {
		*found = p;
		return 1;
	}
	if (errno != ENOENT) {
		hp_seterr(err, HP_EIO, "%s: %s", p, strerror(errno));
		free(p);
		return HP_EIO;
	}
	free(p);
	return find_cur(dir, hint, strlen(hint), '\0', found, err);
}

/* maildir_stage, fsyncing the file only if sync (else maildir_sync
 * makes it durable later). */
static int
stage_impl(const char *dir, const void *data, size_t len, char **stage,
    bool sync, struct hp_error *err)
{
	char *tmp = NULL, *uniq = NULL;
	int fd = -1, tries, r, rc = HP_EIO;

	*stage = NULL;
	for (tries = 0; tries < 8 && fd == -1; tries++) {
		free(uniq);
		free(tmp);
		uniq = unique_name();
		tmp = mkpath(dir, "tmp", uniq);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
		    O_NOFOLLOW, 0600);
		if (fd == -1 && errno != EEXIST && errno != EINTR) {
			hp_seterr(err, HP_EIO, "%s: %s", tmp, strerror(errno));
			goto out;
		}
	}
	if (fd == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", tmp, strerror(EEXIST));
		goto out;
	}
	if (write_all(fd, data, len) == -1 || (sync && fsync_retry(fd) ==
	    -1)) {
		hp_seterr(err, HP_EIO, "%s: %s", tmp, strerror(errno));
		(void)unlink(tmp);
		goto out;
	}
	r = close(fd);
	fd = -1;
	if (r == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", tmp, strerror(errno));
		(void)unlink(tmp);
		goto out;
	}
	*stage = uniq;
	uniq = NULL;
	rc = HP_OK;
out:
	if (fd != -1)
		close(fd);
	free(tmp);
	free(uniq);
	return rc;
}

int
maildir_stage(const char *dir, const void *data, size_t len, char **stage,
    struct hp_error *err)
{
	return stage_impl(dir, data, len, stage, true, err);
}

int
maildir_stage_nosync(const char *dir, const void *data, size_t len,
    char **stage, struct hp_error *err)
{
	return stage_impl(dir, data, len, stage, false, err);
}

/* maildir_finish, fsyncing new/ only if sync. */
static int
finish_impl(const char *dir, const char *stage, const char *name,
    bool *done_before, bool sync, struct hp_error *err)
{
	char *tmp = NULL, *final = NULL, *found = NULL, *newdir = NULL;
	struct stat sb;
	int rc = HP_EIO, r;

	*done_before = false;
	if (!valid_hint(stage)) {
		hp_seterr(err, HP_EINVAL, "maildir: bad stage name \"%s\"",
		    stage);
		return HP_EINVAL;
	}
	tmp = mkpath(dir, "tmp", stage);
	if (!valid_hint(name)) {
		/* The message can never be delivered: drop its stage so a
		 * failed message leaves nothing behind in tmp/. */
		hp_seterr(err, HP_EINVAL, "maildir: bad message name \"%s\"",
		    name);
		(void)unlink(tmp);
		rc = HP_EINVAL;
		goto out;
	}
	if (lstat(tmp, &sb) == -1) {
		if (errno != ENOENT) {
			hp_seterr(err, HP_EIO, "%s: %s", tmp, strerror(errno));
			goto out;
		}
		/* Renamed into new/ before a crash: delivered, whatever
		 * became of the file since. */
		*done_before = true;
		rc = HP_OK;
		goto out;
	}
	if ((r = hint_exists(dir, name, &found, err)) < 0) {
		rc = r;
		goto out;
	}
	if (r == 1) {
		(void)unlink(tmp);
		rc = HP_OK;
		goto out;
	}
	final = mkpath(dir, "new", name);
	if (rename(tmp, final) == -1) {
		hp_seterr(err, HP_EIO, "rename %s to %s: %s", tmp, final,
		    strerror(errno));
		goto out;
	}
	newdir = mkpath(dir, "new", NULL);
	rc = sync ? fsync_dir(newdir, err) : HP_OK;
out:
	free(tmp);
	free(final);
	free(found);
	free(newdir);
	return rc;
}

int
maildir_finish(const char *dir, const char *stage, const char *name,
    bool *done_before, struct hp_error *err)
{
	return finish_impl(dir, stage, name, done_before, true, err);
}

int
maildir_finish_nosync(const char *dir, const char *stage, const char *name,
    bool *done_before, struct hp_error *err)
{
	return finish_impl(dir, stage, name, done_before, false, err);
}

int
maildir_syncfs(const char *dir, struct hp_error *err)
{
	int fd;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", dir, strerror(errno));
		return HP_EIO;
	}
	if (syncfs(fd) == -1) {
		hp_seterr(err, HP_EIO, "syncfs %s: %s", dir, strerror(errno));
		close(fd);
		return HP_EIO;
	}
	close(fd);
	return HP_OK;
}

int
maildir_deliver(const char *dir, const char *name_hint, const void *data,
    size_t len, bool *existed, char **path_out, struct hp_error *err)
{
	char *tmp = NULL, *final = NULL, *found = NULL, *uniq = NULL;
	char *newdir = NULL;
	int fd = -1, rc = HP_EIO, tries, r;

	if (existed != NULL)
		*existed = false;
	if (path_out != NULL)
		*path_out = NULL;
	if (name_hint != NULL && !valid_hint(name_hint)) {
		hp_seterr(err, HP_EINVAL, "maildir: bad message name \"%s\"",
		    name_hint);
		return HP_EINVAL;
	}
	if (name_hint != NULL) {
		if ((r = hint_exists(dir, name_hint, &found, err)) < 0)
			return r;
		if (r == 1)
			goto existing;
	}

	/* tmp/ names are always fresh, even when the final name is a hint. */
	for (tries = 0; tries < 8 && fd == -1; tries++) {
		free(uniq);
		free(tmp);
		uniq = unique_name();
		tmp = mkpath(dir, "tmp", uniq);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd == -1 && errno != EEXIST && errno != EINTR) {
			hp_seterr(err, HP_EIO, "%s: %s", tmp, strerror(errno));
			free(uniq);
			free(tmp);
			return HP_EIO;
		}
	}
	if (fd == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", tmp, strerror(EEXIST));
		free(uniq);
		free(tmp);
		return HP_EIO;
	}
	if (write_all(fd, data, len) == -1 || fsync_retry(fd) == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	r = close(fd);
	fd = -1;
	if (r == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", tmp, strerror(errno));
		goto out;
	}

	/* link(2) never replaces an existing message; rename(2) where the
	 * file system has no hard links. */
	final = mkpath(dir, "new", name_hint != NULL ? name_hint : uniq);
	if (link(tmp, final) == 0)
		(void)unlink(tmp);
	else if (errno == EEXIST && name_hint != NULL) {
		/* Delivered concurrently under the same hint. */
		found = final;
		final = NULL;
		goto existing;
	} else if (errno == EPERM || errno == ENOTSUP || errno == ENOSYS ||
	    errno == EMLINK) {
		if (rename(tmp, final) == -1) {
			hp_seterr(err, HP_EIO, "rename %s to %s: %s", tmp,
			    final, strerror(errno));
			goto out;
		}
	} else {
		hp_seterr(err, HP_EIO, "link %s to %s: %s", tmp, final,
		    strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	newdir = mkpath(dir, "new", NULL);
	if ((rc = fsync_dir(newdir, err)) != HP_OK)
		goto out;
	if (path_out != NULL) {
		*path_out = final;
		final = NULL;
	}
	goto out;

existing:
	if (existed != NULL)
		*existed = true;
	if (path_out != NULL) {
		*path_out = found;
		found = NULL;
	}
	rc = HP_OK;
out:
	if (fd != -1)
		close(fd);
	if (tmp != NULL)
		(void)unlink(tmp);
	free(tmp);
	free(final);
	free(found);
	free(uniq);
	free(newdir);
	return rc;
}
