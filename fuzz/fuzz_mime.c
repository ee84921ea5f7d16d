/* libFuzzer harness for the mail reader: mime_parse on the input, then
 * mime_msg_free. Checked on every run:
 *  - a refusal has a message and leaves nothing allocated;
 *  - an accepted message keeps to the limits, its strings are valid
 *    UTF-8 without line breaks, content types are lower-case, each part
 *    is NUL-terminated, text bodies are valid UTF-8 without NUL bytes,
 *    filenames are unique and mime_find finds each of them.
 *  - wherever mime_parse's fast reader takes the input (issue 17), its
 *    result is GMime's, field for field and byte for byte.
 * Seeds in fuzz/corpus/mime are the sample mails of tests/data/mail, and
 * player.eml, a mail as contrib/hexpost-player writes it. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "mime.h"

int LLVMFuzzerInitialize(int *, char ***);
int LLVMFuzzerTestOneInput(const uint8_t *, size_t);
/* The two readers of mime_parse (src/mime.c, for tests only). */
int mime_parse_gmime(const unsigned char *, size_t, struct mime_msg *,
    struct hp_error *);
int mime_parse_fast(const unsigned char *, size_t, struct mime_msg *);

/* Is s (len bytes) valid UTF-8 (shortest forms, no surrogates)? */
static bool
utf8_ok(const unsigned char *s, size_t len)
{
	size_t i = 0, n, k;
	uint32_t c;

	while (i < len) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if (s[i] >= 0xc2 && s[i] <= 0xdf)
			n = 1, c = s[i] & 0x1f;
		else if (s[i] >= 0xe0 && s[i] <= 0xef)
			n = 2, c = s[i] & 0x0f;
		else if (s[i] >= 0xf0 && s[i] <= 0xf4)
			n = 3, c = s[i] & 0x07;
		else
			return false;
		if (len - i <= n)
			return false;
		for (k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			c = c << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 2 && c < 0x800) || (n == 3 && c < 0x10000) ||
		    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			return false;
		i += n + 1;
	}
	return true;
}

/* A header string of the result: NULL or valid UTF-8 without CR or LF. */
static void
check_str(const char *s)
{
	if (s == NULL)
		return;
	if (!utf8_ok((const unsigned char *)s, strlen(s)) ||
	    strpbrk(s, "\r\n") != NULL)
		abort();
}

/* Equal strings, both NULL included. */
static bool
same_str(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

/* Where the fast reader takes data, GMime must read the same. */
static void
check_fast(const uint8_t *data, size_t size)
{
	struct mime_msg f, g;
	struct hp_error err;
	size_t i;

	memset(&err, 0, sizeof err);
	if (mime_parse_fast(data, size, &f) != HP_OK) {
		mime_msg_free(&f);
		return;
	}
	if (mime_parse_gmime(data, size, &g, &err) != HP_OK)
		abort();
	if (!same_str(f.message_id, g.message_id) || !same_str(f.from,
	    g.from) || !same_str(f.reply_to, g.reply_to) ||
	    !same_str(f.subject, g.subject) || f.automatic != g.automatic ||
	    strcmp(f.auto_reason, g.auto_reason) != 0 ||
	    f.html_only != g.html_only || f.from_ambiguous !=
	    g.from_ambiguous || memcmp(f.hash, g.hash, sizeof f.hash) != 0 ||
	    f.nparts != g.nparts)
		abort();
	for (i = 0; i < f.nparts; i++) {
		const struct mime_part *a = &f.parts[i], *b = &g.parts[i];

		if (!same_str(a->filename, b->filename) ||
		    !same_str(a->content_type, b->content_type) ||
		    a->attachment != b->attachment || a->base64 != b->base64 ||
		    a->len != b->len || memcmp(a->data, b->data, a->len) != 0)
			abort();
	}
	mime_msg_free(&f);
	mime_msg_free(&g);
}

/* GLib's slice allocator would keep leaked GMime objects reachable, out
 * of LeakSanitizer's sight; plain malloc shows them. GLib reads G_SLICE
 * before this runs, so run again with it set. */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	if (getenv("G_SLICE") == NULL) {
		setenv("G_SLICE", "always-malloc", 1);
		execv("/proc/self/exe", *argv);
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mime_msg m;
	struct hp_error err;
	const struct mime_part *p;
	size_t i, j;
	const char *c;

	memset(&err, 0, sizeof err);
	if (mime_parse(data, size, &m, &err) != HP_OK) {
		if (err.code != HP_EINVAL || err.msg[0] == '\0' ||
		    m.parts != NULL || m.nparts != 0 || m.from != NULL ||
		    m.reply_to != NULL || m.subject != NULL ||
		    m.message_id != NULL)
			abort();
		mime_msg_free(&m);
		return 0;
	}
	if (m.nparts > MIME_MAX_PARTS || (m.nparts != 0 && m.parts == NULL))
		abort();
	check_str(m.message_id);
	check_str(m.from);
	check_str(m.reply_to);
	check_str(m.subject);
	if (m.automatic != (m.auto_reason[0] != '\0'))
		abort();
	for (i = 0; i < m.nparts; i++) {
		p = &m.parts[i];
		if (p->content_type == NULL || p->data == NULL ||
		    p->data[p->len] != '\0')
			abort();
		for (c = p->content_type; *c != '\0'; c++)
			if (*c >= 'A' && *c <= 'Z')
				abort();
		if (!p->attachment) {
			if (strncmp(p->content_type, "text/", 5) != 0 ||
			    memchr(p->data, '\0', p->len) != NULL ||
			    !utf8_ok(p->data, p->len))
				abort();
		} else if (p->len > MIME_MAX_PART)
			abort();
		if (p->filename == NULL)
			continue;
		check_str(p->filename);
		if (mime_find(&m, p->filename) != p)
			abort();
		for (j = 0; j < i; j++)
			if (m.parts[j].filename != NULL &&
			    strcasecmp(m.parts[j].filename, p->filename) == 0)
				abort();
	}
	if (m.html_only && m.nparts == 0)
		abort();
	mime_msg_free(&m);
	check_fast(data, size);
	return 0;
}
