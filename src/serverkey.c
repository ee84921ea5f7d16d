/* serverkey: the server's signing key and its rotation (see
 * include/serverkey.h and docs/AUDIT.md, "Key rotation"). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "serverkey.h"

int
serverkey_generate(const struct config *c, struct hp_error *err)
{
	return minisign_keygen(c->server_key, c->server_pub,
	    "hexpost server key", err);
}

int
serverkey_load(const char *path, struct minisign_seckey **out,
    struct hp_error *err)
{
	int rc;

	*out = NULL;
	/* One open, no symlink followed, mode and owner checked on the
	 * descriptor (minisign_seckey_load_private). */
	rc = minisign_seckey_load_private(path, out, err);
	if (rc == HP_EIO && access(path, F_OK) != 0 && errno == ENOENT)
		hp_seterr(err, HP_EIO, "server key %s: %s (hexpost key generate "
		    "makes one)", path, strerror(ENOENT));
	else if (rc != HP_OK && err != NULL && strncmp(err->msg, "server key ",
	    11) != 0) {
		char m[sizeof err->msg];

		strlcpy_(m, err->msg, sizeof m);
		strlcpy_(err->msg, "server key ", sizeof err->msg);
		strlcpy_(err->msg + 11, m, sizeof err->msg - 11);
	}
	return rc;
}

/* Rotation statements. */

/* The base64 line of a public key file ("Ed" || key id || key), into buf
 * (at least 57 bytes). */
static void
key_line(const struct minisign_pubkey *k, char *buf, size_t len)
{
	unsigned char bin[2 + MINISIGN_KEYID_LEN + 32];

	memcpy(bin, "Ed", 2);
	memcpy(bin + 2, k->keyid, MINISIGN_KEYID_LEN);
	memcpy(bin + 2 + MINISIGN_KEYID_LEN, k->pk, 32);
	sodium_bin2base64(buf, len, bin, sizeof bin,
	    sodium_base64_VARIANT_ORIGINAL);
}

