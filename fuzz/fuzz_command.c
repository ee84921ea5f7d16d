/* libFuzzer harness for command files (moderator_parse). Checked on every
 * run: moderator_is_command never reads past the input; a file that parses
 * has a campaign and a lower-case verb, every field NUL-terminated within
 * its buffer, and an argument without leading blanks; one that does not
 * parse says why. */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moderator.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hp_error err = { 0, "" };
	struct mod_command c;
	char *copy = malloc(size ? size : 1);
	size_t i;

	/* A private copy, so reading past the end is caught. */
	memcpy(copy, data, size);
	(void)moderator_is_command(copy, size);
	if (moderator_parse(copy, size, &c, &err) == HP_OK) {
		if (c.campaign[0] == '\0' || c.verb[0] == '\0')
			abort();
		if (strnlen(c.campaign, sizeof c.campaign) == sizeof c.campaign ||
		    strnlen(c.arg, sizeof c.arg) == sizeof c.arg ||
		    strnlen(c.nonce, sizeof c.nonce) == sizeof c.nonce ||
		    strnlen(c.key, sizeof c.key) == sizeof c.key ||
		    strnlen(c.email, sizeof c.email) == sizeof c.email)
			abort();
		for (i = 0; c.verb[i] != '\0'; i++)
			if (isupper((unsigned char)c.verb[i]))
				abort();
		if (c.arg[0] == ' ' || c.arg[0] == '\t')
			abort();
	} else if (err.code != HP_EINVAL || err.msg[0] == '\0')
		abort();
	free(copy);
	return 0;
}
