/* Unit tests for mime_parse's fast reader (src/mime.c, issue 17): wherever
 * it reads a message itself, its result must be GMime's, field for field
 * and byte for byte (sender, reply address, subject, Message-ID, the
 * automatic flags, every part's name, type, flags and decoded bytes), so
 * intake's decision and its reply are the same whichever reader ran. Run
 * over every sample mail (tests/data/mail, tests/data/corpus), the MIME
 * fuzz corpus (fuzz/corpus/mime), mails as contrib/hexpost-player and
 * common clients write them, and thousands of small mutations of those
 * (bytes cut, dropped, inserted or replaced where a parser could go
 * wrong). The fast reader must also take the player's own mail, or the
 * speed-up is gone. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mime.h"

/* The two readers of mime_parse (src/mime.c, for tests only). */
int mime_parse_gmime(const unsigned char *, size_t, struct mime_msg *,
    struct hp_error *);
int mime_parse_fast(const unsigned char *, size_t, struct mime_msg *);

static int n_fast, n_total;

/* Equal strings, both NULL included. */
static void
same_str(const char *a, const char *b, const char *what)
{
	if (a == NULL || b == NULL) {
		if (a != b)
			fail_msg("%s: %s against %s", what, a ? a : "(null)",
			    b ? b : "(null)");
		return;
	}
	if (strcmp(a, b) != 0)
		fail_msg("%s: \"%s\" against GMime's \"%s\"", what, a, b);
}

/* Read raw with both readers; when the fast one answers, its result must
 * be GMime's. Returns whether the fast reader took it. */
static bool
compare(const unsigned char *raw, size_t len, const char *label)
{
	struct mime_msg f, g;
	struct hp_error err = { 0, "" };
	int rf, rg;
	size_t i;

	n_total++;
	rf = mime_parse_fast(raw, len, &f);
	rg = mime_parse_gmime(raw, len, &g, &err);
	if (rf != HP_OK) {
		assert_int_equal(rf, HP_ENOENT);
		assert_int_equal(f.nparts, 0);
		assert_null(f.from);
		if (rg == HP_OK)
			mime_msg_free(&g);
		return false;
	}
	n_fast++;
	if (rg != HP_OK)
		fail_msg("%s: the fast reader took a message GMime's path "
		    "refuses (%s)", label, err.msg);
	same_str(f.message_id, g.message_id, "message_id");
	same_str(f.from, g.from, "from");
	same_str(f.reply_to, g.reply_to, "reply_to");
	same_str(f.subject, g.subject, "subject");
	assert_int_equal(f.automatic, g.automatic);
	assert_string_equal(f.auto_reason, g.auto_reason);
	assert_int_equal(f.html_only, g.html_only);
	assert_int_equal(f.from_ambiguous, g.from_ambiguous);
	assert_memory_equal(f.hash, g.hash, sizeof f.hash);
	if (f.nparts != g.nparts)
		fail_msg("%s: %zu parts against GMime's %zu", label, f.nparts,
		    g.nparts);
	for (i = 0; i < f.nparts; i++) {
		const struct mime_part *a = &f.parts[i], *b = &g.parts[i];

		same_str(a->filename, b->filename, "filename");
		same_str(a->content_type, b->content_type, "content_type");
		assert_int_equal(a->attachment, b->attachment);
		assert_int_equal(a->base64, b->base64);
		if (a->len != b->len || memcmp(a->data, b->data, a->len) != 0)
			fail_msg("%s: part %zu: %zu bytes \"%.60s\" against "
			    "GMime's %zu \"%.60s\"", label, i, a->len,
			    (const char *)a->data, b->len,
			    (const char *)b->data);
		assert_int_equal(a->data[a->len], 0);
	}
	mime_msg_free(&f);
	mime_msg_free(&g);
	return true;
}