/* t as "YYYY-MM-DDTHH:MM:SSZ" (UTC) into buf. */
static void
time_text(long t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void
serverkey_statement_format(const struct serverkey_statement *s,
    struct sbuf *out)
{
	char oid[17], nid[17], oline[64], nline[64], when[32];

	minisign_keyid_hex(s->old_key.keyid, oid);
	minisign_keyid_hex(s->new_key.keyid, nid);
	key_line(&s->old_key, oline, sizeof oline);
	key_line(&s->new_key, nline, sizeof nline);
	time_text(s->time, when, sizeof when);
	sbuf_printf(out, SERVERKEY_ROTATION_MAGIC "\nsequence: %d\n"
	    "old-key-id: %s\nold-key: %s\nnew-key-id: %s\nnew-key: %s\n"
	    "time: %s\nend\n", s->seq, oid, oline, nid, nline, when);
}

/* The value of line n (0-based) of text if it starts with "key: ", into
 * buf; false if it does not. */
static bool
line_value(const char *text, int n, const char *key, char *buf, size_t len)
{
	const char *p = text, *e;
	size_t k = strlen(key), m;

	while (n-- > 0 && p != NULL)
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	if (p == NULL || strncmp(p, key, k) != 0 || p[k] != ':' ||
	    p[k + 1] != ' ')
		return false;
	p += k + 2;
	if ((e = strchr(p, '\n')) == NULL || (m = (size_t)(e - p)) >= len)
		return false;
	memcpy(buf, p, m);
	buf[m] = '\0';
	return true;
}

/* Parse one key line and check it against its id line. */
static int
parse_key(const char *text, int n, const char *what,
    struct minisign_pubkey *k, struct hp_error *err)
{
	char id[32], line[128], got[17], key[32];

	snprintf(key, sizeof key, "%s-id", what);
	if (!line_value(text, n, key, id, sizeof id) ||
	    !line_value(text, n + 1, what, line, sizeof line)) {
		hp_seterr(err, HP_EINVAL, "the rotation statement has no "
		    "'%s-id:' and '%s:' lines where expected", what, what);
		return HP_EINVAL;
	}
	if (minisign_pubkey_parse(line, strlen(line), k, NULL) != HP_OK) {
		hp_seterr(err, HP_EINVAL, "the rotation statement's %s is not a "
		    "minisign public key", what);
		return HP_EINVAL;
	}
	k->comment[0] = '\0';
	minisign_keyid_hex(k->keyid, got);
	if (strcmp(got, id) != 0) {
		hp_seterr(err, HP_EINVAL, "the rotation statement's %s-id %s is "
		    "not the id of its %s (%s)", what, id, what, got);
		return HP_EINVAL;
	}
	return HP_OK;
}

int
serverkey_statement_parse(const char *text, struct serverkey_statement *s,
    struct hp_error *err)
{
	struct sbuf canon;
	struct tm tm;
	char buf[64], *end;
	long v;
	int rc;

	memset(s, 0, sizeof *s);
	if (strncmp(text, SERVERKEY_ROTATION_MAGIC "\n",
	    strlen(SERVERKEY_ROTATION_MAGIC) + 1) != 0) {
		hp_seterr(err, HP_EINVAL, "not a '" SERVERKEY_ROTATION_MAGIC
		    "' statement");
		return HP_EINVAL;
	}
	if (!line_value(text, 1, "sequence", buf, sizeof buf) ||
	    (v = strtol(buf, &end, 10)) < 1 || v > 1000000 || *end != '\0') {
		hp_seterr(err, HP_EINVAL, "the rotation statement has no valid "
		    "'sequence:' line");
		return HP_EINVAL;
	}
	s->seq = (int)v;
	if ((rc = parse_key(text, 2, "old-key", &s->old_key, err)) != HP_OK ||
	    (rc = parse_key(text, 4, "new-key", &s->new_key, err)) != HP_OK)
		return rc;
	memset(&tm, 0, sizeof tm);
	if (!line_value(text, 6, "time", buf, sizeof buf) ||
	    sscanf(buf, "%4d-%2d-%2dT%2d:%2d:%2dZ", &tm.tm_year, &tm.tm_mon,
	    &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) {
		hp_seterr(err, HP_EINVAL, "the rotation statement has no valid "
		    "'time:' line");
		return HP_EINVAL;
	}
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	s->time = (long)timegm(&tm);
	sbuf_init(&canon);
	serverkey_statement_format(s, &canon);
	rc = strcmp(canon.buf, text) == 0 ? HP_OK : HP_EINVAL;
	sbuf_free(&canon);
	if (rc != HP_OK)
		hp_seterr(err, HP_EINVAL, "the rotation statement is not in its "
		    "canonical form (docs/AUDIT.md, \"Key rotation\")");
	return rc;
}

void
serverkey_statement_comment(const struct serverkey_statement *s, bool by_new,
    char *buf, size_t len)
{
	char oid[17], nid[17];

	minisign_keyid_hex(s->old_key.keyid, oid);
	minisign_keyid_hex(s->new_key.keyid, nid);
	snprintf(buf, len, "hexpost key rotation %d: %s -> %s, signed by the "
	    "%s key", s->seq, oid, nid, by_new ? "new" : "old");
}

/* One signature of a statement, with its trusted comment. */
static int
check_one(const char *text, const char *sigtext,
    const struct serverkey_statement *s, bool by_new, struct hp_error *err)
{
	const struct minisign_pubkey *k = by_new ? &s->new_key : &s->old_key;
	struct minisign_sig sig;
	struct hp_error verr = { 0, "" };
	char id[17], tc[256];
	const char *who = by_new ? "countersigned by the new key" :
	    "signed by the old key";

	minisign_keyid_hex(k->keyid, id);
	if (sigtext == NULL) {
		hp_seterr(err, HP_EINVAL, "rotation statement %d has no "
		    "signature by its %s key %s", s->seq, by_new ? "new" : "old",
		    id);
		return HP_EINVAL;
	}
	if (minisign_sig_parse(sigtext, strlen(sigtext), &sig, &verr) !=
	    HP_OK || minisign_verify(k, &sig, (const unsigned char *)text,
	    strlen(text), &verr) != HP_OK) {
		hp_seterr(err, HP_EINVAL, "rotation statement %d is not %s %s: "
		    "%s", s->seq, who, id, verr.msg);
		return HP_EINVAL;
	}
	serverkey_statement_comment(s, by_new, tc, sizeof tc);
	if (strcmp(tc, sig.trusted) != 0) {
		hp_seterr(err, HP_EINVAL, "rotation statement %d: the trusted "
		    "comment of the signature by the %s key is '%s', expected "
		    "'%s'", s->seq, by_new ? "new" : "old", sig.trusted, tc);
		return HP_EINVAL;
	}
	return HP_OK;
}

int
serverkey_statement_check(const char *text, const char *sig,
    const char *countersig, struct serverkey_statement *out,
    struct hp_error *err)
{
	int rc;

	if ((rc = serverkey_statement_parse(text, out, err)) != HP_OK)
		return rc;
	if (memcmp(out->old_key.keyid, out->new_key.keyid,
	    MINISIGN_KEYID_LEN) == 0) {
		hp_seterr(err, HP_EINVAL, "rotation statement %d hands a key "
		    "over to itself", out->seq);
		return HP_EINVAL;
	}
	if ((rc = check_one(text, sig, out, false, err)) != HP_OK)
		return rc;
	return check_one(text, countersig, out, true, err);
}

/* Rotation. */

/* The key id of the public key file at path ("" if unreadable). */
static void
pub_file_id(const char *path, char id[17])
{
	struct minisign_pubkey k;
	char *t = util_read_file(path, NULL, NULL);

	id[0] = '\0';
	if (t != NULL && minisign_pubkey_parse(t, strlen(t), &k, NULL) == HP_OK)
		minisign_keyid_hex(k.keyid, id);
	free(t);
}

/* The key id of the secret key file at path ("" if unusable). */
static void
sec_file_id(const char *path, char id[17])
{
	struct minisign_seckey *k = NULL;
	struct minisign_pubkey pk;

	id[0] = '\0';
	if (serverkey_load(path, &k, NULL) == HP_OK) {
		minisign_seckey_pubkey(k, &pk);
		minisign_keyid_hex(pk.keyid, id);
	}
	minisign_seckey_free(k);
}

/* fsync the directory holding path. */
static int
sync_dir_of(const char *path, struct hp_error *err)
{
	char dir[CONFIG_PATH_MAX + 16];
	char *slash;
	int fd;

	strlcpy_(dir, path, sizeof dir);
	if ((slash = strrchr(dir, '/')) == NULL)
		strlcpy_(dir, ".", sizeof dir);
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    fsync(fd) == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", dir, strerror(errno));
		if (fd != -1)
			close(fd);
		return HP_EIO;
	}
	close(fd);
	return HP_OK;
}

/* Hold the rotation lock: an exclusive flock on the directory of the
 * secret key. *fd is the caller's to close. */
static int
lock_dir_of(const char *path, int *fd, struct hp_error *err)
{
	char dir[CONFIG_PATH_MAX + 16];
	char *slash;

	strlcpy_(dir, path, sizeof dir);
	if ((slash = strrchr(dir, '/')) == NULL)
		strlcpy_(dir, ".", sizeof dir);
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if ((*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", dir, strerror(errno));
		return HP_EIO;
	}
	if (flock(*fd, LOCK_EX | LOCK_NB) == -1) {
		hp_seterr(err, HP_ESTATE, "%s: another 'hexpost key rotate' is "
		    "running (%s)", dir, strerror(errno));
		return HP_ESTATE;
	}
	return HP_OK;
}

/* Put the new key file newpath in place at path, the current one kept as
 * backup (a hard link: the same file, so the same mode). Nothing to do if
 * newpath is gone (done before an interruption). A backup that exists and
 * is another file is never replaced. */
static int
install(const char *path, const char *newpath, const char *backup,
    struct hp_error *err)
{
	struct stat a, b;

	if (lstat(newpath, &a) == -1 && errno == ENOENT)
		return HP_OK;
	if (link(path, backup) == -1) {
		int e = errno;

		if (e != EEXIST || stat(path, &a) == -1 ||
		    stat(backup, &b) == -1 || a.st_dev != b.st_dev ||
		    a.st_ino != b.st_ino) {
			hp_seterr(err, e == EEXIST ? HP_ESTATE : HP_EIO,
			    "cannot keep %s as %s: %s", path, backup,
			    e == EEXIST ? "it exists; not overwriting a key" :
			    strerror(e));
			return e == EEXIST ? HP_ESTATE : HP_EIO;
		}
	}
	if (rename(newpath, path) == -1) {
		hp_seterr(err, HP_EIO, "rename %s to %s: %s", newpath, path,
		    strerror(errno));
		return HP_EIO;
	}
	return sync_dir_of(path, err);
}

/* Install both new files of rotation seq. */
static int
install_both(const struct config *c, int seq, struct serverkey_rotation *out,
    struct hp_error *err)
{
	char nk[CONFIG_PATH_MAX + 8], np[CONFIG_PATH_MAX + 8];
	int rc;

	snprintf(nk, sizeof nk, "%s.new", c->server_key);
	snprintf(np, sizeof np, "%s.new", c->server_pub);
	snprintf(out->backup_key, sizeof out->backup_key, "%s.%d",
	    c->server_key, seq);
	snprintf(out->backup_pub, sizeof out->backup_pub, "%s.%d",
	    c->server_pub, seq);
	if ((rc = install(c->server_key, nk, out->backup_key, err)) != HP_OK ||
	    (rc = install(c->server_pub, np, out->backup_pub, err)) != HP_OK) {
		size_t n = strlen(err->msg);

		snprintf(err->msg + n, sizeof err->msg - n, " (rotation %d is "
		    "recorded; run 'hexpost key rotate' again to finish it)",
		    seq);
		return rc;
	}
	return HP_OK;
}

/* New key files left beside the key: finish the rotation that recorded
 * them (last), or remove an attempt that stopped before its transaction
 * (never recorded, so never used). */
static int
leftovers(const struct config *c, const struct store_rotation *last,
    struct serverkey_rotation *out, struct hp_error *err)
{
	char nk[CONFIG_PATH_MAX + 8], np[CONFIG_PATH_MAX + 8];
	char idk[17] = "", idp[17] = "";
	struct stat sb;
	bool hk, hp, mk, mp;

	snprintf(nk, sizeof nk, "%s.new", c->server_key);
	snprintf(np, sizeof np, "%s.new", c->server_pub);
	hk = lstat(nk, &sb) == 0;
	hp = lstat(np, &sb) == 0;
	if (!hk && !hp)
		return HP_OK;
	if (hk)
		sec_file_id(nk, idk);
	if (hp)
		pub_file_id(np, idp);
	mk = last != NULL && hk && strcmp(idk, last->new_key_id) == 0;
	mp = last != NULL && hp && strcmp(idp, last->new_key_id) == 0;
	if ((mk || !hk) && (mp || !hp)) {
		out->seq = last->seq;
		strlcpy_(out->old_id, last->old_key_id, sizeof out->old_id);
		strlcpy_(out->new_id, last->new_key_id, sizeof out->new_id);
		out->resumed = true;
		return install_both(c, last->seq, out, err);
	}
	if (mk || mp) {
		hp_seterr(err, HP_ESTATE, "%s and %s hold different keys, and "
		    "one of them is the key rotation %d recorded: sort them out "
		    "by hand", nk, np, last->seq);
		return HP_ESTATE;
	}
	if ((hk && unlink(nk) == -1) || (hp && unlink(np) == -1)) {
		hp_seterr(err, HP_EIO, "removing %s: %s", hk ? nk : np,
		    strerror(errno));
		return HP_EIO;
	}
	log_warn("removed %s and %s, left by a key rotation that stopped "
	    "before it was recorded (never used)", nk, np);
	return HP_OK;
}

/* Queues rotation notices: set by serverkey_set_notify. */
static int (*notify_fn)(struct store *, const struct config *,
    const struct store_rotation *, int *, struct hp_error *);

void
serverkey_set_notify(int (*notify)(struct store *, const struct config *,
    const struct store_rotation *, int *, struct hp_error *))
{
	notify_fn = notify;
}

/* Queue the notices of rotation r through notify_fn. */
static int
notify_players(struct store *st, const struct config *c,
    const struct store_rotation *r, int *count, struct hp_error *err)
{
	if (notify_fn == NULL) {
		hp_seterr(err, HP_EINTERNAL, "key rotation: nothing queues the "
		    "players' notices (engine_init was not called)");
		return HP_EINTERNAL;
	}
	return notify_fn(st, c, r, count, err);
}

int
serverkey_rotate(struct store *st, const struct config *c, long now,
    struct serverkey_rotation *out, struct hp_error *err)
{
	struct minisign_seckey *oldsk = NULL, *newsk = NULL;
	struct store_rotation *rows = NULL, rec;
	struct serverkey_statement stm, chk;
	struct minisign_pubkey filepk;
	struct sbuf text;
	struct stat sb;
	char nk[CONFIG_PATH_MAX + 8], np[CONFIG_PATH_MAX + 8], tc[256];
	char *oldpub = NULL, *newpub = NULL, *sig = NULL, *csig = NULL;
	int rc, nrows = 0, lockfd = -1;
	bool made = false;

	memset(out, 0, sizeof *out);
	memset(&stm, 0, sizeof stm);
	sbuf_init(&text);
	snprintf(nk, sizeof nk, "%s.new", c->server_key);
	snprintf(np, sizeof np, "%s.new", c->server_pub);
	if ((rc = lock_dir_of(c->server_key, &lockfd, err)) != HP_OK ||
	    (rc = store_rotations_all(st, &rows, &nrows, err)) != HP_OK)
		goto out;
	if ((rc = leftovers(c, nrows > 0 ? &rows[nrows - 1] : NULL, out,
	    err)) != HP_OK || out->resumed)
		goto out;
	if ((rc = serverkey_load(c->server_key, &oldsk, err)) != HP_OK)
		goto out;
	minisign_seckey_pubkey(oldsk, &stm.old_key);
	minisign_keyid_hex(stm.old_key.keyid, out->old_id);
	if ((oldpub = util_read_file(c->server_pub, NULL, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	if (minisign_pubkey_parse(oldpub, strlen(oldpub), &filepk, NULL) !=
	    HP_OK || memcmp(filepk.keyid, stm.old_key.keyid,
	    MINISIGN_KEYID_LEN) != 0 || memcmp(filepk.pk, stm.old_key.pk,
	    32) != 0) {
		hp_seterr(err, HP_ESTATE, "%s is not the public key of %s",
		    c->server_pub, c->server_key);
		rc = HP_ESTATE;
		goto out;
	}
	if (nrows > 0 && strcmp(out->old_id, rows[nrows - 1].new_key_id) !=
	    0) {
		hp_seterr(err, HP_ESTATE, "the server key %s is not the key the "
		    "last rotation statement (%d) handed over to, %s: it was "
		    "changed without 'hexpost key rotate', and no audit can "
		    "follow that change. Put key %s back at %s and %s, then "
		    "rotate", out->old_id, rows[nrows - 1].seq,
		    rows[nrows - 1].new_key_id, rows[nrows - 1].new_key_id,
		    c->server_key, c->server_pub);
		rc = HP_ESTATE;
		goto out;
	}
	stm.seq = nrows > 0 ? rows[nrows - 1].seq + 1 : 1;
	snprintf(out->backup_key, sizeof out->backup_key, "%s.%d",
	    c->server_key, stm.seq);
	snprintf(out->backup_pub, sizeof out->backup_pub, "%s.%d",
	    c->server_pub, stm.seq);
	if (lstat(out->backup_key, &sb) == 0 ||
	    lstat(out->backup_pub, &sb) == 0) {
		hp_seterr(err, HP_ESTATE, "%s already exists; not overwriting a "
		    "key", lstat(out->backup_key, &sb) == 0 ? out->backup_key :
		    out->backup_pub);
		rc = HP_ESTATE;
		goto out;
	}
	if ((rc = minisign_keygen(nk, np, "hexpost server key", err)) != HP_OK)
		goto out;
	made = true;
	if ((rc = serverkey_load(nk, &newsk, err)) != HP_OK)
		goto out;
	if ((newpub = util_read_file(np, NULL, err)) == NULL) {
		rc = err->code;
		goto out;
	}
	minisign_seckey_pubkey(newsk, &stm.new_key);
	minisign_keyid_hex(stm.new_key.keyid, out->new_id);
	stm.time = now;
	serverkey_statement_format(&stm, &text);
	serverkey_statement_comment(&stm, false, tc, sizeof tc);
	if ((rc = minisign_sign_text(oldsk, (const unsigned char *)text.buf,
	    text.len, tc, &sig, err)) != HP_OK)
		goto out;
	serverkey_statement_comment(&stm, true, tc, sizeof tc);
	if ((rc = minisign_sign_text(newsk, (const unsigned char *)text.buf,
	    text.len, tc, &csig, err)) != HP_OK)
		goto out;
	/* What is published is checked by the code that audits it. */
	if ((rc = serverkey_statement_check(text.buf, sig, csig, &chk, err)) !=
	    HP_OK) {
		rc = HP_EINTERNAL;
		goto out;
	}
	memset(&rec, 0, sizeof rec);
	rec.seq = stm.seq;
	rec.statement = text.buf;
	rec.signature = sig;
	rec.countersignature = csig;
	strlcpy_(rec.old_key_id, out->old_id, sizeof rec.old_key_id);
	strlcpy_(rec.new_key_id, out->new_id, sizeof rec.new_key_id);
	rec.old_pubkey = oldpub;
	rec.new_pubkey = newpub;
	rec.created_at = now;
	if ((rc = store_begin(st, err)) != HP_OK)
		goto out;
	if ((rc = store_rotation_add(st, &rec, err)) != HP_OK ||
	    (rc = notify_players(st, c, &rec, &out->notices, err)) !=
	    HP_OK || (rc = store_commit(st, err)) != HP_OK) {
		store_rollback(st);
		goto out;
	}
	/* Test only: a crash after the commit, before the files move. */
	if (getenv("HEXPOST_TEST_CRASH_BEFORE_INSTALL") != NULL)
		abort();
	/* Recorded: the new files are the server's key from now on. */
	made = false;
	out->seq = stm.seq;
	rc = install_both(c, stm.seq, out, err);
	/* Test only: a crash once everything is done, before the command
	 * reports it (issue 21, item 6). */
	if (rc == HP_OK && getenv("HEXPOST_TEST_CRASH_AFTER_ROTATE") != NULL)
		abort();
out:
	if (made) {
		unlink(nk);
		unlink(np);
	}
	minisign_seckey_free(oldsk);
	minisign_seckey_free(newsk);
	store_rotations_free(rows, nrows);
	free(oldpub);
	free(newpub);
	free(sig);
	free(csig);
	sbuf_free(&text);
	if (lockfd != -1)
		close(lockfd);
	return rc;
}

int
serverkey_rotation_done(struct store *st, const struct config *c, long now,
    long within, struct serverkey_rotation *out, bool *done,
    struct hp_error *err)
{
	struct store_rotation *rows = NULL, *last;
	char nk[CONFIG_PATH_MAX + 8], np[CONFIG_PATH_MAX + 8];
	char idk[17], idp[17];
	struct stat sb;
	int rc, n = 0;

	*done = false;
	memset(out, 0, sizeof *out);
	if ((rc = store_rotations_all(st, &rows, &n, err)) != HP_OK || n == 0)
		goto out;
	last = &rows[n - 1];
	snprintf(nk, sizeof nk, "%s.new", c->server_key);
	snprintf(np, sizeof np, "%s.new", c->server_pub);
	/* Something left to finish: serverkey_rotate finishes it. */
	if (lstat(nk, &sb) == 0 || lstat(np, &sb) == 0)
		goto out;
	if (last->created_at <= now - within)
		goto out;
	sec_file_id(c->server_key, idk);
	pub_file_id(c->server_pub, idp);
	if (strcmp(idk, last->new_key_id) != 0 ||
	    strcmp(idp, last->new_key_id) != 0)
		goto out;
	*done = true;
	out->seq = last->seq;
	out->when = last->created_at;
	strlcpy_(out->old_id, last->old_key_id, sizeof out->old_id);
	strlcpy_(out->new_id, last->new_key_id, sizeof out->new_id);
	snprintf(out->backup_key, sizeof out->backup_key, "%s.%d",
	    c->server_key, last->seq);
	snprintf(out->backup_pub, sizeof out->backup_pub, "%s.%d",
	    c->server_pub, last->seq);
out:
	store_rotations_free(rows, n);
	return rc;
}
