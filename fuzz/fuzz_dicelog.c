/* libFuzzer harness for the dice log parser (src/dicelog.c). The input,
 * cut at its first NUL byte, is parsed as a dice log; seeds in
 * fuzz/corpus/dicelog are valid logs.
 *
 * Checked on every run:
 *  - a parse either succeeds or fails with HP_EINVAL and a message;
 *  - a log that parses is canonical: written back, it is the input, byte
 *    for byte, and it parses again to the same log;
 *  - checking a parsed log (seed, key, every roll) never crashes and
 *    answers HP_OK or HP_EINVAL with a message. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dicelog.h"
#include "hexpost.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Abort with a message: a broken invariant is a finding. */
static void
check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_dicelog: %s\n", what);
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hp_error err = { 0, "" };
	struct dicelog l, l2;
	struct sbuf b;
	char *text;
	int rc;

	if (size > 1 << 16)
		return 0;
	text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = '\0';
	rc = dicelog_parse(text, &l, &err);
	check(rc == HP_OK || (rc == HP_EINVAL && err.msg[0] != '\0'),
	    "parse result");
	if (rc == HP_OK) {
		sbuf_init(&b);
		dicelog_format(&l, &b);
		check(strcmp(b.buf, text) == 0, "not canonical");
		check(dicelog_parse(b.buf, &l2, &err) == HP_OK, "reparse");
		check(l2.nrolls == l.nrolls && l2.norders == l.norders,
		    "reparse differs");
		dicelog_free(&l2);
		sbuf_free(&b);
		err.msg[0] = '\0';
		rc = dicelog_check(&l, &err);
		check(rc == HP_OK || (rc == HP_EINVAL && err.msg[0] != '\0'),
		    "check result");
	}
	dicelog_free(&l);
	free(text);
	return 0;
}