/* Every file of directory dir under the source tree. */
static void
compare_dir(const char *dir)
{
	const char *src = getenv("HEXPOST_SOURCE");
	struct hp_error err = { 0, "" };
	char path[2048];
	struct dirent *d;
	DIR *dp;
	int n = 0;

	snprintf(path, sizeof path, "%s/%s", src ? src : ".", dir);
	if ((dp = opendir(path)) == NULL)
		fail_msg("%s: cannot open", path);
	while ((d = readdir(dp)) != NULL) {
		size_t len;
		char *raw;

		if (d->d_name[0] == '.' || strcmp(d->d_name, "README") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s/%s", src ? src : ".", dir,
		    d->d_name);
		if ((raw = util_read_file(path, &len, &err)) == NULL)
			fail_msg("%s", err.msg);
		if (!compare((const unsigned char *)raw, len, d->d_name) &&
		    strcmp(d->d_name, "player.eml") == 0)
			fail_msg("%s: the fast reader left it to GMime", path);
		free(raw);
		n++;
	}
	closedir(dp);
	assert_true(n > 5);
}

/* The sample mails and the fuzz corpus. */
static void
test_corpus(void **state)
{
	(void)state;
	compare_dir("tests/data/mail");
	compare_dir("tests/data/corpus");
	compare_dir("fuzz/corpus/mime");
}

/* Base64 in lines of 76, each ended by eol. */
static void
b64(struct sbuf *b, const char *data, const char *eol)
{
	size_t n = strlen(data), m = sodium_base64_ENCODED_LEN(n,
	    sodium_base64_VARIANT_ORIGINAL), i, el;
	char *enc = xmalloc(m);

	sodium_bin2base64(enc, m, (const unsigned char *)data, n,
	    sodium_base64_VARIANT_ORIGINAL);
	el = strlen(enc);
	for (i = 0; i < el; i += 76) {
		sbuf_add(b, enc + i, el - i < 76 ? el - i : 76);
		sbuf_puts(b, eol);
	}
	free(enc);
}

static const char ORDERS[] = "campaign: demo\nturn: 3\nwindow: blue\n"
    "side: blue\nnonce: 5f0c\n\nmove 1 B3\nfire 2 C4\n";
static const char MINISIG[] =
    "untrusted comment: signature from minisign secret key\n"
    "RUQf6LRCGA9i559r3g7V1qNyJDApGip8MfqcadIgT9CuhV3EMhHoN1mGTkUidF/z7Srl"
    "QgXdy8ofjb7bNJJylDOocrCo8KLzZwo=\n"
    "trusted comment: timestamp:1704184200\tfile:orders.txt\thashed\n"
    "SzSLpsYsL0Jd2pNJx8CJv4W0IgS+JJfUNVuVNk2jyq8O6ICiUyBL0LMIGtfmq9pFyoRQ"
    "09n+5I9wDbpxjxzYCw==\n";

/* A mail as contrib/hexpost-player writes it (variant 0), or as other
 * senders do (1: LF line ends, a display name, Reply-To, trace fields;
 * 2: a preamble, 7bit attachments, the signature as
 * application/octet-stream, upper-case names; 3: quoted display name,
 * inline text with an 8bit body, unquoted parameters). Caller frees. */
