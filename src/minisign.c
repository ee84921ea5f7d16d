/* minisign: the file formats of minisign(1) (public keys, signatures and
 * the unencrypted secret key that `minisign -G -W` writes), verification
 * of players' signatures and signing for the server.
 *
 * Formats (every binary part is one line of standard, padded base64):
 *   public key  "untrusted comment: ..." line, then
 *               "Ed" || key id (8) || Ed25519 public key (32)
 *   signature   "untrusted comment: ..." line, then
 *               alg (2) || key id (8) || signature (64), where alg "ED"
 *               signs BLAKE2b-512(message) and legacy "Ed" the message;
 *               "trusted comment: <text>" line, then the global signature
 *               (64) over signature || text
 *   secret key  "untrusted comment: ..." line, then
 *               "Ed" || kdf (2, zero when unencrypted) || "B2" ||
 *               salt (32) || opslimit (8) || memlimit (8) ||
 *               key id (8) || Ed25519 secret key (64) || checksum (32),
 *               checksum = BLAKE2b-256("Ed" || key id || secret key)
 *               (minisign 0.11 leaves it zero in unencrypted keys)
 * The key id is printed as a little-endian 64-bit number in hex.
 *
 * Parsing is strict: exact base64 lengths, LF or CRLF line endings, no NUL
 * bytes or stray CRs, nothing but empty lines after the last line. Secret
 * key material only ever lives in sodium_malloc memory. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "hexpost.h"
#include "minisign.h"

#define UNTRUSTED_PREFIX "untrusted comment: "
#define TRUSTED_PREFIX "trusted comment: "
#define PREFIX_LEN(p) (sizeof(p) - 1)

/* Longest comment line minisign reads (its fgets buffer, COMMENTMAXBYTES,
 * holds the line, its newline and a NUL). */
#define COMMENT_LINE_MAX 1022

#define ALG_LEN 2
#define PK_BIN (ALG_LEN + MINISIGN_KEYID_LEN + 32)  /* 42 */
#define SIG_BIN (ALG_LEN + MINISIGN_KEYID_LEN + 64) /* 74 */
#define GSIG_BIN 64
#define TRUSTED_MAX (sizeof(((struct minisign_sig *)NULL)->trusted) - 1)

/* Offsets into the decoded secret key. */
#define SK_ALG 0
#define SK_KDF 2
#define SK_CHKALG 4
#define SK_SALT 6
#define SK_OPS 38
#define SK_MEM 46
#define SK_KEYID 54
#define SK_SK 62
#define SK_CHK 126
#define SK_BIN 158

/* A secret key file is two short lines; anything bigger is not one. */
#define SK_FILE_MAX 4096

#define DEFAULT_SIG_COMMENT "signature from minisign secret key"

/* Initialise libsodium (idempotent); without it there is no safe RNG. */
static void
ms_init(void)
{
	if (sodium_init() < 0)
		fatalx("minisign: sodium_init failed");
}

/* Reading position in a text being parsed line by line. */
struct cursor {
	const char *p;
	size_t len;
	size_t off;
	int lineno;	  /* of the line last returned */
	const char *what; /* "public key", "signature", "secret key" */
};

/* Start reading text (NULL for none) from its beginning. */
static void
cursor_init(struct cursor *c, const char *text, size_t len, const char *what)
{
	c->p = text;
	c->len = text != NULL ? len : 0;
	c->off = 0;
	c->lineno = 0;
	c->what = what;
}

/* Next line of the text, without its LF or CRLF ending: 1 and the line in
 * *line / *n (pointing into the text), 0 at the end of the text, HP_EINVAL
 * for a NUL byte or a CR that does not end the line. */
static int
next_line(struct cursor *c, const char **line, size_t *n, struct hp_error *err)
{
	size_t i, start, end;

	if (c->off >= c->len)
		return 0;
	c->lineno++;
	start = c->off;
	for (i = start; i < c->len && c->p[i] != '\n'; i++) {
		if (c->p[i] == '\0') {
			hp_seterr(err, HP_EINVAL,
			    "%s: line %d contains a NUL byte", c->what,
			    c->lineno);
			return HP_EINVAL;
		}
		if (c->p[i] == '\r' &&
		    (i + 1 >= c->len || c->p[i + 1] != '\n')) {
			hp_seterr(err, HP_EINVAL,
			    "%s: line %d contains a stray carriage return",
			    c->what, c->lineno);
			return HP_EINVAL;
		}
	}
	end = i;
	if (end > start && c->p[end - 1] == '\r')
		end--;
	c->off = i < c->len ? i + 1 : i;
	*line = c->p + start;
	*n = end - start;
	return 1;
}

