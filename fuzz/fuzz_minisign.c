/* libFuzzer harness for minisign public keys and signatures. The input is
 * split at its first NUL byte (which no valid file contains): the part
 * before is a public key, the rest a signature file (so the signature
 * parser also sees NUL bytes). Both parsers also run on the whole input.
 * When both parts parse, the signature is verified against a fixed
 * message. (Seeds in fuzz/corpus/minisign are key NUL signature; the first
 * ones are valid signatures of MESSAGE.)
 *
 * Checked on every run:
 *  - a parse either succeeds, with its strings terminated, the algorithm
 *    "ED" or "Ed" and a key id that prints as 16 hex digits, or fails
 *    with HP_EINVAL, a message and an all-zero result;
 *  - verification succeeds or fails with HP_EINVAL and a message, and
 *    gives the same answer twice. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hexpost.h"
#include "minisign.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define MESSAGE "hexpost fuzz message\n"

/* Abort with a message: a broken invariant is a finding. */
static void
check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_minisign: %s\n", what);
		abort();
	}
}

static int
all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

static int
terminated(const char *s, size_t n)
{
	return memchr(s, '\0', n) != NULL;
}

static void
check_keyid(const unsigned char id[8])
{
	char hex[17];

	check(minisign_keyid_hex(id, hex) == hex, "keyid_hex result");
	check(strlen(hex) == 16 && strspn(hex, "0123456789ABCDEF") == 16,
	    "keyid_hex digits");
}

/* Parse a public key and check the result; the rc. */
static int
parse_pub(const char *p, size_t n, struct minisign_pubkey *pk)
{
	struct hp_error err = {0, ""};
	int rc;

	rc = minisign_pubkey_parse(p, n, pk, &err);
	if (rc == HP_OK) {
		check(terminated(pk->comment, sizeof pk->comment),
		    "pubkey comment unterminated");
		check_keyid(pk->keyid);
	} else {
		check(rc == HP_EINVAL && err.code == rc, "pubkey rc");
		check(err.msg[0] != '\0', "pubkey error without message");
		check(all_zero(pk, sizeof *pk), "pubkey not cleared");
	}
	return rc;
}

/* Parse a signature and check the result; the rc. */
static int
parse_sig(const char *p, size_t n, struct minisign_sig *sig)
{
	struct hp_error err = {0, ""};
	int rc;

	rc = minisign_sig_parse(p, n, sig, &err);
	if (rc == HP_OK) {
		check(
		    strcmp(sig->alg, "ED") == 0 || strcmp(sig->alg, "Ed") == 0,
		    "sig alg");
		check(terminated(sig->trusted, sizeof sig->trusted),
		    "trusted comment unterminated");
		check(terminated(sig->untrusted, sizeof sig->untrusted),
		    "untrusted comment unterminated");
		check(strpbrk(sig->trusted, "\r\n") == NULL &&
			strpbrk(sig->untrusted, "\r\n") == NULL,
		    "line ending in a comment");
		check_keyid(sig->keyid);
	} else {
		check(rc == HP_EINVAL && err.code == rc, "sig rc");
		check(err.msg[0] != '\0', "sig error without message");
		check(all_zero(sig, sizeof *sig), "sig not cleared");
	}
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct minisign_pubkey pk;
	struct minisign_sig sig;
	struct hp_error err = {0, ""};
	const char *text = (const char *)data, *nul;
	size_t klen;
	int rc, rc2;

	/* Both parsers on the whole input. */
	parse_pub(text, size, &pk);
	parse_sig(text, size, &sig);

	nul = memchr(text, '\0', size);
	klen = nul != NULL ? (size_t)(nul - text) : size;
	if (parse_pub(text, klen, &pk) != HP_OK)
		return 0;
	if (nul == NULL)
		return 0;
	if (parse_sig(nul + 1, size - klen - 1, &sig) != HP_OK)
		return 0;

	rc = minisign_verify(
	    &pk, &sig, (const unsigned char *)MESSAGE, strlen(MESSAGE), &err);
	check(rc == HP_OK || (rc == HP_EINVAL && err.msg[0] != '\0'),
	    "verify rc");
	rc2 = minisign_verify(
	    &pk, &sig, (const unsigned char *)MESSAGE, strlen(MESSAGE), NULL);
	check(rc == rc2, "verify not deterministic");
	return 0;
}