static char *
player_mail(int variant, size_t *len)
{
	const char *eol = variant == 1 || variant == 3 ? "\n" : "\r\n", *o;
	struct sbuf b;

	sbuf_init(&b);
	if (variant == 1)
		sbuf_printf(&b, "Return-Path: <blue@example.org>%s"
		    "Received: from mx.example.org by hexpost.example;%s"
		    "\tSat, 28 Nov 2026 01:00:00 +0000%s"
		    "Received: from a by b; Sat, 28 Nov 2026 00:59:00 +0000%s"
		    "From: Blue Player <blue@example.org>%s"
		    "Reply-To: blue.player@mail.example.org%s", eol, eol, eol,
		    eol, eol, eol);
	else if (variant == 3)
		sbuf_printf(&b, "From: \"Player, Blue\" <blue@example.org>%s",
		    eol);
	else
		sbuf_printf(&b, "From: blue@example.org%s", eol);
	sbuf_printf(&b, "To: hexpost@example.org%sSubject: orders: demo turn "
	    "3 blue %sDate: Sat, 28 Nov 2026 01:00:00 +0000%s"
	    "Message-ID: <1764291600.5f0c@bench.example>%s"
	    "MIME-Version: 1.0%s", eol, eol, eol, eol, eol);
	if (variant == 2)
		sbuf_printf(&b, "CONTENT-TYPE: Multipart/Mixed; "
		    "BOUNDARY=\"----=_Part_1\"%s%sThis is a multi-part "
		    "message in MIME format.%s", eol, eol, eol);
	else if (variant == 3)
		sbuf_printf(&b, "Content-Type: multipart/mixed; "
		    "boundary=hexpost-5f0c%s%s", eol, eol);
	else
		sbuf_printf(&b, "Content-Type: multipart/mixed; "
		    "boundary=\"hexpost-5f0c\"%s%s", eol, eol);
#define BND (variant == 2 ? "----=_Part_1" : "hexpost-5f0c")
	sbuf_printf(&b, "--%s%sContent-Type: text/plain; charset=%s%s",
	    BND, eol, variant == 2 ? "UTF-8" : "utf-8", eol);
	if (variant == 3)
		sbuf_printf(&b, "Content-Transfer-Encoding: 8bit%s"
		    "Content-Disposition: inline%s%sOrders attached, "
		    "caf\xc3\xa9.%s%s", eol, eol, eol, eol, eol);
	else
		sbuf_printf(&b, "%sSigned orders attached.%s%s", eol, eol,
		    eol);
	sbuf_printf(&b, "--%s%s", BND, eol);
	if (variant == 2) {
		sbuf_printf(&b, "Content-Type: text/plain; name=\"orders.txt\""
		    "%sContent-Disposition: attachment; filename=\"orders.txt\""
		    "%sContent-Transfer-Encoding: 7bit%s%s", eol, eol, eol,
		    eol);
		for (o = ORDERS; *o != '\0'; o++)
			if (*o == '\n')
				sbuf_puts(&b, eol);
			else
				sbuf_add(&b, o, 1);
		sbuf_printf(&b, "%s--%s%s", eol, BND, eol);
		sbuf_printf(&b, "Content-Type: application/octet-stream; "
		    "name=\"orders.txt.minisig\"%sContent-Disposition: "
		    "attachment; filename=\"orders.txt.minisig\"%s"
		    "Content-Transfer-Encoding: base64%s%s", eol, eol, eol,
		    eol);
		b64(&b, MINISIG, eol);
	} else {
		sbuf_printf(&b, "Content-Type: text/plain; charset=utf-8; "
		    "name=%s%sContent-Disposition: attachment; filename=%s%s"
		    "Content-Transfer-Encoding: base64%s%s", variant == 3 ?
		    "orders.txt" : "\"orders.txt\"", eol, variant == 3 ?
		    "orders.txt" : "\"orders.txt\"", eol, eol, eol);
		b64(&b, ORDERS, eol);
		sbuf_printf(&b, "%s--%s%s", eol, BND, eol);
		sbuf_printf(&b, "Content-Type: text/plain; charset=utf-8; "
		    "name=\"orders.txt.minisig\"%sContent-Disposition: "
		    "attachment; filename=\"orders.txt.minisig\"%s"
		    "Content-Transfer-Encoding: base64%s%s", eol, eol, eol,
		    eol);
		b64(&b, MINISIG, eol);
	}
	sbuf_printf(&b, "%s--%s--%s", eol, BND, eol);
#undef BND
	*len = b.len;
	return sbuf_steal(&b);
}

/* The player's mail and the other senders' are read by the fast reader,
 * as GMime reads them. */
static void
test_player_mails(void **state)
{
	size_t len;
	char *raw;
	int v;

	(void)state;
	for (v = 0; v < 4; v++) {
		raw = player_mail(v, &len);
		if (!compare((const unsigned char *)raw, len, "player mail"))
			fail_msg("variant %d: the fast reader left it to GMime",
			    v);
		free(raw);
	}
}

/* Small changes to those mails where a reader could go wrong: whatever
 * the fast reader still takes, it reads as GMime does. */