/* The next line, which must exist (else "missing <name>"). */
static int
need_line(struct cursor *c, const char **line, size_t *n, const char *name,
    struct hp_error *err)
{
	int r;

	if ((r = next_line(c, line, n, err)) < 0)
		return r;
	if (r == 0) {
		hp_seterr(err, HP_EINVAL, "%s: missing %s (line %d)", c->what,
		    name, c->lineno + 1);
		return HP_EINVAL;
	}
	return HP_OK;
}

/* Only empty lines may follow the last line of a file. */
static int
expect_end(struct cursor *c, struct hp_error *err)
{
	const char *line;
	size_t n;
	int r;

	while ((r = next_line(c, &line, &n, err)) == 1) {
		if (n != 0) {
			hp_seterr(err, HP_EINVAL,
			    "%s: unexpected text on line %d, after the end",
			    c->what, c->lineno);
			return HP_EINVAL;
		}
	}
	return r;
}

/* Does the line start with the prefix? */
static int
has_prefix(const char *line, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);

	return n >= pl && memcmp(line, prefix, pl) == 0;
}

/* Copy a comment into dst (size dsz), cut at a UTF-8 character boundary
 * when it does not fit. */
static void
copy_comment(char *dst, size_t dsz, const char *s, size_t n)
{
	if (n >= dsz) {
		n = dsz - 1;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* Decode a base64 line that must encode exactly outlen bytes. */
static int
b64_exact(struct cursor *c, const char *s, size_t n, unsigned char *out,
    size_t outlen, struct hp_error *err)
{
	size_t want, got;

	want =
	    sodium_base64_encoded_len(outlen, sodium_base64_VARIANT_ORIGINAL) -
	    1;
	if (n != want) {
		hp_seterr(err, HP_EINVAL,
		    "%s: line %d: expected %zu base64 characters, found %zu",
		    c->what, c->lineno, want, n);
		return HP_EINVAL;
	}
	if (sodium_base642bin(out, outlen, s, n, NULL, &got, NULL,
		sodium_base64_VARIANT_ORIGINAL) != 0 ||
	    got != outlen) {
		hp_seterr(err, HP_EINVAL, "%s: line %d is not valid base64",
		    c->what, c->lineno);
		return HP_EINVAL;
	}
	return HP_OK;
}

/* An algorithm id for messages, in buf (>= 16 bytes): "Ed" in quotes when
 * printable, else hex. Returns buf. */
static const char *
alg_name(const unsigned char *a, char *buf, size_t bsz)
{
	if (a[0] > 0x20 && a[0] < 0x7f && a[1] > 0x20 && a[1] < 0x7f &&
	    a[0] != '"' && a[1] != '"')
		snprintf(buf, bsz, "\"%c%c\"", a[0], a[1]);
	else
		snprintf(buf, bsz, "0x%02X%02X", a[0], a[1]);
	return buf;
}

/* Key id as 16 uppercase hex digits into buf (>= 17 bytes); returns buf. */
char *
minisign_keyid_hex(const unsigned char keyid[8], char *buf)
{
	static const char hex[] = "0123456789ABCDEF";
	int i;

	/* minisign prints the id as a little-endian 64-bit number. */
	for (i = 0; i < MINISIGN_KEYID_LEN; i++) {
		buf[2 * i] = hex[keyid[MINISIGN_KEYID_LEN - 1 - i] >> 4];
		buf[2 * i + 1] = hex[keyid[MINISIGN_KEYID_LEN - 1 - i] & 0xf];
	}
	buf[16] = '\0';
	return buf;
}

/* Parse a public key file, or its bare base64 line, into *pk (zeroed on
 * failure). */
int
minisign_pubkey_parse(const char *text, size_t len, struct minisign_pubkey *pk,
    struct hp_error *err)
{
	struct cursor c;
	const char *line;
	size_t n;
	unsigned char bin[PK_BIN];
	char an[16];
	int r;

	memset(pk, 0, sizeof *pk);
	cursor_init(&c, text, len, "public key");
	if ((r = next_line(&c, &line, &n, err)) < 0)
		return r;
	if (r == 0) {
		hp_seterr(err, HP_EINVAL, "public key: empty");
		return HP_EINVAL;
	}
	if (has_prefix(line, n, UNTRUSTED_PREFIX)) {
		if (n > COMMENT_LINE_MAX) {
			hp_seterr(err, HP_EINVAL,
			    "public key: the comment line is too long "
			    "(%zu bytes, at most %d)",
			    n, COMMENT_LINE_MAX);
			return HP_EINVAL;
		}
		copy_comment(pk->comment, sizeof pk->comment,
		    line + PREFIX_LEN(UNTRUSTED_PREFIX),
		    n - PREFIX_LEN(UNTRUSTED_PREFIX));
		if ((r = need_line(&c, &line, &n, "the key line", err)) != 0)
			goto fail;
	} else if (n !=
	    sodium_base64_encoded_len(PK_BIN, sodium_base64_VARIANT_ORIGINAL) -
		1) {
		/* Not a bare key either. */
		hp_seterr(err, HP_EINVAL,
		    "public key: line 1 must start with "
		    "\"" UNTRUSTED_PREFIX "\" (or be the base64 key alone)");
		return HP_EINVAL;
	}
	if ((r = b64_exact(&c, line, n, bin, sizeof bin, err)) != 0)
		goto fail;
	if (memcmp(bin, "Ed", ALG_LEN) != 0) {
		hp_seterr(err, HP_EINVAL,
		    "public key: unsupported algorithm %s (expected \"Ed\")",
		    alg_name(bin, an, sizeof an));
		r = HP_EINVAL;
		goto fail;
	}
	if ((r = expect_end(&c, err)) != 0)
		goto fail;
	memcpy(pk->keyid, bin + ALG_LEN, MINISIGN_KEYID_LEN);
	memcpy(pk->pk, bin + ALG_LEN + MINISIGN_KEYID_LEN, sizeof pk->pk);
	return HP_OK;
fail:
	memset(pk, 0, sizeof *pk);
	return r;
}

/* Parse a .minisig file into *sig (zeroed on failure). */
int
minisign_sig_parse(const char *text, size_t len, struct minisign_sig *sig,
    struct hp_error *err)
{
	struct cursor c;
	const char *line;
	size_t n, tl;
	unsigned char bin[SIG_BIN];
	char an[16];
	int r;

	memset(sig, 0, sizeof *sig);
	cursor_init(&c, text, len, "signature");

	if ((r = next_line(&c, &line, &n, err)) < 0)
		return r;
	if (r == 0) {
		hp_seterr(err, HP_EINVAL, "signature: empty");
		return HP_EINVAL;
	}
	if (!has_prefix(line, n, UNTRUSTED_PREFIX)) {
		hp_seterr(err, HP_EINVAL,
		    "signature: line 1 must start with "
		    "\"" UNTRUSTED_PREFIX "\"");
		return HP_EINVAL;
	}
	if (n > COMMENT_LINE_MAX) {
		hp_seterr(err, HP_EINVAL,
		    "signature: the untrusted comment line is too long "
		    "(%zu bytes, at most %d)",
		    n, COMMENT_LINE_MAX);
		return HP_EINVAL;
	}
	copy_comment(sig->untrusted, sizeof sig->untrusted,
	    line + PREFIX_LEN(UNTRUSTED_PREFIX),
	    n - PREFIX_LEN(UNTRUSTED_PREFIX));

	if ((r = need_line(&c, &line, &n, "the signature line", err)) != 0)
		goto fail;
	if ((r = b64_exact(&c, line, n, bin, sizeof bin, err)) != 0)
		goto fail;
	if (memcmp(bin, "ED", ALG_LEN) != 0 &&
	    memcmp(bin, "Ed", ALG_LEN) != 0) {
		hp_seterr(err, HP_EINVAL,
		    "signature: unsupported signature algorithm %s "
		    "(expected \"ED\", or \"Ed\" for legacy signatures)",
		    alg_name(bin, an, sizeof an));
		r = HP_EINVAL;
		goto fail;
	}

	if ((r = need_line(&c, &line, &n, "the trusted comment line", err)) !=
	    0)
		goto fail;
	if (!has_prefix(line, n, TRUSTED_PREFIX)) {
		hp_seterr(err, HP_EINVAL,
		    "signature: line 3 must start with \"" TRUSTED_PREFIX "\"");
		r = HP_EINVAL;
		goto fail;
	}
	tl = n - PREFIX_LEN(TRUSTED_PREFIX);
	if (tl >= sizeof sig->trusted) {
		hp_seterr(err, HP_EINVAL,
		    "signature: the trusted comment is too long "
		    "(%zu bytes, at most %zu)",
		    tl, sizeof sig->trusted - 1);
		r = HP_EINVAL;
		goto fail;
	}
	memcpy(sig->trusted, line + PREFIX_LEN(TRUSTED_PREFIX), tl);
	sig->trusted[tl] = '\0';

	if ((r = need_line(&c, &line, &n,
		 "the trusted comment signature "
		 "line",
		 err)) != 0)
		goto fail;
	if ((r = b64_exact(&c, line, n, sig->global_sig, sizeof sig->global_sig,
		 err)) != 0)
		goto fail;
	if ((r = expect_end(&c, err)) != 0)
		goto fail;

	memcpy(sig->alg, bin, ALG_LEN);
	sig->alg[ALG_LEN] = '\0';
	memcpy(sig->keyid, bin + ALG_LEN, MINISIGN_KEYID_LEN);
	memcpy(sig->sig, bin + ALG_LEN + MINISIGN_KEYID_LEN, sizeof sig->sig);
	return HP_OK;
fail:
	memset(sig, 0, sizeof *sig);
	return r;
}

/* Check key id, signature of the message, then the trusted comment. */
int
minisign_verify(const struct minisign_pubkey *pk,
    const struct minisign_sig *sig, const unsigned char *msg, size_t len,
    struct hp_error *err)
{
	static const unsigned char empty[1];
	unsigned char hash[crypto_generichash_BYTES_MAX];
	unsigned char buf[64 + sizeof sig->trusted];
	char want[17], got[17];
	size_t tl;
	int hashed;

	if (pk == NULL || sig == NULL || (msg == NULL && len > 0)) {
		hp_seterr(err, HP_EINVAL, "minisign_verify: missing argument");
		return HP_EINVAL;
	}
	ms_init();
	if (msg == NULL)
		msg = empty;
	if (strcmp(sig->alg, "ED") == 0)
		hashed = 1;
	else if (strcmp(sig->alg, "Ed") == 0)
		hashed = 0;
	else {
		hp_seterr(err, HP_EINVAL,
		    "signature: unsupported signature algorithm");
		return HP_EINVAL;
	}
	if (memchr(sig->trusted, '\0', sizeof sig->trusted) == NULL) {
		hp_seterr(
		    err, HP_EINVAL, "signature: unterminated trusted comment");
		return HP_EINVAL;
	}
	if (memcmp(sig->keyid, pk->keyid, MINISIGN_KEYID_LEN) != 0) {
		hp_seterr(err, HP_EINVAL,
		    "signed by key %s, expected %s "
		    "(wrong key, or a signature from another key pair)",
		    minisign_keyid_hex(sig->keyid, got),
		    minisign_keyid_hex(pk->keyid, want));
		return HP_EINVAL;
	}
	if (hashed) {
		crypto_generichash(hash, sizeof hash, msg, len, NULL, 0);
		if (crypto_sign_verify_detached(
			sig->sig, hash, sizeof hash, pk->pk) != 0)
			goto badsig;
	} else if (crypto_sign_verify_detached(sig->sig, msg, len, pk->pk) != 0)
		goto badsig;

	tl = strlen(sig->trusted);
	memcpy(buf, sig->sig, sizeof sig->sig);
	memcpy(buf + sizeof sig->sig, sig->trusted, tl);
	if (crypto_sign_verify_detached(
		sig->global_sig, buf, sizeof sig->sig + tl, pk->pk) != 0) {
		hp_seterr(err, HP_EINVAL,
		    "trusted comment was tampered with (its signature does "
		    "not match)");
		return HP_EINVAL;
	}
	return HP_OK;
badsig:
	hp_seterr(err, HP_EINVAL,
	    "signature does not match the file (the file was changed "
	    "after signing?)");
	return HP_EINVAL;
}

/* A comment we write must be one line that our parser reads back whole. */
static int
check_comment(const char *what, const char *s, size_t max, struct hp_error *err)
{
	size_t n = strlen(s);

	if (strpbrk(s, "\r\n") != NULL) {
		hp_seterr(err, HP_EINVAL, "%s must be a single line", what);
		return HP_EINVAL;
	}
	if (n > max) {
		hp_seterr(err, HP_EINVAL,
		    "%s is too long (%zu bytes, at most %zu)", what, n, max);
		return HP_EINVAL;
	}
	return HP_OK;
}

/* Create a new file (never replacing one, never through a symlink) with
 * the given mode and contents, and sync it. Removes it on failure. */
static int
write_new_file(const char *path, const void *data, size_t len, mode_t mode,
    struct hp_error *err)
{
	const unsigned char *p = data;
	size_t off = 0;
	ssize_t w;
	int fd, e;

	fd = open(
	    path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd == -1) {
		if (errno == EEXIST) {
			hp_seterr(err, HP_ESTATE,
			    "%s already exists; not overwriting a key", path);
			return HP_ESTATE;
		}
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		return HP_EIO;
	}
	if (fchmod(fd, mode) == -1)
		goto fail;
	while (off < len) {
		if ((w = write(fd, p + off, len - off)) < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		off += (size_t)w;
	}
	if (fsync(fd) == -1)
		goto fail;
	if (close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	return HP_OK;
fail:
	e = errno;
	if (fd != -1)
		close(fd);
	unlink(path);
	hp_seterr(err, HP_EIO, "%s: %s", path, strerror(e));
	return HP_EIO;
}

/* BLAKE2b-256 checksum of a decoded secret key (sig alg, key id, key). */
static void
sk_checksum(const unsigned char *sk, unsigned char chk[32])
{
	crypto_generichash_state hs;

	crypto_generichash_init(&hs, NULL, 0, 32);
	crypto_generichash_update(&hs, sk + SK_ALG, ALG_LEN);
	crypto_generichash_update(&hs, sk + SK_KEYID, MINISIGN_KEYID_LEN);
	crypto_generichash_update(&hs, sk + SK_SK, 64);
	crypto_generichash_final(&hs, chk, 32);
	sodium_memzero(&hs, sizeof hs);
}

/* Append "prefix" "comment" "\n" "base64(bin)" "\n" at *off in dst. */
static void
put_record(char *dst, size_t *off, const char *comment,
    const unsigned char *bin, size_t binlen)
{
	size_t n;

	n = strlen(UNTRUSTED_PREFIX);
	memcpy(dst + *off, UNTRUSTED_PREFIX, n);
	*off += n;
	n = strlen(comment);
	memcpy(dst + *off, comment, n);
	*off += n;
	dst[(*off)++] = '\n';
	sodium_bin2base64(dst + *off,
	    sodium_base64_encoded_len(binlen, sodium_base64_VARIANT_ORIGINAL),
	    bin, binlen, sodium_base64_VARIANT_ORIGINAL);
	*off += strlen(dst + *off);
	dst[(*off)++] = '\n';
	dst[*off] = '\0';
}

/* Create the server's key pair files (secret key unencrypted, mode 0600). */
int
minisign_keygen(const char *seckey_path, const char *pubkey_path,
    const char *comment, struct hp_error *err)
{
	unsigned char *sk = NULL, pkbin[PK_BIN];
	char *sktext = NULL, pktext[512], pkcomment[256], id[17];
	char skcomment[64];
	size_t sksize, off;
	struct stat st;
	int rc;

	ms_init();
	if (comment != NULL &&
	    (rc = check_comment("public key comment", comment,
		 sizeof pkcomment - 1, err)) != 0)
		return rc;
	if (lstat(pubkey_path, &st) == 0) {
		hp_seterr(err, HP_ESTATE,
		    "%s already exists; not overwriting a key", pubkey_path);
		return HP_ESTATE;
	}

	sksize = PREFIX_LEN(UNTRUSTED_PREFIX) + sizeof skcomment +
	    sodium_base64_encoded_len(SK_BIN, sodium_base64_VARIANT_ORIGINAL) +
	    4;
	if ((sk = sodium_malloc(SK_BIN)) == NULL ||
	    (sktext = sodium_malloc(sksize)) == NULL) {
		hp_seterr(err, HP_ENOMEM, "sodium_malloc: out of memory");
		rc = HP_ENOMEM;
		goto out;
	}
	memset(sk, 0, SK_BIN);
	memcpy(sk + SK_ALG, "Ed", ALG_LEN);
	/* kdf "\0\0": unencrypted; salt and limits stay zero. */
	memcpy(sk + SK_CHKALG, "B2", ALG_LEN);
	randombytes_buf(sk + SK_KEYID, MINISIGN_KEYID_LEN);
	memcpy(pkbin, "Ed", ALG_LEN);
	memcpy(pkbin + ALG_LEN, sk + SK_KEYID, MINISIGN_KEYID_LEN);
	if (crypto_sign_keypair(
		pkbin + ALG_LEN + MINISIGN_KEYID_LEN, sk + SK_SK) != 0) {
		hp_seterr(err, HP_EINTERNAL, "crypto_sign_keypair failed");
		rc = HP_EINTERNAL;
		goto out;
	}
	sk_checksum(sk, sk + SK_CHK);
	minisign_keyid_hex(sk + SK_KEYID, id);

	snprintf(skcomment, sizeof skcomment,
	    "minisign unencrypted secret key %s", id);
	off = 0;
	put_record(sktext, &off, skcomment, sk, SK_BIN);
	if ((rc = write_new_file(seckey_path, sktext, off, 0600, err)) != 0)
		goto out;

	if (comment == NULL)
		snprintf(
		    pkcomment, sizeof pkcomment, "minisign public key %s", id);
	else
		strlcpy_(pkcomment, comment, sizeof pkcomment);
	off = 0;
	put_record(pktext, &off, pkcomment, pkbin, sizeof pkbin);
	if ((rc = write_new_file(pubkey_path, pktext, off, 0644, err)) != 0)
		unlink(seckey_path);
out:
	if (sk != NULL)
		sodium_free(sk); /* wipes the pages first */
	if (sktext != NULL)
		sodium_free(sktext);
	return rc;
}

/* Read a secret key file into sodium_malloc memory (NUL-terminated, size
 * in *lenp): *bufp is the caller's, to release with sodium_free. */
static int
read_secret_file(const char *path, bool private_file, char **bufp,
    size_t *lenp, struct hp_error *err)
{
	struct stat st;
	char *buf = NULL;
	size_t off = 0;
	ssize_t r;
	int fd, rc = HP_EIO;

	*bufp = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | (private_file ?
	    O_NOFOLLOW : 0))) == -1) {
		if (errno == ELOOP && private_file) {
			hp_seterr(err, HP_EINVAL, "%s: a symbolic link; a secret "
			    "key must be named by its real path", path);
			return HP_EINVAL;
		}
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		return HP_EIO;
	}
	if (fstat(fd, &st) == -1) {
		hp_seterr(err, HP_EIO, "%s: %s", path, strerror(errno));
		goto fail;
	}
	rc = HP_EINVAL;
	/* The checks are made on the descriptor read from, so the file
	 * cannot be swapped between them and the read. */
	if (private_file && S_ISREG(st.st_mode) && (st.st_mode & 077) != 0) {
		hp_seterr(err, rc, "%s: mode %03o lets others read it; chmod "
		    "600 %s", path, (unsigned)(st.st_mode & 0777), path);
		goto fail;
	}
	if (private_file && st.st_uid != geteuid()) {
		hp_seterr(err, rc, "%s: owned by uid %u, not by the user "
		    "running hexpost (uid %u); chown it", path,
		    (unsigned)st.st_uid, (unsigned)geteuid());
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > SK_FILE_MAX) {
		hp_seterr(err, rc, "%s: not a minisign secret key file", path);
		goto fail;
	}
	if ((buf = sodium_malloc(SK_FILE_MAX + 2)) == NULL) {
		rc = HP_ENOMEM;
		hp_seterr(err, rc, "sodium_malloc: out of memory");
		goto fail;
	}
	/* Read one byte more than allowed to notice a file that grew. */
	while (off < SK_FILE_MAX + 1) {
		r = read(fd, buf + off, SK_FILE_MAX + 1 - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = HP_EIO;
			hp_seterr(err, rc, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		off += (size_t)r;
	}
	if (off > SK_FILE_MAX) {
		hp_seterr(err, rc, "%s: not a minisign secret key file", path);
		goto fail;
	}
	buf[off] = '\0';
	close(fd);
	*bufp = buf;
	*lenp = off;
	return HP_OK;
fail:
	if (buf != NULL)
		sodium_free(buf);
	close(fd);
	return rc;
}

/* Load and check an unencrypted secret key file: *skp, the decoded key
 * (SK_BIN bytes of sodium_malloc memory), is the caller's to sodium_free. */
static int
load_seckey(const char *path, bool private_file, unsigned char **skp,
    struct hp_error *err)
{
	struct cursor c;
	const char *line;
	unsigned char *sk = NULL, *chk = NULL, *kp = NULL;
	unsigned char pk[32];
	char *text, an[16];
	size_t len, n;
	int rc;

	*skp = NULL;
	if ((rc = read_secret_file(path, private_file, &text, &len, err)) !=
	    0)
		return rc;
	cursor_init(&c, text, len, path);
	if ((sk = sodium_malloc(SK_BIN)) == NULL ||
	    (chk = sodium_malloc(32)) == NULL ||
	    (kp = sodium_malloc(64)) == NULL) {
		rc = HP_ENOMEM;
		hp_seterr(err, rc, "sodium_malloc: out of memory");
		goto out;
	}
	if ((rc = need_line(&c, &line, &n, "the comment line", err)) != 0)
		goto out;
	rc = HP_EINVAL;
	if (!has_prefix(line, n, UNTRUSTED_PREFIX)) {
		hp_seterr(err, rc,
		    "%s: line 1 must start with \"" UNTRUSTED_PREFIX "\"",
		    path);
		goto out;
	}
	if ((rc = need_line(&c, &line, &n, "the key line", err)) != 0 ||
	    (rc = b64_exact(&c, line, n, sk, SK_BIN, err)) != 0 ||
	    (rc = expect_end(&c, err)) != 0)
		goto out;
	rc = HP_EINVAL;
	if (memcmp(sk + SK_ALG, "Ed", ALG_LEN) != 0) {
		hp_seterr(err, rc, "%s: unsupported signature algorithm %s",
		    path, alg_name(sk + SK_ALG, an, sizeof an));
		goto out;
	}
	if (memcmp(sk + SK_CHKALG, "B2", ALG_LEN) != 0) {
		hp_seterr(err, rc, "%s: unsupported checksum algorithm %s",
		    path, alg_name(sk + SK_CHKALG, an, sizeof an));
		goto out;
	}
	if (memcmp(sk + SK_KDF, "Sc", ALG_LEN) == 0) {
		hp_seterr(err, rc,
		    "%s: the secret key is encrypted with a "
		    "password; the server needs an unencrypted key "
		    "(minisign -C -W -s %s removes the password)",
		    path, path);
		goto out;
	}
	if (!sodium_is_zero(sk + SK_KDF, ALG_LEN)) {
		hp_seterr(err, rc, "%s: unsupported key derivation function %s",
		    path, alg_name(sk + SK_KDF, an, sizeof an));
		goto out;
	}
	/* minisign 0.11 writes unencrypted keys with a zero checksum. */
	sk_checksum(sk, chk);
	if (!sodium_is_zero(sk + SK_CHK, 32) &&
	    sodium_memcmp(chk, sk + SK_CHK, 32) != 0) {
		hp_seterr(err, rc,
		    "%s: secret key checksum does not match "
		    "(damaged key file?)",
		    path);
		goto out;
	}
	/* The key's second half is its public key: recompute it. */
	if (crypto_sign_seed_keypair(pk, kp, sk + SK_SK) != 0 ||
	    sodium_memcmp(kp, sk + SK_SK, 64) != 0) {
		hp_seterr(err, rc,
		    "%s: damaged secret key (its public half does not match)",
		    path);
		goto out;
	}
	rc = HP_OK;
	*skp = sk;
	sk = NULL;
out:
	sodium_free(text);
	if (chk != NULL)
		sodium_free(chk);
	if (kp != NULL)
		sodium_free(kp);
	if (sk != NULL)
		sodium_free(sk);
	return rc;
}

struct minisign_seckey {
	unsigned char bin[SK_BIN];
};

/* Load an unencrypted secret key file into sodium_malloc memory, read-only
 * from then on; the caller owns *out (minisign_seckey_free wipes it). */
/* Load a secret key file, private_file: refusing a symlink, a mode with
 * group or other bits and an owner other than the running user. */
static int
seckey_load(const char *path, bool private_file,
    struct minisign_seckey **out, struct hp_error *err)
{
	unsigned char *sk;
	int rc;

	*out = NULL;
	ms_init();
	if ((rc = load_seckey(path, private_file, &sk, err)) != 0)
		return rc;
	sodium_mprotect_readonly(sk);
	*out = (struct minisign_seckey *)sk;
	return HP_OK;
}

int
minisign_seckey_load(const char *path, struct minisign_seckey **out,
    struct hp_error *err)
{
	return seckey_load(path, false, out, err);
}

/* Like minisign_seckey_load, for a key only the running user may hold:
 * opened once without following a symlink, its mode (no group or other
 * bits) and owner checked on that descriptor. */
int
minisign_seckey_load_private(const char *path,
    struct minisign_seckey **out, struct hp_error *err)
{
	return seckey_load(path, true, out, err);
}

/* Wipe and release a key from minisign_seckey_load (NULL is fine). */
void
minisign_seckey_free(struct minisign_seckey *k)
{
	if (k != NULL)
		sodium_free(k);
}

/* The public key of a loaded secret key (comment left empty). */
void
minisign_seckey_pubkey(const struct minisign_seckey *k,
    struct minisign_pubkey *pk)
{
	memset(pk, 0, sizeof *pk);
	memcpy(pk->keyid, k->bin + SK_KEYID, MINISIGN_KEYID_LEN);
	memcpy(pk->pk, k->bin + SK_SK + 32, 32);
}

/* Sign msg (prehashed) with a loaded key; *sigtext, the signature file's
 * text, is the caller's to free. */
int
minisign_sign_text(const struct minisign_seckey *k, const unsigned char *msg,
    size_t len, const char *trusted_comment, char **sigtext,
    struct hp_error *err)
{
	static const unsigned char empty[1];
	const unsigned char *sk = k->bin;
	unsigned char hash[crypto_generichash_BYTES_MAX];
	unsigned char sigbin[SIG_BIN], gsig[GSIG_BIN];
	unsigned char buf[64 + TRUSTED_MAX + 1];
	char deftc[64], *text;
	size_t tl, off, tsz;
	int rc;

	*sigtext = NULL;
	if (msg == NULL && len > 0) {
		hp_seterr(err, HP_EINVAL, "minisign_sign_text: missing message");
		return HP_EINVAL;
	}
	ms_init();
	if (msg == NULL)
		msg = empty;
	if (trusted_comment == NULL || *trusted_comment == '\0') {
		snprintf(deftc, sizeof deftc, "timestamp:%lld\thashed",
		    (long long)time(NULL));
		trusted_comment = deftc;
	}
	if ((rc = check_comment(
		 "trusted comment", trusted_comment, TRUSTED_MAX, err)) != 0)
		return rc;

	crypto_generichash(hash, sizeof hash, msg, len, NULL, 0);
	memcpy(sigbin, "ED", ALG_LEN);
	memcpy(sigbin + ALG_LEN, sk + SK_KEYID, MINISIGN_KEYID_LEN);
	crypto_sign_detached(sigbin + ALG_LEN + MINISIGN_KEYID_LEN, NULL, hash,
	    sizeof hash, sk + SK_SK);
	tl = strlen(trusted_comment);
	memcpy(buf, sigbin + ALG_LEN + MINISIGN_KEYID_LEN, 64);
	memcpy(buf + 64, trusted_comment, tl);
	crypto_sign_detached(gsig, NULL, buf, 64 + tl, sk + SK_SK);

	tsz = PREFIX_LEN(UNTRUSTED_PREFIX) + strlen(DEFAULT_SIG_COMMENT) +
	    PREFIX_LEN(TRUSTED_PREFIX) + tl +
	    sodium_base64_encoded_len(SIG_BIN, sodium_base64_VARIANT_ORIGINAL) +
	    sodium_base64_encoded_len(
		GSIG_BIN, sodium_base64_VARIANT_ORIGINAL) +
	    4;
	text = xmalloc(tsz);
	off = 0;
	put_record(text, &off, DEFAULT_SIG_COMMENT, sigbin, sizeof sigbin);
	memcpy(text + off, TRUSTED_PREFIX, PREFIX_LEN(TRUSTED_PREFIX));
	off += PREFIX_LEN(TRUSTED_PREFIX);
	memcpy(text + off, trusted_comment, tl);
	off += tl;
	text[off++] = '\n';
	sodium_bin2base64(text + off, tsz - off, gsig, sizeof gsig,
	    sodium_base64_VARIANT_ORIGINAL);
	off += strlen(text + off);
	text[off++] = '\n';
	text[off] = '\0';
	*sigtext = text;
	return HP_OK;
}

/* Sign msg (prehashed) with a secret key file; *sigtext, the signature
 * file's text, is the caller's to free. */
int
minisign_sign_file_text(const char *seckey_path, const unsigned char *msg,
    size_t len, const char *trusted_comment, char **sigtext,
    struct hp_error *err)
{
	struct minisign_seckey *k;
	int rc;

	*sigtext = NULL;
	if (msg == NULL && len > 0) {
		hp_seterr(
		    err, HP_EINVAL, "minisign_sign_file_text: missing message");
		return HP_EINVAL;
	}
	if (trusted_comment != NULL && *trusted_comment != '\0' &&
	    (rc = check_comment("trusted comment", trusted_comment,
	    TRUSTED_MAX, err)) != 0)
		return rc;
	if ((rc = minisign_seckey_load(seckey_path, &k, err)) != 0)
		return rc;
	rc = minisign_sign_text(k, msg, len, trusted_comment, sigtext, err);
	minisign_seckey_free(k);
	return rc;
}

void
minisign_pubkey_text(const struct minisign_pubkey *pk, char *buf, size_t len)
{
	unsigned char bin[42];
	char b64[64], id[17];

	memcpy(bin, "Ed", 2);
	memcpy(bin + 2, pk->keyid, 8);
	memcpy(bin + 10, pk->pk, 32);
	sodium_bin2base64(b64, sizeof b64, bin, sizeof bin,
	    sodium_base64_VARIANT_ORIGINAL);
	snprintf(buf, len, "untrusted comment: minisign public key %s\n%s\n",
	    minisign_keyid_hex(pk->keyid, id), b64);
}
