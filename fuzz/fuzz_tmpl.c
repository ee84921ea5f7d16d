/* libFuzzer harness for tmpl: renders the input as a template against a
 * small fixed context with strings, empty strings and nested lists. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tmpl.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Build the context shared by every run; it is never freed. */
static struct tmpl_ctx *
fuzz_ctx(void)
{
	struct tmpl_ctx *c = tmpl_ctx_new(), *it, *sub;
	int i, j;

	tmpl_set(c, "a", "A");
	tmpl_set(c, "s", "yes");
	tmpl_set(c, "e", "");
	tmpl_set_int(c, "n", 42);
	for (i = 0; i < 3; i++) {
		it = tmpl_list_add(c, "l");
		tmpl_set_int(it, "i", i);
		tmpl_set(it, "e", i == 1 ? "" : "x");
		for (j = 0; j < 2; j++) {
			sub = tmpl_list_add(it, "m");
			tmpl_setf(sub, "a", "%d.%d", i, j);
		}
	}
	return c;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tmpl_ctx *c;
	struct sbuf out;
	struct hp_error err;
	char *text;
	int rc;

	if (c == NULL)
		c = fuzz_ctx();
	text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	sbuf_init(&out);
	memset(&err, 0, sizeof(err));
	rc = tmpl_render(text, c, &out, &err);
	if (rc != HP_OK && (rc != HP_EINVAL || err.code != HP_EINVAL ||
	    strncmp(err.msg, "template line ", 14) != 0))
		abort();
	if (rc != HP_OK && out.len != 0)
		abort();
	sbuf_free(&out);
	free(text);
	return 0;
}