static void
test_mutations(void **state)
{
	static const char pick[] = " \t\r\n\"=?;-:<>@\\(),./*'%\x80\xc3";
	uint32_t seed = 17;
	size_t len, mlen, at, k;
	unsigned char *m;
	char *raw, label[64];
	int v, i, op, took = 0;

	(void)state;
	for (v = 0; v < 4; v++) {
		raw = player_mail(v, &len);
		m = xmalloc(len + 8);
		for (i = 0; i < 1200; i++) {
			seed = seed * 1103515245u + 12345u;
			/* Half of them among the header fields. */
			at = (seed >> 8) % (i % 2 && len > 700 ? 700 : len);
			op = (int)((seed >> 4) % 4);
			seed = seed * 1103515245u + 12345u;
			k = (seed >> 8) % (sizeof pick - 1);
			memcpy(m, raw, len);
			mlen = len;
			if (op == 0)
				mlen = at;                     /* cut */
			else if (op == 1) {                    /* drop */
				memmove(m + at, m + at + 1, len - at - 1);
				mlen = len - 1;
			} else if (op == 2) {                  /* insert */
				memmove(m + at + 1, m + at, len - at);
				m[at] = (unsigned char)pick[k];
				mlen = len + 1;
			} else                                 /* replace */
				m[at] = (unsigned char)pick[k];
			snprintf(label, sizeof label, "variant %d op %d at %zu "
			    "byte 0x%02x", v, op, at, (unsigned char)pick[k]);
			took += compare(m, mlen, label);
		}
		free(m);
		free(raw);
	}
	/* Many small changes leave a mail the fast reader still reads. */
	assert_true(took > 1000);
}

/* Cases the fuzzer found (fuzz_mime's differential check): GMime turns an
 * IDNA domain ("xn--") into Unicode, so the fast reader leaves such
 * addresses to it. */
static void
test_found(void **state)
{
	static const char *const mails[] = {
		"From: carol@example.xn--com\nSubject: s\nMessage-ID: <a@b>\n"
		"Content-Type: multipart/mixed; boundary=E\n\n--E\n"
		"Content-Type: text/plain\n\nhi\n--E--\n",
		"From: a@b\nReply-To: X <r@xn--bcher-kva.example>\n"
		"Message-ID: <m@xn--bcher-kva.example>\n"
		"Content-Type: multipart/mixed; boundary=E\n\n--E\n"
		"Content-Type: text/plain\n\nhi\n--E--\n",
	};
	static const char plain[] = "From: carol@example.com\n"
	    "Content-Type: multipart/mixed; boundary=E\n\n--E\n"
	    "Content-Type: text/plain\n\nhi\n--E--\n";
	size_t i;

	(void)state;
	for (i = 0; i < sizeof mails / sizeof mails[0]; i++)
		assert_false(compare((const unsigned char *)mails[i],
		    strlen(mails[i]), "found"));
	/* Without the IDNA label the same mail is the fast reader's. */
	assert_true(compare((const unsigned char *)plain, strlen(plain),
	    "found"));
}

/* mime_parse gives the fast reader's result where it answers, GMime's
 * refusal where not. */
static void
test_mime_parse_both(void **state)
{
	struct mime_msg m;
	struct hp_error err = { 0, "" };
	size_t len;
	char *raw;

	(void)state;
	raw = player_mail(0, &len);
	assert_int_equal(mime_parse((const unsigned char *)raw, len, &m, &err),
	    HP_OK);
	assert_int_equal(m.nparts, 3);
	assert_string_equal(m.parts[1].filename, "orders.txt");
	assert_memory_equal(m.parts[1].data, ORDERS, strlen(ORDERS));
	mime_msg_free(&m);
	/* Cut short: no closing boundary, GMime's refusal. */
	assert_int_equal(mime_parse((const unsigned char *)raw, len - 30, &m,
	    &err), HP_EINVAL);
	assert_non_null(strstr(err.msg, "closing boundary"));
	free(raw);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_player_mails),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_found),
		cmocka_unit_test(test_mime_parse_both),
	};
	int rc;

	/* As test_mime: plain malloc for GLib, so LeakSanitizer sees all. */
	(void)argc;
	if (getenv("G_SLICE") == NULL) {
		setenv("G_SLICE", "always-malloc", 1);
		execv("/proc/self/exe", argv);
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	printf("fast reader: %d of %d messages\n", n_fast, n_total);
	return rc;
}
