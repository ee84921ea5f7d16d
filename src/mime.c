/* mime: players' mail in, outbox mail out, on top of GMime 3. GMime does
 * the MIME structure, transfer encodings and RFC 2047/2231 decoding; this
 * module turns its warnings into refusals, checks what GMime accepts
 * silently (truncated base64, bad quoted-printable, unknown encodings and
 * charsets, invalid UTF-8, NUL bytes, limits), and copies the result into
 * plain C structures so that no GLib object leaves the module. Simple
 * outgoing mail (ASCII, no attachment) mime_build writes itself, exactly
 * as GMime would (the fast path, below build_gmime). A player's usual
 * incoming mail mime_parse reads itself too, exactly as GMime would (the
 * fast reader, fast_parse, issue 17), without the GMime lock; everything
 * else, refusals included, is GMime's. */
#include <gmime/gmime.h>
#include <sodium.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mime.h"

#define MIME_MAX_DEPTH 16          /* nested multipart sections */
#define MIME_MAX_NAME 255          /* bytes in an attachment name */
#define MIME_MAX_ID 250            /* bytes in a Message-ID */
#define MIME_HEADER_SCAN (256 * 1024) /* header block of an oversized mail */
/* GMime builds every part and header field before we can count them, at
 * about 1.4 KB a part and 0.7 KB a field: bound them by the raw lines
 * that could be boundaries or fields. */
#define MIME_MAX_DASH_LINES 1024
#define MIME_MAX_FIELD_LINES 50000
#define MIME_MAX_PARAM_FIELD (2 * 1024)
#define MB (1024 * 1024)

/* What one parse has seen: the first parser warning that makes the
 * message unacceptable, and the item it was about. */
struct pctx {
	int warn;
	char item[48];
	bool msgid_conflict;   /* two Message-ID headers that differ */
	bool from_conflict;    /* two From headers that differ */
};

/* State of the walk over the MIME tree. */
struct walk {
	struct mime_msg *m;
	size_t cap;
	struct hp_error *err;
};

static bool mime_ready;

/* mime_build by one writer, for the unit tests only (not in mime.h): the
 * GMime one, or the fast path (HP_ENOENT when o does not qualify). */
int mime_build_slow(const struct mime_out *, char **, size_t *,
    struct hp_error *);
int mime_build_fast(const struct mime_out *, char **, size_t *,
    struct hp_error *);

void
mime_init(void)
{
	if (mime_ready)
		return;
	g_mime_init();
	if (sodium_init() < 0)
		fatalx("mime: sodium_init failed");
	mime_ready = true;
}

/* Copy s into dst as printable ASCII for an error message: other bytes
 * become '?', and a long s is cut with "...". */
static void
printable(char *dst, size_t dsz, const char *s)
{
	size_t i, n;

	if (dsz == 0)
		return;
	for (i = n = 0; s != NULL && s[i] != '\0' && n + 1 < dsz; i++)
		dst[n++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	dst[n] = '\0';
	if (s != NULL && s[i] != '\0' && dsz > 4)
		memcpy(dst + dsz - 4, "...", 4);
}

/* GMime parser warning callback: remember the first warning that means
 * the message is malformed. Harmless ones (a header given twice with the
 * same value, raw UTF-8 or Latin-1 in a header, a bad RFC 2047 word kept
 * as it is, an empty part) are let through. */
static void
parse_warning(gint64 offset, GMimeParserWarning code, const gchar *item,
    gpointer arg)
{
	struct pctx *c = arg;

	(void)offset;
	switch (code) {
	case GMIME_WARN_DUPLICATED_HEADER:
	case GMIME_WARN_DUPLICATED_PARAMETER:
	case GMIME_WARN_UNENCODED_8BIT_HEADER:
	case GMIME_WARN_INVALID_RFC2047_HEADER_VALUE:
	case GMIME_WARN_INVALID_ADDRESS_LIST:
	case GMIME_WARN_PART_WITHOUT_CONTENT:
	case GMIME_CRIT_PART_WITHOUT_HEADERS_OR_CONTENT:
		return;
	default:
		break;
	}
	/* Two differing Message-IDs make the id unusable, not the message:
	 * read_headers then leaves it out. */
	if (code == GMIME_CRIT_CONFLICTING_HEADER && item != NULL &&
	    g_ascii_strcasecmp(item, "Message-ID") == 0) {
		c->msgid_conflict = true;
		return;
	}
	if (code == GMIME_CRIT_CONFLICTING_HEADER && item != NULL &&
	    g_ascii_strcasecmp(item, "From") == 0)
		c->from_conflict = true;
	if (c->warn != 0)
		return;
	c->warn = (int)code;
	printable(c->item, sizeof c->item, item);
}

/* Parse len bytes of raw into a message (NULL if GMime finds none),
 * reporting warnings into c. The caller unrefs the message. */
static GMimeMessage *
parse_raw(const unsigned char *raw, size_t len, struct pctx *c)
{
	GMimeStream *s;
	GMimeParser *p;
	GMimeParserOptions *o;
	GMimeMessage *msg;

	s = g_mime_stream_mem_new_with_buffer((const char *)raw, len);
	p = g_mime_parser_new_with_stream(s);
	o = g_mime_parser_options_new();
	g_mime_parser_options_set_warning_callback(o, parse_warning, c);
	msg = g_mime_parser_construct_message(p, o);
	g_mime_parser_options_free(o);
	g_object_unref(p);
	g_object_unref(s);
	return msg;
}

/* Length of the header block of raw (up to and including the empty line),
 * looking no further than MIME_HEADER_SCAN bytes. */
static size_t
header_end(const unsigned char *raw, size_t len)
{
	size_t i, lim = len < MIME_HEADER_SCAN ? len : MIME_HEADER_SCAN;

	for (i = 0; i + 1 < lim; i++) {
		if (raw[i] != '\n')
			continue;
		if (raw[i + 1] == '\n')
			return i + 2;
		if (raw[i + 1] == '\r' && i + 2 < lim && raw[i + 2] == '\n')
			return i + 3;
	}
	return lim;
}

/* Length of the header field starting at raw[i]: up to the end of its
 * last continuation line (lines starting with a space or a tab). */
static size_t
field_len(const unsigned char *raw, size_t len, size_t i)
{
	const unsigned char *nl;
	size_t e = i;

	for (;;) {
		if ((nl = memchr(raw + e, '\n', len - e)) == NULL)
			return len - i;
		e = (size_t)(nl - raw) + 1;
		if (e >= len || (raw[e] != ' ' && raw[e] != '\t'))
			return e - i;
	}
}

/* Refuse raw if it has more lines that could be MIME boundaries (starting
 * "--") or header fields ("name:") than a mail within the limits needs,
 * or a Content-Type or Content-Disposition field long enough for GMime's
 * parameter parsing (quadratic in their number) to take seconds. */
static int
line_limits(const unsigned char *raw, size_t len, struct hp_error *err)
{
	static const char *const param_fields[] = { "content-type",
		"content-disposition" };
	const unsigned char *nl;
	size_t i, j, k, f, dashes = 0, fields = 0;

	for (i = 0; i < len; i = (size_t)(nl - raw) + 1) {
		if (len - i >= 2 && raw[i] == '-' && raw[i + 1] == '-')
			dashes++;
		for (j = i; j < len && raw[j] > 0x20 && raw[j] < 0x7f &&
		    raw[j] != ':'; j++)
			;
		for (k = j; k < len && (raw[k] == ' ' || raw[k] == '\t'); k++)
			;
		if (j > i && k < len && raw[k] == ':') {
			fields++;
			for (f = 0; f < 2; f++) {
				if (j - i != strlen(param_fields[f]) ||
				    g_ascii_strncasecmp((const char *)raw + i,
				    param_fields[f], j - i) != 0)
					continue;
				if (field_len(raw, len, i) <= MIME_MAX_PARAM_FIELD)
					continue;
				hp_seterr(err, HP_EINVAL, "malformed MIME: a "
				    "%.*s header longer than %d KB", (int)(j - i),
				    (const char *)raw + i,
				    MIME_MAX_PARAM_FIELD / 1024);
				return HP_EINVAL;
			}
		}
		if ((nl = memchr(raw + k, '\n', len - k)) == NULL)
			break;
	}
	if (dashes > MIME_MAX_DASH_LINES) {
		hp_seterr(err, HP_EINVAL, "malformed MIME: more than %d lines "
		    "start with \"--\" (far too many parts)",
		    MIME_MAX_DASH_LINES);
		return HP_EINVAL;
	}
	if (fields > MIME_MAX_FIELD_LINES) {
		hp_seterr(err, HP_EINVAL, "malformed message: more than %d "
		    "lines look like header fields", MIME_MAX_FIELD_LINES);
		return HP_EINVAL;
	}
	return HP_OK;
}

static void set_auto(struct mime_msg *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

/* Mark the message automatic for the first reason found. */
static void
set_auto(struct mime_msg *m, const char *fmt, ...)
{
	va_list ap;

	if (m->automatic)
		return;
	m->automatic = true;
	va_start(ap, fmt);
	vsnprintf(m->auto_reason, sizeof m->auto_reason, fmt, ap);
	va_end(ap);
}

/* The first word of a header value, lower-case: letters, digits, '-', '.'
 * and '_' after leading white space, cut at dsz - 1 bytes. */
static void
header_token(const char *v, char *dst, size_t dsz)
{
	size_t n = 0;

	while (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n')
		v++;
	for (; *v != '\0' && n + 1 < dsz; v++) {
		unsigned char ch = (unsigned char)*v;

		if (!g_ascii_isalnum(ch) && ch != '-' && ch != '.' && ch != '_')
			break;
		dst[n++] = (char)g_ascii_tolower(ch);
	}
	dst[n] = '\0';
}

/* Is o's content type type/subtype? */
static bool
is_type(GMimeObject *o, const char *type, const char *subtype)
{
	GMimeContentType *ct = g_mime_object_get_content_type(o);

	return ct != NULL && g_mime_content_type_is_type(ct, type, subtype);
}

/* Set m->automatic from the top-level headers of msg. */
static void
detect_automatic(GMimeMessage *msg, struct mime_msg *m)
{
	static const char *const present[] = { "List-Id", "List-Unsubscribe",
		"X-Autoreply", "X-Autorespond" };
	GMimeObject *o = (GMimeObject *)msg, *body;
	InternetAddressList *l;
	InternetAddress *a;
	const char *v, *addr, *at;
	char tok[40];
	size_t i, n;

	if ((v = g_mime_object_get_header(o, "Auto-Submitted")) != NULL) {
		header_token(v, tok, sizeof tok);
		if (strcmp(tok, "no") != 0)
			set_auto(m, "Auto-Submitted: %s",
			    tok[0] != '\0' ? tok : "(empty)");
	}
	body = g_mime_message_get_mime_part(msg);
	if (body != NULL && is_type(body, "multipart", "report"))
		set_auto(m, "Content-Type: multipart/report");
	l = g_mime_message_get_from(msg);
	for (i = 0; l != NULL && i < (size_t)internet_address_list_length(l);
	    i++) {
		a = internet_address_list_get_address(l, (int)i);
		if (!INTERNET_ADDRESS_IS_MAILBOX(a))
			continue;
		addr = internet_address_mailbox_get_addr(
		    (InternetAddressMailbox *)a);
		if (addr == NULL)
			continue;
		at = strrchr(addr, '@');
		n = at != NULL ? (size_t)(at - addr) : strlen(addr);
		if ((n == 13 && g_ascii_strncasecmp(addr, "mailer-daemon",
		    n) == 0) || (n == 10 && g_ascii_strncasecmp(addr,
		    "postmaster", n) == 0))
			set_auto(m, "From: %.*s", (int)n, addr);
	}
	if ((v = g_mime_object_get_header(o, "Return-Path")) != NULL) {
		for (n = 0; *v != '\0' && n < sizeof tok - 1; v++)
			if (*v != ' ' && *v != '\t' && *v != '\r' &&
			    *v != '\n')
				tok[n++] = *v;
		tok[n] = '\0';
		if (strcmp(tok, "<>") == 0)
			set_auto(m, "Return-Path: <>");
	}
	if ((v = g_mime_object_get_header(o, "Precedence")) != NULL) {
		header_token(v, tok, sizeof tok);
		if (strcmp(tok, "bulk") == 0 || strcmp(tok, "junk") == 0 ||
		    strcmp(tok, "list") == 0)
			set_auto(m, "Precedence: %s", tok);
	}
	for (i = 0; i < sizeof present / sizeof present[0]; i++)
		if (g_mime_object_get_header(o, present[i]) != NULL)
			set_auto(m, "%s present", present[i]);
}

/* Is s valid UTF-8 without control characters (C0 or DEL), and, when
 * nospace, without spaces? */
static bool
clean_text(const char *s, bool nospace)
{
	const unsigned char *p;

	if (!g_utf8_validate(s, -1, NULL))
		return false;
	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f || (nospace && *p == ' '))
			return false;
	return true;
}

/* Is s a usable message id (without <>): printable ASCII, no space, no
 * angle brackets? */
static bool
msgid_ok(const char *s)
{
	const unsigned char *p;

	if (*s == '\0' || strlen(s) > MIME_MAX_ID)
		return false;
	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if (*p <= 0x20 || *p >= 0x7f || *p == '<' || *p == '>')
			return false;
	return true;
}

/* Is s NULL or a list of usable message ids, one space apart? */
static bool
refs_ok(const char *s)
{
	char id[MIME_MAX_ID + 2];
	const char *p, *e;
	int n = 0;

	if (s == NULL)
		return true;
	for (p = s; *p != '\0'; p = e) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		e = p + strcspn(p, " ");
		if ((size_t)(e - p) > MIME_MAX_ID || ++n > 16)
			return false;
		snprintf(id, sizeof id, "%.*s", (int)(e - p), p);
		if (!msgid_ok(id))
			return false;
	}
	return n > 0;
}

/* Is s printable ASCII? */
static bool
ascii_text(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* Are the extra header fields (name, value pairs, NULL-ended) usable:
 * names of letters, digits and '-' that hexpost writes itself no other way,
 * values clean UTF-8 text of at most 200 bytes? */
static bool
extra_ok(const char *const *x)
{
	static const char *const own[] = { "date", "from", "to", "subject",
		"message-id", "in-reply-to", "references", "auto-submitted",
		"list-id", "mime-version", "content-type",
		"content-transfer-encoding", NULL };
	size_t i, k;

	for (i = 0; x != NULL && x[i] != NULL; i += 2) {
		if (i >= 16 || *x[i] == '\0' || strlen(x[i]) > 40 ||
		    x[i + 1] == NULL || *x[i + 1] == '\0' ||
		    strlen(x[i + 1]) > 200 || !clean_text(x[i + 1], false))
			return false;
		for (k = 0; x[i][k] != '\0'; k++)
			if (!g_ascii_isalnum(x[i][k]) && x[i][k] != '-')
				return false;
		for (k = 0; own[k] != NULL; k++)
			if (g_ascii_strcasecmp(x[i], own[k]) == 0)
				return false;
	}
	return true;
}

/* Is the header present with something other than white space? */
static bool
header_nonblank(GMimeObject *o, const char *name)
{
	const char *v = g_mime_object_get_header(o, name);

	if (v == NULL)
		return false;
	for (; *v != '\0'; v++)
		if (*v != ' ' && *v != '\t' && *v != '\r' && *v != '\n')
			return true;
	return false;
}

/* The addr-spec of the one mailbox in header name of o (its address list
 * is l) into *out (NULL if the header is absent or blank; the caller
 * frees). Fails on several addresses, a group or an unreadable value. */
static int
one_mailbox(GMimeObject *o, InternetAddressList *l, const char *name,
    char **out, struct hp_error *err)
{
	InternetAddress *a;
	const char *addr;

	*out = NULL;
	if (!header_nonblank(o, name))
		return HP_OK;
	if (l == NULL || internet_address_list_length(l) == 0) {
		hp_seterr(err, HP_EINVAL, "malformed message: the %s header "
		    "holds no address", name);
		return HP_EINVAL;
	}
	if (internet_address_list_length(l) > 1) {
		hp_seterr(err, HP_EINVAL, "the %s header holds more than one "
		    "address", name);
		if (strcmp(name, "From") == 0)
			*out = xstrdup("");   /* the caller's sign of it */
		return HP_EINVAL;
	}
	a = internet_address_list_get_address(l, 0);
	if (!INTERNET_ADDRESS_IS_MAILBOX(a)) {
		hp_seterr(err, HP_EINVAL, "the %s header holds a group, not "
		    "an address", name);
		return HP_EINVAL;
	}
	addr = internet_address_mailbox_get_addr((InternetAddressMailbox *)a);
	if (addr == NULL || *addr == '\0' || !clean_text(addr, true)) {
		hp_seterr(err, HP_EINVAL, "malformed message: the %s header "
		    "holds no usable address", name);
		return HP_EINVAL;
	}
	*out = xstrdup(addr);
	return HP_OK;
}

/* Fill message_id, from, reply_to and subject of m from msg. A
 * Message-ID that cannot serve as a key (a quoted local part with a space,
 * two differing ones: msgid_conflict) is left out, never refused: the
 * content hash still recognises the message. */
static int
read_headers(GMimeMessage *msg, bool msgid_conflict, struct mime_msg *m,
    struct hp_error *err)
{
	GMimeObject *o = (GMimeObject *)msg;
	const char *v;
	char *p;
	int rc;

	if (!msgid_conflict && header_nonblank(o, "Message-ID") &&
	    (v = g_mime_message_get_message_id(msg)) != NULL && msgid_ok(v))
		m->message_id = xstrdup(v);
	if ((rc = one_mailbox(o, g_mime_message_get_from(msg), "From",
	    &m->from, err)) != HP_OK) {
		m->from_ambiguous = m->from != NULL;
		return rc;
	}
	if ((rc = one_mailbox(o, g_mime_message_get_reply_to(msg), "Reply-To",
	    &m->reply_to, err)) != HP_OK)
		return rc;
	if ((v = g_mime_message_get_subject(msg)) != NULL) {
		if (!g_utf8_validate(v, -1, NULL)) {
			hp_seterr(err, HP_EINVAL,
			    "malformed message: the Subject is not valid UTF-8");
			return HP_EINVAL;
		}
		/* Folding and encoded words may leave tabs or line breaks. */
		m->subject = xstrdup(v);
		for (p = m->subject; *p != '\0'; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = ' ';
	}
	return HP_OK;
}

/* Error message for the first bad parser warning of c. */
static void
warning_error(const struct pctx *c, struct hp_error *err)
{
	switch (c->warn) {
	case GMIME_WARN_INVALID_CONTENT_TYPE:
		hp_seterr(err, HP_EINVAL, "malformed MIME: invalid "
		    "Content-Type \"%s\"", c->item);
		break;
	case GMIME_WARN_MALFORMED_MULTIPART:
		hp_seterr(err, HP_EINVAL,
		    "malformed MIME: a multipart section is malformed");
		break;
	case GMIME_WARN_TRUNCATED_MESSAGE:
		hp_seterr(err, HP_EINVAL, "malformed MIME: a multipart "
		    "section has no closing boundary (is the message cut "
		    "short?)");
		break;
	case GMIME_CRIT_INVALID_HEADER_NAME:
		hp_seterr(err, HP_EINVAL, "malformed message: invalid header "
		    "line \"%s\"", c->item);
		break;
	case GMIME_CRIT_CONFLICTING_HEADER:
		hp_seterr(err, HP_EINVAL, "malformed message: two %s headers "
		    "with different values", c->item);
		break;
	case GMIME_CRIT_CONFLICTING_PARAMETER:
		hp_seterr(err, HP_EINVAL, "malformed MIME: two %s parameters "
		    "with different values", c->item);
		break;
	case GMIME_CRIT_MULTIPART_WITHOUT_BOUNDARY:
		hp_seterr(err, HP_EINVAL, "malformed MIME: multipart/%s "
		    "without a boundary", c->item);
		break;
	case GMIME_WARN_INVALID_PARAMETER:
		hp_seterr(err, HP_EINVAL, "malformed MIME: invalid parameter "
		    "in a Content-Type or Content-Disposition header");
		break;
	case GMIME_CRIT_NESTING_OVERFLOW:
		hp_seterr(err, HP_EINVAL,
		    "malformed MIME: parts nested too deeply");
		break;
	default:
		hp_seterr(err, HP_EINVAL, "malformed message (MIME parser "
		    "warning %d)", c->warn);
		break;
	}
}

/* Find a multipart section without parts below o (whose boundary never
 * appeared), or NULL. */
static GMimeMultipart *
empty_multipart(GMimeObject *o, int depth)
{
	GMimeMultipart *mp, *r;
	int i, n;

	if (o == NULL || !GMIME_IS_MULTIPART(o) || depth > MIME_MAX_DEPTH)
		return NULL;
	mp = (GMimeMultipart *)o;
	if ((n = g_mime_multipart_get_count(mp)) == 0)
		return mp;
	for (i = 0; i < n; i++)
		if ((r = empty_multipart(g_mime_multipart_get_part(mp, i),
		    depth + 1)) != NULL)
			return r;
	return NULL;
}

/* The whole of stream s, copied into a new memory stream (the caller
 * unrefs it), or NULL on a read error. */
static GMimeStream *
stream_copy(GMimeStream *s)
{
	GMimeStream *mem = g_mime_stream_mem_new();

	if (g_mime_stream_reset(s) == -1 ||
	    g_mime_stream_write_to_stream(s, mem) == -1) {
		g_object_unref(mem);
		return NULL;
	}
	g_mime_stream_reset(s);
	return mem;
}

/* Is b (len bytes) complete, clean base64: alphabet and white space only,
 * padding only at the end, a whole number of 4-character groups? */
static bool
base64_ok(const unsigned char *b, size_t len)
{
	size_t i, n = 0, pad = 0;

	for (i = 0; i < len; i++) {
		unsigned char ch = b[i];

		if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n')
			continue;
		if (ch == '=') {
			pad++;
			continue;
		}
		if (pad != 0 || !(g_ascii_isalnum(ch) || ch == '+' ||
		    ch == '/'))
			return false;
		n++;
	}
	if (pad > 2)
		return false;
	return (n + pad) % 4 == 0 && (pad == 0 || n % 4 == 4 - pad);
}

/* Is b (len bytes) valid quoted-printable: every '=' starts a hex pair or
 * a soft line break (optionally after trailing white space)? */
static bool
qp_ok(const unsigned char *b, size_t len)
{
	size_t i, j;

	for (i = 0; i < len; i++) {
		if (b[i] != '=')
			continue;
		if (i + 2 < len && g_ascii_isxdigit(b[i + 1]) &&
		    g_ascii_isxdigit(b[i + 2])) {
			i += 2;
			continue;
		}
		for (j = i + 1; j < len && (b[j] == ' ' || b[j] == '\t'); j++)
			;
		if (j < len && b[j] == '\r')
			j++;
		if (j < len && b[j] != '\n')
			return false;
		i = j;
	}
	return true;
}

/* Take the bytes of memory stream mem as p's data (NUL-terminated). */
static void
take_bytes(struct mime_part *p, GMimeStream *mem)
{
	GByteArray *ba = g_mime_stream_mem_get_byte_array((GMimeStreamMem *)mem);

	p->len = ba->len;
	p->data = xmalloc(p->len + 1);
	if (p->len != 0)
		memcpy(p->data, ba->data, p->len);
	p->data[p->len] = '\0';
}

/* Decode the content of GMime leaf part o into p->data, refusing unknown
 * or uuencode transfer encodings and corrupt base64 or quoted-printable.
 * what names the part in messages. */
static int
part_data(GMimePart *o, const char *what, struct mime_part *p,
    struct hp_error *err)
{
	GMimeDataWrapper *w;
	GMimeStream *mem;
	GMimeContentEncoding enc;
	GByteArray *ba;
	const char *cte;
	char shown[40];
	bool ok;

	/* GMime takes an unknown encoding for none, and decodes uuencode
	 * without a "begin" line to nothing. */
	cte = g_mime_object_get_header((GMimeObject *)o,
	    "Content-Transfer-Encoding");
	enc = cte != NULL ? g_mime_content_encoding_from_string(cte) :
	    GMIME_CONTENT_ENCODING_DEFAULT;
	if ((cte != NULL && enc == GMIME_CONTENT_ENCODING_DEFAULT) ||
	    enc == GMIME_CONTENT_ENCODING_UUENCODE) {
		printable(shown, sizeof shown, cte);
		hp_seterr(err, HP_EINVAL, "malformed MIME: %s has an %s "
		    "Content-Transfer-Encoding \"%s\"", what,
		    enc == GMIME_CONTENT_ENCODING_DEFAULT ? "unknown" :
		    "unsupported", shown);
		return HP_EINVAL;
	}
	if ((w = g_mime_part_get_content(o)) == NULL) {
		p->data = xmalloc(1);
		p->data[0] = '\0';
		return HP_OK;
	}
	enc = g_mime_data_wrapper_get_encoding(w);
	if (enc == GMIME_CONTENT_ENCODING_BASE64 ||
	    enc == GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE) {
		if ((mem = stream_copy(g_mime_data_wrapper_get_stream(w))) ==
		    NULL)
			goto unreadable;
		ba = g_mime_stream_mem_get_byte_array((GMimeStreamMem *)mem);
		ok = enc == GMIME_CONTENT_ENCODING_BASE64 ?
		    base64_ok(ba->data, ba->len) : qp_ok(ba->data, ba->len);
		g_object_unref(mem);
		if (!ok) {
			hp_seterr(err, HP_EINVAL, "malformed MIME: the %s of "
			    "%s is cut short or corrupt", enc ==
			    GMIME_CONTENT_ENCODING_BASE64 ? "base64" :
			    "quoted-printable", what);
			return HP_EINVAL;
		}
	}
	mem = g_mime_stream_mem_new();
	if (g_mime_data_wrapper_write_to_stream(w, mem) == -1) {
		g_object_unref(mem);
		goto unreadable;
	}
	take_bytes(p, mem);
	g_object_unref(mem);
	p->base64 = enc == GMIME_CONTENT_ENCODING_BASE64;
	return HP_OK;
unreadable:
	hp_seterr(err, HP_EINVAL, "malformed MIME: cannot decode %s", what);
	return HP_EINVAL;
}

/* The message inside message/rfc822 part o as bytes, into p->data. */
static int
message_data(GMimeMessagePart *o, const char *what, struct mime_part *p,
    struct hp_error *err)
{
	GMimeMessage *inner = g_mime_message_part_get_message(o);
	GMimeStream *mem = g_mime_stream_mem_new();

	if (inner != NULL && g_mime_object_write_to_stream(
	    (GMimeObject *)inner, NULL, mem) == -1) {
		g_object_unref(mem);
		hp_seterr(err, HP_EINVAL, "malformed MIME: cannot read %s",
		    what);
		return HP_EINVAL;
	}
	take_bytes(p, mem);
	g_object_unref(mem);
	return HP_OK;
}

/* Is cs a name of UTF-8 or of its subset US-ASCII? */
static bool
utf8_charset(const char *cs)
{
	return g_ascii_strcasecmp(cs, "utf-8") == 0 ||
	    g_ascii_strcasecmp(cs, "utf8") == 0 ||
	    g_ascii_strcasecmp(cs, "us-ascii") == 0 ||
	    g_ascii_strcasecmp(cs, "ascii") == 0;
}

/* Convert the text body p of o to UTF-8 from its charset, refusing an
 * unknown charset, text that is invalid in it, and NUL bytes. */
static int
text_to_utf8(GMimeObject *o, const char *what, struct mime_part *p,
    struct hp_error *err)
{
	const char *cs = g_mime_object_get_content_type_parameter(o, "charset");
	GError *gerr = NULL;
	GIConv ic;
	gchar *u;
	gsize nread, nwritten;
	char shown[40];

	if (cs != NULL && *cs != '\0' && !utf8_charset(cs)) {
		printable(shown, sizeof shown, cs);
		ic = g_iconv_open("UTF-8", g_mime_charset_iconv_name(cs));
		if (ic == (GIConv)-1) {
			hp_seterr(err, HP_EINVAL, "%s is in an unknown charset "
			    "\"%s\"", what, shown);
			return HP_EINVAL;
		}
		u = g_convert_with_iconv((const gchar *)p->data,
		    (gssize)p->len, ic, &nread, &nwritten, &gerr);
		g_iconv_close(ic);
		if (u == NULL) {
			hp_seterr(err, HP_EINVAL, "%s is not valid %s text",
			    what, shown);
			g_clear_error(&gerr);
			return HP_EINVAL;
		}
		free(p->data);
		p->len = nwritten;
		p->data = xmalloc(p->len + 1);
		memcpy(p->data, u, p->len);
		p->data[p->len] = '\0';
		g_free(u);
	}
	if (memchr(p->data, '\0', p->len) != NULL) {
		hp_seterr(err, HP_EINVAL, "%s contains a NUL byte", what);
		return HP_EINVAL;
	}
	if (!g_utf8_validate((const gchar *)p->data, (gssize)p->len, NULL)) {
		hp_seterr(err, HP_EINVAL, "%s is not valid UTF-8", what);
		return HP_EINVAL;
	}
	return HP_OK;
}

/* The filename of leaf o from Content-Disposition or Content-Type (GMime
 * decodes RFC 2231 and 2047), or NULL if none or blank. Owned by o. */
static const char *
leaf_filename(GMimeObject *o)
{
	GMimeContentDisposition *d = g_mime_object_get_content_disposition(o);
	const char *f = NULL, *s;

	if (d != NULL)
		f = g_mime_content_disposition_get_parameter(d, "filename");
	if (f == NULL)
		f = g_mime_object_get_content_type_parameter(o, "name");
	if (f == NULL)
		return NULL;
	for (s = f; *s == ' ' || *s == '\t'; s++)
		;
	return *s == '\0' ? NULL : f;
}

/* Free what part p owns. */
static void
part_free(struct mime_part *p)
{
	free(p->filename);
	free(p->content_type);
	free(p->data);
}

/* Check and store the filename and content type of leaf o in p. */
static int
leaf_names(GMimeObject *o, struct walk *w, struct mime_part *p)
{
	GMimeContentDisposition *d;
	GMimeContentType *ct;
	const char *fn;
	char *t, shown[64];
	size_t i;

	ct = g_mime_object_get_content_type(o);
	t = ct != NULL ? g_mime_content_type_get_mime_type(ct) : NULL;
	p->content_type = xstrdup(t != NULL ? t : "application/octet-stream");
	g_free(t);
	for (t = p->content_type; *t != '\0'; t++)
		*t = (char)g_ascii_tolower(*t);
	if ((fn = leaf_filename(o)) != NULL) {
		if (strlen(fn) > MIME_MAX_NAME || !clean_text(fn, false)) {
			printable(shown, sizeof shown, fn);
			hp_seterr(w->err, HP_EINVAL, "malformed MIME: unusable "
			    "attachment name \"%s\"", shown);
			return HP_EINVAL;
		}
		for (i = 0; i < w->m->nparts; i++) {
			if (w->m->parts[i].filename != NULL &&
			    strcasecmp(w->m->parts[i].filename, fn) == 0) {
				hp_seterr(w->err, HP_EINVAL, "two attachments "
				    "are named %s", fn);
				return HP_EINVAL;
			}
		}
		p->filename = xstrdup(fn);
	}
	d = g_mime_object_get_content_disposition(o);
	p->attachment = p->filename != NULL || (d != NULL &&
	    g_mime_content_disposition_is_attachment(d)) ||
	    strncmp(p->content_type, "text/", 5) != 0;
	return HP_OK;
}

/* Decode leaf o into a new entry of w->m->parts. */
static int
leaf(GMimeObject *o, struct walk *w)
{
	struct mime_msg *m = w->m;
	struct mime_part p;
	char what[MIME_MAX_NAME + 64];
	int rc;

	if (m->nparts >= MIME_MAX_PARTS) {
		hp_seterr(w->err, HP_EINVAL, "the message has more than %d "
		    "parts", MIME_MAX_PARTS);
		return HP_EINVAL;
	}
	memset(&p, 0, sizeof p);
	if ((rc = leaf_names(o, w, &p)) != HP_OK)
		goto fail;
	if (strcmp(p.content_type, "message/delivery-status") == 0 ||
	    strcmp(p.content_type, "message/global-delivery-status") == 0 ||
	    strcmp(p.content_type, "message/disposition-notification") == 0)
		set_auto(m, "%s part", p.content_type);
	if (p.filename != NULL)
		snprintf(what, sizeof what, "attachment %s", p.filename);
	else
		snprintf(what, sizeof what, "the %s part", p.content_type);
	if (GMIME_IS_MESSAGE_PART(o))
		rc = message_data((GMimeMessagePart *)o, what, &p, w->err);
	else
		rc = part_data((GMimePart *)o, what, &p, w->err);
	if (rc != HP_OK)
		goto fail;
	if (p.len > MIME_MAX_PART) {
		hp_seterr(w->err, HP_EINVAL, "%s is larger than %d KB", what,
		    MIME_MAX_PART / 1024);
		rc = HP_EINVAL;
		goto fail;
	}
	if (!p.attachment && strncmp(p.content_type, "text/", 5) == 0 &&
	    (rc = text_to_utf8(o, what, &p, w->err)) != HP_OK)
		goto fail;
	if (m->nparts == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 4;
		m->parts = xrealloc(m->parts, w->cap * sizeof *m->parts);
	}
	m->parts[m->nparts++] = p;
	return HP_OK;
fail:
	part_free(&p);
	return rc;
}

/* Walk the MIME tree below o (depth multipart sections deep) in order,
 * adding every leaf to w->m. */
static int
walk(GMimeObject *o, int depth, struct walk *w)
{
	GMimeMultipart *mp;
	char *t;
	int i, n, rc;

	if (GMIME_IS_MULTIPART(o)) {
		mp = (GMimeMultipart *)o;
		if (depth >= MIME_MAX_DEPTH) {
			hp_seterr(w->err, HP_EINVAL, "malformed MIME: "
			    "multipart sections nested more than %d deep",
			    MIME_MAX_DEPTH);
			return HP_EINVAL;
		}
		if ((n = g_mime_multipart_get_count(mp)) == 0) {
			t = g_mime_content_type_get_mime_type(
			    g_mime_object_get_content_type(o));
			hp_seterr(w->err, HP_EINVAL, "malformed MIME: a %s "
			    "section has no parts", t);
			g_free(t);
			return HP_EINVAL;
		}
		for (i = 0; i < n; i++)
			if ((rc = walk(g_mime_multipart_get_part(mp, i),
			    depth + 1, w)) != HP_OK)
				return rc;
		return HP_OK;
	}
	if (GMIME_IS_PART(o) || GMIME_IS_MESSAGE_PART(o))
		return leaf(o, w);
	hp_seterr(w->err, HP_EINVAL, "malformed MIME: a part of unknown kind");
	return HP_EINVAL;
}

/* Free everything m owns and clear it, but keep hash and the automatic
 * flag and reason. */
static void
msg_release(struct mime_msg *m)
{
	size_t i;

	free(m->message_id);
	free(m->from);
	free(m->reply_to);
	free(m->subject);
	for (i = 0; i < m->nparts; i++)
		part_free(&m->parts[i]);
	free(m->parts);
	m->message_id = m->from = m->reply_to = m->subject = NULL;
	m->parts = NULL;
	m->nparts = 0;
	m->html_only = false;
}

/* Set m->html_only from the parts. */
static void
set_html_only(struct mime_msg *m)
{
	bool html = false;
	size_t i;

	for (i = 0; i < m->nparts; i++) {
		if (m->parts[i].attachment)
			return;
		if (strcmp(m->parts[i].content_type, "text/plain") == 0)
			return;
		if (strcmp(m->parts[i].content_type, "text/html") == 0)
			html = true;
	}
	m->html_only = html;
}

/* Set the automatic flag of m from the header block of raw alone, for a
 * message refused before it is parsed. Fields too long for GMime to parse
 * quickly are left out. */
static void
header_automatic(const unsigned char *raw, size_t len, struct mime_msg *m)
{
	struct pctx c;
	struct sbuf b;
	GMimeMessage *msg;
	size_t end = header_end(raw, len), i, n;

	sbuf_init(&b);
	for (i = 0; i < end; i += n)
		if ((n = field_len(raw, end, i)) <= MIME_MAX_PARAM_FIELD)
			sbuf_add(&b, (const char *)raw + i, n);
	memset(&c, 0, sizeof c);
	if (b.len != 0 && (msg = parse_raw((const unsigned char *)b.buf, b.len,
	    &c)) != NULL) {
		detect_automatic(msg, m);
		g_object_unref(msg);
	}
	sbuf_free(&b);
}

/* Parse raw into m (the caller frees it with mime_msg_free), or refuse it
 * with a message for the sender; see mime.h. */
static int
parse_unlocked(const unsigned char *raw, size_t len, struct mime_msg *m,
    struct hp_error *err)
{
	struct pctx c;
	struct walk w;
	GMimeMessage *msg;
	GMimeMultipart *mp;
	GMimeObject *body;
	const unsigned char *nul;
	size_t tenths;
	char *t;
	int rc = HP_EINVAL;

	memset(m, 0, sizeof *m);
	mime_init();
	crypto_generichash(m->hash, sizeof m->hash, raw, len, NULL, 0);
	if (len == 0) {
		hp_seterr(err, HP_EINVAL, "the message is empty");
		return HP_EINVAL;
	}
	if (len > MIME_MAX_MESSAGE) {
		header_automatic(raw, len, m);
		tenths = (len / MB) * 10 + ((len % MB) * 10 + MB - 1) / MB;
		hp_seterr(err, HP_EINVAL, "the message is %zu.%zu MB; the "
		    "limit is %d MB", tenths / 10, tenths % 10,
		    MIME_MAX_MESSAGE / MB);
		return HP_EINVAL;
	}
	if (line_limits(raw, len, err) != HP_OK) {
		header_automatic(raw, len, m);
		return HP_EINVAL;
	}
	memset(&c, 0, sizeof c);
	msg = parse_raw(raw, len, &c);
	if (msg != NULL)
		detect_automatic(msg, m);
	m->from_ambiguous = c.from_conflict;
	if ((nul = memchr(raw, '\0', len)) != NULL) {
		hp_seterr(err, HP_EINVAL, "malformed message: a NUL byte at "
		    "offset %zu", (size_t)(nul - raw));
		goto out;
	}
	if (msg != NULL && c.warn == GMIME_WARN_TRUNCATED_MESSAGE &&
	    (mp = empty_multipart(g_mime_message_get_mime_part(msg), 0)) !=
	    NULL) {
		t = g_mime_content_type_get_mime_type(
		    g_mime_object_get_content_type((GMimeObject *)mp));
		hp_seterr(err, HP_EINVAL, "malformed MIME: the boundary of "
		    "a %s section never appears", t);
		g_free(t);
		goto out;
	}
	if (c.warn != 0) {
		warning_error(&c, err);
		goto out;
	}
	if (msg == NULL || g_mime_header_list_get_count(
	    g_mime_object_get_header_list((GMimeObject *)msg)) == 0) {
		hp_seterr(err, HP_EINVAL,
		    "malformed message: no header fields");
		goto out;
	}
	if ((rc = read_headers(msg, c.msgid_conflict, m, err)) != HP_OK)
		goto out;
	w.m = m;
	w.cap = 0;
	w.err = err;
	if ((body = g_mime_message_get_mime_part(msg)) != NULL &&
	    (rc = walk(body, 0, &w)) != HP_OK)
		goto out;
	set_html_only(m);
	rc = HP_OK;
out:
	if (msg != NULL)
		g_object_unref(msg);
	if (rc != HP_OK)
		msg_release(m);
	return rc;
}

/* The fast reader (issue 17, intake): the common case of a player's mail,
 * read without GMime, so without gmime_lock, about ten times cheaper, on
 * any number of threads at once. It takes only what it can read exactly as
 * GMime does and hands everything else to GMime (HP_ENOENT): a header block
 * of printable ASCII fields, no field folded among those it reads
 * (From, Reply-To, Subject, Message-ID, the Content- fields), none of those
 * twice, no sign of automatic mail (Auto-Submitted, Precedence, List-Id,
 * List-Unsubscribe, X-Autoreply, X-Autorespond, Return-Path <>, From
 * MAILER-DAEMON or postmaster), From and Reply-To a plain address with at
 * most a plain display name, Message-ID a plain <local@domain>, a Subject
 * without encoded words; a body that is one multipart/mixed section whose
 * boundary lines are exact, with leaf parts of type text/ or application/,
 * their parameters plain (no RFC 2231, no encoded words), their charset
 * UTF-8 or US-ASCII, sent base64 (clean), 7bit, 8bit or binary. It never
 * refuses a message itself: a refusal's wording is GMime's path's. That
 * both readers give the same result wherever the fast one answers is
 * checked by test_mimefast over tests/data/mail, fuzz/corpus/mime and
 * thousands of mutations of a player's mail. */

#define FAST_MAX_FIELDS 64

/* A copy of the n bytes at s, NUL-terminated (caller frees). */
static char *
fast_dup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* A header field as it stands in the raw message. */
struct ffield {
	const char *name;
	size_t nlen;
	const char *val;       /* after the colon and leading white space */
	size_t vlen;           /* up to the line end, CR excluded */
	bool folded;
};

/* A header block. */
struct fheads {
	struct ffield f[FAST_MAX_FIELDS];
	size_t n;
};

/* Read the header block at raw[*pos..len) into h, *pos then just after
 * its empty line. False if it is not plain enough. */
static bool
fast_block(const unsigned char *raw, size_t len, size_t *pos,
    struct fheads *h)
{
	size_t i = *pos, e, k;

	h->n = 0;
	for (;;) {
		if (i >= len)
			return false;
		/* The line [i, e), its end at e (CRLF or LF). */
		for (e = i; e < len && raw[e] != '\n'; e++)
			;
		if (e >= len)
			return false;
		k = e > i && raw[e - 1] == '\r' ? e - 1 : e;
		if (k == i) {
			*pos = e + 1;
			return true;
		}
		if (raw[i] == ' ' || raw[i] == '\t') {
			if (h->n == 0)
				return false;
			h->f[h->n - 1].folded = true;
			h->f[h->n - 1].vlen = (size_t)((const char *)raw + k -
			    h->f[h->n - 1].val);
		} else {
			struct ffield *f;
			size_t c;

			if (h->n == FAST_MAX_FIELDS)
				return false;
			for (c = i; c < k && raw[c] > 0x20 && raw[c] < 0x7f &&
			    raw[c] != ':'; c++)
				;
			if (c == i || c >= k || raw[c] != ':')
				return false;
			f = &h->f[h->n++];
			f->name = (const char *)raw + i;
			f->nlen = c - i;
			for (c++; c < k && (raw[c] == ' ' || raw[c] == '\t');
			    c++)
				;
			f->val = (const char *)raw + c;
			f->vlen = k - c;
			f->folded = false;
		}
		for (; i < k; i++)
			if ((raw[i] < 0x20 && raw[i] != '\t') || raw[i] >= 0x7f)
				return false;
		i = e + 1;
	}
}

/* Is field f called name? */
static bool
fast_is(const struct ffield *f, const char *name)
{
	return strlen(name) == f->nlen && g_ascii_strncasecmp(f->name, name,
	    f->nlen) == 0;
}

/* The one field called name of h (NULL if none); *dup set if there are
 * several or it is folded. */
static const struct ffield *
fast_get(const struct fheads *h, const char *name, bool *bad)
{
	const struct ffield *r = NULL;
	size_t i;

	for (i = 0; i < h->n; i++) {
		if (!fast_is(&h->f[i], name))
			continue;
		if (r != NULL || h->f[i].folded)
			*bad = true;
		r = &h->f[i];
	}
	return r;
}

/* Does [s, e) contain c? */
static bool
fast_has(const char *s, const char *e, const char *c)
{
	size_t n = strlen(c);

	for (; s + n <= e; s++)
		if (memcmp(s, c, n) == 0)
			return true;
	return false;
}

/* [s, e) with its trailing white space left off: the new end. */
static const char *
fast_rtrim(const char *s, const char *e)
{
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return e;
}

/* Is c a character of an RFC 5322 atom? */
static bool
fast_atom_char(char c)
{
	return g_ascii_isalnum(c) || (c != '\0' && strchr("!#$%&'*+-/=?^_`{|}~",
	    c) != NULL);
}

/* Is c a character of a MIME token (RFC 2045: no tspecial)? */
static bool
fast_token_char(char c)
{
	return g_ascii_isalnum(c) || (c != '\0' && strchr("!#$%&'*+-.^_`{|}~",
	    c) != NULL);
}

/* Is [s, e) a dot-atom: atoms joined by single dots? */
static bool
fast_dots(const char *s, const char *e)
{
	bool prev_dot = true;

	if (s == e)
		return false;
	for (; s < e; s++) {
		if (*s == '.') {
			if (prev_dot)
				return false;
			prev_dot = true;
		} else if (fast_atom_char(*s))
			prev_dot = false;
		else
			return false;
	}
	return !prev_dot;
}

/* Is [s, e) a plain address, dot-atom@dot-atom, with no "xn--" in it
 * (GMime turns an IDNA domain into Unicode)? */
static bool
fast_plain_addr(const char *s, const char *e)
{
	const char *at = memchr(s, '@', (size_t)(e - s)), *p;

	for (p = s; p + 4 <= e; p++)
		if (g_ascii_strncasecmp(p, "xn--", 4) == 0)
			return false;
	return at != NULL && fast_dots(s, at) && fast_dots(at + 1, e);
}

/* The address of a From or Reply-To value [s, e): "addr", "<addr>",
 * "Words <addr>" or "\"Text\" <addr>", into a new string; NULL if not
 * plain. */
static char *
fast_mailbox(const char *s, const char *e)
{
	const char *lt, *p;

	e = fast_rtrim(s, e);
	if (e > s && e[-1] != '>')
		return fast_plain_addr(s, e) ? fast_dup(s, (size_t)(e - s)) :
		    NULL;
	if ((lt = memchr(s, '<', (size_t)(e - s))) == NULL ||
	    !fast_plain_addr(lt + 1, e - 1))
		return NULL;
	if (lt > s) {
		/* The display name: atoms one space apart, or one quoted
		 * string of printable ASCII without quotes or backslashes,
		 * then one space. */
		if (lt - s < 2 || lt[-1] != ' ')
			return NULL;
		if (*s == '"') {
			if (lt - s < 4 || lt[-2] != '"')
				return NULL;
			for (p = s + 1; p < lt - 2; p++)
				if (*p == '"' || *p == '\\')
					return NULL;
		} else {
			for (p = s; p < lt - 1; p++)
				if (!fast_atom_char(*p) && !(*p == ' ' &&
				    p[1] != ' ' && p > s))
					return NULL;
			if (fast_has(s, lt, "=?"))
				return NULL;
		}
	}
	return fast_dup(lt + 1, (size_t)(e - lt - 2));
}

/* A Content-Type or Content-Disposition value, read plainly. */
struct fctype {
	char value[80];       /* "type/subtype" or the disposition, lower-case */
	struct {
		char name[32];    /* lower-case */
		char value[MIME_MAX_NAME + 1];
	} p[4];
	int np;
};

/* Read [s, e) into t: a token (with one '/' when slash), then
 * ";name=value" parameters, value a token or a quoted string without
 * backslashes or encoded words. False if it is anything less plain. */
static bool
fast_ctype(const char *s, const char *e, bool slash, struct fctype *t)
{
	const char *q;
	size_t n = 0;
	int slashes = 0;
	int i;

	memset(t, 0, sizeof *t);
	e = fast_rtrim(s, e);
	for (; s < e && *s != ';' && *s != ' ' && *s != '\t'; s++) {
		if (*s == '/')
			slashes++;
		else if (!fast_token_char(*s))
			return false;
		if (n + 1 >= sizeof t->value)
			return false;
		t->value[n++] = (char)g_ascii_tolower(*s);
	}
	if (n == 0 || slashes != (slash ? 1 : 0) || t->value[0] == '/' ||
	    t->value[n - 1] == '/')
		return false;
	while (s < e) {
		char *name, *val;
		size_t vmax;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		if (s >= e || *s != ';')
			return false;
		s++;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		if (t->np == 4)
			return false;
		name = t->p[t->np].name;
		val = t->p[t->np].value;
		vmax = sizeof t->p[0].value;
		for (n = 0; s < e && (g_ascii_isalnum(*s) || *s == '-' ||
		    *s == '_'); s++) {
			if (n + 1 >= sizeof t->p[0].name)
				return false;
			name[n++] = (char)g_ascii_tolower(*s);
		}
		if (n == 0 || s >= e || *s != '=')
			return false;
		s++;
		if (s < e && *s == '"') {
			if ((q = memchr(s + 1, '"', (size_t)(e - s - 1))) ==
			    NULL || (size_t)(q - s - 1) >= vmax)
				return false;
			memcpy(val, s + 1, (size_t)(q - s - 1));
			val[q - s - 1] = '\0';
			if (strchr(val, '\\') != NULL)
				return false;
			s = q + 1;
		} else {
			for (n = 0; s < e && fast_token_char(*s); s++) {
				if (n + 1 >= vmax)
					return false;
				val[n++] = *s;
			}
			if (n == 0)
				return false;
			val[n] = '\0';
		}
		if (strstr(val, "=?") != NULL)
			return false;
		for (i = 0; i < t->np; i++)
			if (strcmp(t->p[i].name, name) == 0)
				return false;
		t->np++;
	}
	return true;
}

/* Parameter name of t, or NULL. */
static const char *
fast_param(const struct fctype *t, const char *name)
{
	int i;

	for (i = 0; i < t->np; i++)
		if (strcmp(t->p[i].name, name) == 0)
			return t->p[i].value;
	return NULL;
}

/* Decode clean base64 (base64_ok said so) [s, s + len) into out (room
 * for len * 3 / 4 + 3 bytes); returns the bytes written. */
static size_t
fast_b64(const unsigned char *s, size_t len, unsigned char *out)
{
	/* Each base64 character's value plus one; 0: white space. */
	static const unsigned char val[256] = {
		['A'] = 1, ['B'] = 2, ['C'] = 3, ['D'] = 4, ['E'] = 5,
		['F'] = 6, ['G'] = 7, ['H'] = 8, ['I'] = 9, ['J'] = 10,
		['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14, ['O'] = 15,
		['P'] = 16, ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20,
		['U'] = 21, ['V'] = 22, ['W'] = 23, ['X'] = 24, ['Y'] = 25,
		['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29, ['d'] = 30,
		['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35,
		['j'] = 36, ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40,
		['o'] = 41, ['p'] = 42, ['q'] = 43, ['r'] = 44, ['s'] = 45,
		['t'] = 46, ['u'] = 47, ['v'] = 48, ['w'] = 49, ['x'] = 50,
		['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55,
		['3'] = 56, ['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60,
		['8'] = 61, ['9'] = 62, ['+'] = 63, ['/'] = 64
	};
	unsigned acc = 0;
	size_t i, o = 0;
	int bits = 0;

	for (i = 0; i < len && s[i] != '='; i++) {
		unsigned c = val[s[i]];

		if (c == 0)
			continue;   /* white space (base64_ok allows no other) */
		acc = (acc << 6) | (c - 1);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	return o;
}

/* Read one leaf part: its header block h, its content [c, c + clen). */
static bool
fast_leaf(const struct fheads *h, const unsigned char *c, size_t clen,
    struct mime_msg *m, size_t *cap)
{
	static const char *const allowed[] = { "content-type",
		"content-disposition", "content-transfer-encoding",
		"content-description", "content-id", "mime-version" };
	const struct ffield *ct, *cd, *cte;
	struct fctype t, d;
	struct mime_part p;
	const char *fn, *cs, *s;
	bool bad = false, b64 = false;
	size_t i, k;

	for (i = 0; i < h->n; i++) {
		for (k = 0; k < sizeof allowed / sizeof allowed[0]; k++)
			if (fast_is(&h->f[i], allowed[k]))
				break;
		if (k == sizeof allowed / sizeof allowed[0])
			return false;
		for (k = 0; k < i; k++)
			if (h->f[k].nlen == h->f[i].nlen && g_ascii_strncasecmp(
			    h->f[k].name, h->f[i].name, h->f[i].nlen) == 0)
				return false;
	}
	ct = fast_get(h, "Content-Type", &bad);
	cd = fast_get(h, "Content-Disposition", &bad);
	cte = fast_get(h, "Content-Transfer-Encoding", &bad);
	if (bad || ct == NULL || !fast_ctype(ct->val, ct->val + ct->vlen, true,
	    &t) || (strncmp(t.value, "text/", 5) != 0 && strncmp(t.value,
	    "application/", 12) != 0))
		return false;
	memset(&d, 0, sizeof d);
	if (cd != NULL && (!fast_ctype(cd->val, cd->val + cd->vlen, false,
	    &d) || (strcmp(d.value, "attachment") != 0 && strcmp(d.value,
	    "inline") != 0)))
		return false;
	if (cte != NULL) {
		char enc[16];
		const char *e = fast_rtrim(cte->val, cte->val + cte->vlen);

		if ((size_t)(e - cte->val) >= sizeof enc)
			return false;
		memcpy(enc, cte->val, (size_t)(e - cte->val));
		enc[e - cte->val] = '\0';
		if (g_ascii_strcasecmp(enc, "base64") == 0)
			b64 = true;
		else if (g_ascii_strcasecmp(enc, "7bit") != 0 &&
		    g_ascii_strcasecmp(enc, "8bit") != 0 &&
		    g_ascii_strcasecmp(enc, "binary") != 0)
			return false;
	}
	if (m->nparts >= MIME_MAX_PARTS)
		return false;
	memset(&p, 0, sizeof p);
	fn = cd != NULL ? fast_param(&d, "filename") : NULL;
	if (fn == NULL)
		fn = fast_param(&t, "name");
	if (fn != NULL) {
		for (s = fn; *s == ' ' || *s == '\t'; s++)
			;
		if (*s == '\0')
			fn = NULL;
	}
	if (fn != NULL) {
		if (strlen(fn) > MIME_MAX_NAME || !clean_text(fn, false))
			return false;
		for (i = 0; i < m->nparts; i++)
			if (m->parts[i].filename != NULL &&
			    strcasecmp(m->parts[i].filename, fn) == 0)
				return false;
	}
	if (b64) {
		if (!base64_ok(c, clen) || clen / 4 * 3 > MIME_MAX_PART + 3)
			return false;
		p.data = xmalloc(clen / 4 * 3 + 4);
		p.len = fast_b64(c, clen, p.data);
	} else {
		p.data = xmalloc(clen + 1);
		memcpy(p.data, c, clen);
		p.len = clen;
	}
	p.data[p.len] = '\0';
	p.base64 = b64;
	p.attachment = fn != NULL || strcmp(d.value, "attachment") == 0 ||
	    strncmp(t.value, "text/", 5) != 0;
	cs = fast_param(&t, "charset");
	if (p.len > MIME_MAX_PART || (!p.attachment && ((cs != NULL &&
	    *cs != '\0' && !utf8_charset(cs)) || memchr(p.data, '\0',
	    p.len) != NULL || !g_utf8_validate((const gchar *)p.data,
	    (gssize)p.len, NULL)))) {
		free(p.data);
		return false;
	}
	p.filename = fn != NULL ? xstrdup(fn) : NULL;
	p.content_type = xstrdup(t.value);
	if (m->nparts == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		m->parts = xrealloc(m->parts, *cap * sizeof *m->parts);
	}
	m->parts[m->nparts++] = p;
	return true;
}

/* Is the line at raw[i] (ending at e, CR excluded) "--" boundary, and
 * *end "--" after it? */
static bool
fast_boundary(const unsigned char *raw, size_t i, size_t e, const char *b,
    size_t blen, bool *end)
{
	if (e - i < blen + 2 || raw[i] != '-' || raw[i + 1] != '-' ||
	    memcmp(raw + i + 2, b, blen) != 0)
		return false;
	*end = e - i == blen + 4 && raw[e - 2] == '-' && raw[e - 1] == '-';
	return true;
}

/* The top-level header fields of h into m; false if not plain. */
static bool
fast_top(const struct fheads *h, struct mime_msg *m)
{
	static const char *const autos[] = { "Auto-Submitted", "Precedence",
		"List-Id", "List-Unsubscribe", "X-Autoreply", "X-Autorespond",
		"Content-Disposition", "Content-Transfer-Encoding" };
	const struct ffield *f;
	const char *s, *e, *at;
	bool bad = false;
	size_t i, k;

	if (h->n == 0)
		return false;
	for (i = 0; i < sizeof autos / sizeof autos[0]; i++)
		if (fast_get(h, autos[i], &bad) != NULL)
			return false;
	/* Any field given twice but Received: GMime may find a conflict. */
	for (i = 0; i < h->n; i++)
		for (k = 0; k < i; k++)
			if (h->f[k].nlen == h->f[i].nlen && g_ascii_strncasecmp(
			    h->f[k].name, h->f[i].name, h->f[i].nlen) == 0 &&
			    !fast_is(&h->f[i], "Received"))
				return false;
	if ((f = fast_get(h, "Return-Path", &bad)) != NULL) {
		if (bad || fast_has(f->val, f->val + f->vlen, "=?"))
			return false;
		for (s = f->val; s < f->val + f->vlen && (*s == ' ' ||
		    *s == '\t' || *s == '<'); s++)
			;
		if (s < f->val + f->vlen && *s == '>')
			return false;
	}
	if ((f = fast_get(h, "Message-ID", &bad)) != NULL && f->vlen > 0) {
		e = fast_rtrim(f->val, f->val + f->vlen);
		s = f->val;
		if (e - s < 5 || *s != '<' || e[-1] != '>' ||
		    !fast_plain_addr(s + 1, e - 1))
			return false;
		m->message_id = fast_dup(s + 1, (size_t)(e - s - 2));
		if (!msgid_ok(m->message_id))
			return false;
	}
	if ((f = fast_get(h, "From", &bad)) != NULL && f->vlen > 0) {
		if ((m->from = fast_mailbox(f->val, f->val + f->vlen)) == NULL)
			return false;
		at = strrchr(m->from, '@');
		k = (size_t)(at - m->from);
		if ((k == 13 && g_ascii_strncasecmp(m->from, "mailer-daemon",
		    k) == 0) || (k == 10 && g_ascii_strncasecmp(m->from,
		    "postmaster", k) == 0))
			return false;
	}
	if ((f = fast_get(h, "Reply-To", &bad)) != NULL && f->vlen > 0 &&
	    (m->reply_to = fast_mailbox(f->val, f->val + f->vlen)) == NULL)
		return false;
	if ((f = fast_get(h, "Subject", &bad)) != NULL) {
		e = fast_rtrim(f->val, f->val + f->vlen);
		if (fast_has(f->val, e, "=?") || fast_has(f->val, e, "\t"))
			return false;
		m->subject = fast_dup(f->val, (size_t)(e - f->val));
	}
	return !bad;
}

/* Does raw end every line one way, CR LF or LF, with no other CR? */
static bool
fast_one_eol(const unsigned char *raw, size_t len)
{
	const unsigned char *p = raw, *e = raw + len, *nl;
	int crlf = -1;

	for (; p < e; p = nl + 1) {
		const unsigned char *cr;
		bool this;

		if ((nl = memchr(p, '\n', (size_t)(e - p))) == NULL)
			nl = e;
		cr = memchr(p, '\r', (size_t)(nl - p));
		if (cr != NULL && cr != nl - 1)
			return false;
		if (nl == e)
			return cr == NULL;
		this = cr != NULL;
		if (crlf == -1)
			crlf = this;
		else if (crlf != this)
			return false;
	}
	return true;
}

/* Parse raw into m by the fast reader: HP_OK, or HP_ENOENT (m cleared
 * but for hash) when GMime must read it. */
static int
fast_parse(const unsigned char *raw, size_t len, struct mime_msg *m)
{
	struct fheads *h = xmalloc(sizeof *h);
	struct fctype t;
	const struct ffield *ct;
	const char *b;
	size_t pos = 0, i, e, k, blen, cap = 0, cstart;
	bool bad = false, end = false, inpart = false;
	int rc = HP_ENOENT;

	if (len == 0 || len > MIME_MAX_MESSAGE || memchr(raw, '\0', len) !=
	    NULL || (len >= 5 && memcmp(raw, "From ", 5) == 0) ||
	    !fast_one_eol(raw, len) || line_limits(raw, len, NULL) != HP_OK || !fast_block(raw, len, &pos,
	    h) || !fast_top(h, m))
		goto out;
	if ((ct = fast_get(h, "Content-Type", &bad)) == NULL || bad ||
	    !fast_ctype(ct->val, ct->val + ct->vlen, true, &t) ||
	    strcmp(t.value, "multipart/mixed") != 0 || t.np != 1 ||
	    (b = fast_param(&t, "boundary")) == NULL || (blen = strlen(b)) ==
	    0 || blen > 70)
		goto out;
	cstart = 0;
	for (i = pos; i < len && !end; i = e + 1) {
		for (e = i; e < len && raw[e] != '\n'; e++)
			;
		k = e > i && raw[e - 1] == '\r' ? e - 1 : e;
		if (!fast_boundary(raw, i, k, b, blen, &end)) {
			if (e >= len)
				goto out;   /* no closing boundary */
			continue;
		}
		if (k - i != blen + 2 && !end)
			goto out;    /* "--boundary" and more: GMime's call */
		if (inpart) {
			/* The part ends before the line end that precedes
			 * its boundary. */
			size_t ce = i;

			if (ce <= cstart || raw[ce - 1] != '\n')
				goto out;
			ce--;
			if (ce > cstart && raw[ce - 1] == '\r')
				ce--;
			if (!fast_leaf(h, raw + cstart, ce - cstart, m, &cap))
				goto out;
		}
		if (end)
			break;
		if (e >= len)
			goto out;
		pos = e + 1;
		if (!fast_block(raw, len, &pos, h) || h->n == 0)
			goto out;
		cstart = pos;
		e = pos - 1;
		inpart = true;
	}
	if (!end || !inpart)
		goto out;
	/* Nothing but line ends after the closing boundary. */
	for (i = e + 1; i < len; i++)
		if (raw[i] != '\r' && raw[i] != '\n')
			goto out;
	set_html_only(m);
	rc = HP_OK;
out:
	free(h);
	if (rc != HP_OK)
		msg_release(m);
	return rc;
}

/* GMime and GLib keep shared state (charset and iconv caches, the slice
 * allocator) that we do not want to trust across threads: every use of
 * GMime in this file goes through this lock, so the functions of mime.h
 * may be called from several threads. */
static pthread_mutex_t gmime_lock = PTHREAD_MUTEX_INITIALIZER;

/* mime_parse by GMime alone, for the tests (not in mime.h). */
int mime_parse_gmime(const unsigned char *, size_t, struct mime_msg *,
    struct hp_error *);
/* mime_parse by the fast reader alone, for the tests (not in mime.h):
 * HP_ENOENT when it leaves the message to GMime. */
int mime_parse_fast(const unsigned char *, size_t, struct mime_msg *);

int
mime_parse_gmime(const unsigned char *raw, size_t len, struct mime_msg *m,
    struct hp_error *err)
{
	int rc;

	pthread_mutex_lock(&gmime_lock);
	rc = parse_unlocked(raw, len, m, err);
	pthread_mutex_unlock(&gmime_lock);
	return rc;
}

int
mime_parse_fast(const unsigned char *raw, size_t len, struct mime_msg *m)
{
	memset(m, 0, sizeof *m);
	pthread_mutex_lock(&gmime_lock);
	mime_init();
	pthread_mutex_unlock(&gmime_lock);
	crypto_generichash(m->hash, sizeof m->hash, raw, len, NULL, 0);
	return fast_parse(raw, len, m);
}

/* The fast reader first (no lock held while it reads), GMime for what it
 * leaves. */
int
mime_parse(const unsigned char *raw, size_t len, struct mime_msg *m,
    struct hp_error *err)
{
	if (mime_parse_fast(raw, len, m) == HP_OK)
		return HP_OK;
	return mime_parse_gmime(raw, len, m, err);
}

void
mime_head_automatic(const unsigned char *head, size_t len,
    struct mime_msg *m)
{
	mime_init();
	pthread_mutex_lock(&gmime_lock);
	header_automatic(head, len, m);
	pthread_mutex_unlock(&gmime_lock);
}

/* Free everything m owns and clear it; safe on a refused or freed m. */
int
mime_fields(const unsigned char *text, size_t len,
    void (*fn)(const char *name, const char *value, void *), void *arg)
{
	GMimeStream *mem;
	GMimeParser *parser;
	GMimeMessage *msg;
	GMimeHeaderList *hl;
	GByteArray *buf;
	int i, n = 0;

	if (len > MIME_MAX_MESSAGE)
		len = MIME_MAX_MESSAGE;
	pthread_mutex_lock(&gmime_lock);
	mime_init();
	/* An empty line ends the block however the text ends. */
	buf = g_byte_array_sized_new((guint)len + 2);
	g_byte_array_append(buf, text, (guint)len);
	g_byte_array_append(buf, (const guint8 *)"\n\n", 2);
	mem = g_mime_stream_mem_new_with_byte_array(buf);
	parser = g_mime_parser_new_with_stream(mem);
	g_object_unref(mem);
	msg = g_mime_parser_construct_message(parser, NULL);
	g_object_unref(parser);
	if (msg != NULL) {
		hl = g_mime_object_get_header_list((GMimeObject *)msg);
		for (i = 0; hl != NULL && i < g_mime_header_list_get_count(hl);
		    i++) {
			GMimeHeader *h = g_mime_header_list_get_header_at(hl, i);
			const char *v = g_mime_header_get_value(h);

			fn(g_mime_header_get_name(h), v != NULL ? v : "", arg);
			n++;
		}
		g_object_unref(msg);
	}
	pthread_mutex_unlock(&gmime_lock);
	return n;
}

void
mime_msg_free(struct mime_msg *m)
{
	if (m == NULL)
		return;
	msg_release(m);
	memset(m, 0, sizeof *m);
}

/* The part named name (case-insensitive), owned by m, or NULL. */
const struct mime_part *
mime_find(const struct mime_msg *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nparts; i++)
		if (m->parts[i].filename != NULL &&
		    strcasecmp(m->parts[i].filename, name) == 0)
			return &m->parts[i];
	return NULL;
}

/* How many parts have a name ending in suffix; the first max go to out
 * (owned by m). */
size_t
mime_find_suffix(const struct mime_msg *m, const char *suffix,
    const struct mime_part **out, size_t max)
{
	size_t i, n = 0, fl, sl = strlen(suffix);
	const char *f;

	for (i = 0; i < m->nparts; i++) {
		if ((f = m->parts[i].filename) == NULL)
			continue;
		if ((fl = strlen(f)) < sl || strcasecmp(f + fl - sl, suffix) != 0)
			continue;
		if (n < max)
			out[n] = &m->parts[i];
		n++;
	}
	return n;
}

/* Encode parameter name of l, if it needs encoding, as UTF-8 rather than
 * the smallest charset that holds it. */
static void
param_utf8(GMimeParamList *l, const char *name)
{
	GMimeParam *p;

	if (l != NULL && (p = g_mime_param_list_get_parameter(l, name)) != NULL)
		g_mime_param_set_charset(p, "UTF-8");
}

/* Encode the display names of l, if they need encoding, as UTF-8. */
static void
addresses_utf8(InternetAddressList *l)
{
	int i, n = internet_address_list_length(l);

	for (i = 0; i < n; i++)
		internet_address_set_charset(
		    internet_address_list_get_address(l, i), "UTF-8");
}

/* A text/plain; charset=utf-8 part holding text: as an attachment named
 * name in base64, or (name NULL) as a body in 7bit if it is ASCII in short
 * lines, else quoted-printable. The caller unrefs it. */
static GMimePart *
text_part(const char *text, const char *name)
{
	GMimePart *p = g_mime_part_new_with_type("text", "plain");
	GMimeContentEncoding enc;
	GMimeStream *s;
	GMimeDataWrapper *w;

	s = g_mime_stream_mem_new_with_buffer(text, strlen(text));
	w = g_mime_data_wrapper_new_with_stream(s,
	    GMIME_CONTENT_ENCODING_DEFAULT);
	g_mime_part_set_content(p, w);
	g_object_unref(w);
	g_object_unref(s);
	g_mime_object_set_content_type_parameter((GMimeObject *)p, "charset",
	    "utf-8");
	if (name != NULL) {
		g_mime_object_set_disposition((GMimeObject *)p, "attachment");
		g_mime_part_set_filename(p, name);
		param_utf8(g_mime_content_disposition_get_parameters(
		    g_mime_object_get_content_disposition((GMimeObject *)p)),
		    "filename");
		param_utf8(g_mime_content_type_get_parameters(
		    g_mime_object_get_content_type((GMimeObject *)p)), "name");
		g_mime_part_set_content_encoding(p,
		    GMIME_CONTENT_ENCODING_BASE64);
		return p;
	}
	/* GMime says DEFAULT when no encoding is needed, and asks for one
	 * for 8-bit text, long lines and lines starting "From ". */
	enc = g_mime_part_get_best_content_encoding(p,
	    GMIME_ENCODING_CONSTRAINT_7BIT);
	if (enc == GMIME_CONTENT_ENCODING_DEFAULT ||
	    enc == GMIME_CONTENT_ENCODING_7BIT)
		g_mime_part_set_content_encoding(p, GMIME_CONTENT_ENCODING_7BIT);
	else
		g_mime_part_set_content_encoding(p,
		    GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE);
	return p;
}

/* Parse an address list for mime_build: NULL (and err set) unless it
 * holds at least one address, exactly one mailbox if single. The caller
 * unrefs the list. */
static InternetAddressList *
build_addresses(const char *s, const char *what, bool single,
    struct hp_error *err)
{
	InternetAddressList *l;
	int n;

	if (s == NULL || !clean_text(s, false)) {
		hp_seterr(err, HP_EINVAL, "mime_build: missing or unusable %s",
		    what);
		return NULL;
	}
	l = internet_address_list_parse(NULL, s);
	n = l != NULL ? internet_address_list_length(l) : 0;
	if (n == 0 || (single && (n != 1 || !INTERNET_ADDRESS_IS_MAILBOX(
	    internet_address_list_get_address(l, 0))))) {
		if (l != NULL)
			g_object_unref(l);
		hp_seterr(err, HP_EINVAL, "mime_build: bad %s address \"%s\"",
		    what, s);
		return NULL;
	}
	return l;
}

/* Check the fields of o other than the addresses. */
static int
build_check(const struct mime_out *o, bool date_ok, struct hp_error *err)
{
	GDateTime *dt;
	const char *a = o->auto_submitted;
	size_t i;

	if (o->subject == NULL || !clean_text(o->subject, false)) {
		hp_seterr(err, HP_EINVAL, "mime_build: missing or unusable "
		    "subject");
		return HP_EINVAL;
	}
	if (o->message_id == NULL || !msgid_ok(o->message_id) ||
	    (o->in_reply_to != NULL && !msgid_ok(o->in_reply_to))) {
		hp_seterr(err, HP_EINVAL, "mime_build: bad message id");
		return HP_EINVAL;
	}
	if (!refs_ok(o->references) || (o->list_id != NULL &&
	    (!clean_text(o->list_id, false) || !ascii_text(o->list_id))) ||
	    !extra_ok(o->extra)) {
		hp_seterr(err, HP_EINVAL, "mime_build: bad References, List-Id "
		    "or extra header field");
		return HP_EINVAL;
	}
	if (a == NULL || (strcmp(a, "auto-replied") != 0 &&
	    strcmp(a, "auto-generated") != 0 &&
	    strcmp(a, "auto-notified") != 0)) {
		hp_seterr(err, HP_EINVAL, "mime_build: Auto-Submitted must be "
		    "auto-replied or auto-generated");
		return HP_EINVAL;
	}
	if (o->date != NULL && !date_ok) {
		if (!clean_text(o->date, false) ||
		    (dt = g_mime_utils_header_decode_date(o->date)) == NULL) {
			hp_seterr(err, HP_EINVAL, "mime_build: bad date \"%s\"",
			    o->date);
			return HP_EINVAL;
		}
		g_date_time_unref(dt);
	}
	if (o->body == NULL || !g_utf8_validate(o->body, -1, NULL)) {
		hp_seterr(err, HP_EINVAL, "mime_build: the body is missing or "
		    "not valid UTF-8");
		return HP_EINVAL;
	}
	if ((o->attach_name == NULL) != (o->attach_body == NULL) ||
	    (o->attach_name != NULL && (*o->attach_name == '\0' ||
	    strlen(o->attach_name) > MIME_MAX_NAME ||
	    !clean_text(o->attach_name, false) ||
	    !g_utf8_validate(o->attach_body, -1, NULL)))) {
		hp_seterr(err, HP_EINVAL, "mime_build: bad attachment");
		return HP_EINVAL;
	}
	for (i = 0; i < o->nfiles; i++) {
		const struct mime_file *f = &o->files[i];

		if (f->name == NULL || *f->name == '\0' ||
		    strlen(f->name) > MIME_MAX_NAME ||
		    !clean_text(f->name, false) || f->type == NULL ||
		    strchr(f->type, '/') == NULL || (f->data == NULL &&
		    f->len > 0)) {
			hp_seterr(err, HP_EINVAL, "mime_build: bad attachment");
			return HP_EINVAL;
		}
	}
	return HP_OK;
}

/* A base64 attachment part of f's type, name and bytes. */
static GMimePart *
file_part(const struct mime_file *f)
{
	const char *slash = strchr(f->type, '/');
	char *major = g_strndup(f->type, (gsize)(slash - f->type));
	GMimePart *p = g_mime_part_new_with_type(major, slash + 1);
	GMimeStream *s;
	GMimeDataWrapper *w;

	g_free(major);
	s = g_mime_stream_mem_new_with_buffer(f->data != NULL ? f->data : "",
	    f->len);
	w = g_mime_data_wrapper_new_with_stream(s,
	    GMIME_CONTENT_ENCODING_DEFAULT);
	g_mime_part_set_content(p, w);
	g_object_unref(w);
	g_object_unref(s);
	g_mime_object_set_disposition((GMimeObject *)p, "attachment");
	g_mime_part_set_filename(p, f->name);
	g_mime_part_set_content_encoding(p, GMIME_CONTENT_ENCODING_BASE64);
	return p;
}

/* "<a> <b> ..." for the References of o (the caller frees), or NULL. */
static char *
refs_text(const struct mime_out *o)
{
	const char *r = o->references != NULL ? o->references : o->in_reply_to;
	GString *g;
	const char *p, *e;

	if (r == NULL)
		return NULL;
	g = g_string_new(NULL);
	for (p = r; *p != '\0'; p = e) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		e = p + strcspn(p, " ");
		g_string_append_printf(g, "%s<%.*s>", g->len ? " " : "",
		    (int)(e - p), p);
	}
	return g_string_free(g, FALSE);
}

/* Write the checked message o with GMime (any message), taking over the
 * parsed address lists. */
static int
build_gmime(const struct mime_out *o, InternetAddressList *from,
    InternetAddressList *to, char **out, size_t *outlen, struct hp_error *err)
{
	GMimeMessage *msg;
	GMimeObject *mo;
	GMimeMultipart *mp;
	GMimePart *body, *att;
	GDateTime *now;
	char *s, *id;
	size_t i, n;

	addresses_utf8(from);
	addresses_utf8(to);
	/* Headers in the order they are set. */
	msg = g_mime_message_new(FALSE);
	mo = (GMimeObject *)msg;
	if (o->date != NULL)
		g_mime_object_set_header(mo, "Date", o->date, NULL);
	else {
		now = g_date_time_new_now_local();
		g_mime_message_set_date(msg, now);
		g_date_time_unref(now);
	}
	internet_address_list_append(g_mime_message_get_from(msg), from);
	internet_address_list_append(g_mime_message_get_addresses(msg,
	    GMIME_ADDRESS_TYPE_TO), to);
	g_object_unref(from);
	g_object_unref(to);
	g_mime_message_set_subject(msg, o->subject, "utf-8");
	id = g_strdup_printf("<%s>", o->message_id);
	g_mime_object_set_header(mo, "Message-ID", id, NULL);
	g_free(id);
	if (o->in_reply_to != NULL) {
		id = g_strdup_printf("<%s>", o->in_reply_to);
		g_mime_object_set_header(mo, "In-Reply-To", id, NULL);
		g_free(id);
	}
	if ((id = refs_text(o)) != NULL) {
		g_mime_object_set_header(mo, "References", id, NULL);
		g_free(id);
	}
	g_mime_object_set_header(mo, "Auto-Submitted", o->auto_submitted,
	    NULL);
	if (o->list_id != NULL)
		g_mime_object_set_header(mo, "List-Id", o->list_id, NULL);
	for (i = 0; o->extra != NULL && o->extra[i] != NULL; i += 2)
		g_mime_object_set_header(mo, o->extra[i], o->extra[i + 1],
		    "utf-8");
	body = text_part(o->body, NULL);
	if (o->attach_name != NULL || o->nfiles > 0) {
		mp = g_mime_multipart_new_with_subtype("mixed");
		/* A boundary from the Message-ID, not a random one: the same
		 * message is the same bytes (fog of war tests compare them);
		 * "=-" never occurs in base64 or quoted-printable. */
		s = g_compute_checksum_for_string(G_CHECKSUM_SHA256,
		    o->message_id, -1);
		id = g_strdup_printf("=-hexpost-%.24s", s);
		g_mime_multipart_set_boundary(mp, id);
		g_free(id);
		g_free(s);
		g_mime_multipart_add(mp, (GMimeObject *)body);
		if (o->attach_name != NULL) {
			att = text_part(o->attach_body, o->attach_name);
			g_mime_multipart_add(mp, (GMimeObject *)att);
			g_object_unref(att);
		}
		for (i = 0; i < o->nfiles; i++) {
			att = file_part(&o->files[i]);
			g_mime_multipart_add(mp, (GMimeObject *)att);
			g_object_unref(att);
		}
		g_mime_message_set_mime_part(msg, (GMimeObject *)mp);
		g_object_unref(mp);
	} else
		g_mime_message_set_mime_part(msg, (GMimeObject *)body);
	g_object_unref(body);
	s = g_mime_object_to_string(mo, NULL);
	g_object_unref(msg);
	n = s != NULL ? strlen(s) : 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			break;
	if (s == NULL || i < n) {
		hp_seterr(err, HP_EINTERNAL, "mime_build: GMime wrote %s",
		    s == NULL ? "nothing" : "8-bit data");
		g_free(s);
		return HP_EINTERNAL;
	}
	*out = xmalloc(n + 1);
	memcpy(*out, s, n + 1);
	*outlen = n;
	g_free(s);
	return HP_OK;
}

/*
 * The fast path: most outgoing mail is a short ASCII reply without an
 * attachment, which GMime writes as it is given. For that mail the message
 * is put together here, byte for byte what build_gmime writes (the unit
 * tests compare the two), at a fraction of the cost. Anything that GMime
 * would change - fold, quote, RFC 2047-encode, trim, re-encode as
 * quoted-printable - takes the GMime path instead.
 */

#define FAST_LINE 78        /* a longer header line would be folded */
#define FAST_ADDR_LINE 76   /* GMime folds "Name <addr>" already at 78 */
#define FAST_BODY_LINE 998  /* a longer body line needs quoted-printable */

/* Is s printable ASCII (space included), and would "name: s" fit on one
 * header line of at most max characters? */
static bool
fast_line(const char *name, const char *s, size_t max)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p >= 0x7f)
			return false;
	return strlen(name) + 2 + (size_t)(p - (const unsigned char *)s) <= max;
}

/* Unstructured text (Subject, Date) that GMime writes unchanged: no white
 * space at either end (trimmed), nothing that looks like an RFC 2047
 * encoded word (encoded, so that it reads back as written). */
static bool
fast_text(const char *name, const char *s)
{
	size_t n = strlen(s);

	return n > 0 && s[0] != ' ' && s[n - 1] != ' ' &&
	    strstr(s, "=?") == NULL && fast_line(name, s, FAST_LINE);
}

/* The Subject s without the spaces at either end, as GMime writes it (it
 * trims them; the ones inside it keeps): *off and *len. A player's order
 * mail from contrib/hexpost-player has a subject ending in a space, so
 * the replies to it "Re: ..." come here trimmed. */
static void
fast_trim(const char *s, size_t *off, size_t *len)
{
	size_t a = 0, n = strlen(s);

	while (a < n && s[a] == ' ')
		a++;
	while (n > a && s[n - 1] == ' ')
		n--;
	*off = a;
	*len = n - a;
}

/* fast_text for the Subject, which GMime trims (fast_trim): the trimmed
 * text must be non-empty and fit on one line. */
static bool
fast_subject(const char *s)
{
	const unsigned char *p;
	size_t off, len;

	fast_trim(s, &off, &len);
	for (p = (const unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p >= 0x7f)
			return false;
	return len > 0 && strstr(s, "=?") == NULL &&
	    strlen("Subject") + 2 + len <= FAST_LINE;
}

/* Is c atext (RFC 5322: letters, digits and !#$%&'*+-/=?^_`{|}~)? */
static bool
fast_atext(char c)
{
	return g_ascii_isalnum(c) || (c != '\0' &&
	    strchr("!#$%&'*+-/=?^_`{|}~", c) != NULL);
}

/* Does [s, e) hold a dot-atom: atext, with single dots inside? */
static bool
fast_dot_atom(const char *s, const char *e)
{
	const char *p;

	if (s == e || s[0] == '.' || e[-1] == '.')
		return false;
	for (p = s; p < e; p++)
		if (!fast_atext(*p) && (*p != '.' || p[1] == '.'))
			return false;
	return true;
}

/* Does [s, e) hold a plain addr-spec: a dot-atom local part, "@", and a
 * domain of letter-digit-hyphen labels, none an IDN A-label "xn--" (GMime
 * writes domains through IDNA)? */
static bool
fast_addr_spec(const char *s, const char *e)
{
	const char *at = memchr(s, '@', (size_t)(e - s)), *p, *label;

	if (at == NULL || !fast_dot_atom(s, at))
		return false;
	for (p = label = at + 1;; p++) {
		if (p == e || *p == '.') {
			if (p == label || (p - label >= 4 &&
			    g_ascii_strncasecmp(label, "xn--", 4) == 0))
				return false;
			if (p == e)
				return true;
			label = p + 1;
		} else if (!g_ascii_isalnum(*p) && *p != '-')
			return false;
	}
}

/* Does [s, e) hold a display name of atext words, one space apart? */
static bool
fast_phrase(const char *s, const char *e)
{
	const char *p;

	if (s == e || *s == ' ' || e[-1] == ' ')
		return false;
	for (p = s; p < e; p++)
		if (!fast_atext(*p) && (*p != ' ' || p[1] == ' '))
			return false;
	return true;
}

/* An address list that GMime writes unchanged: mailboxes "addr" or
 * "Display Name <addr>" in the plain forms above, ", " apart, as GMime
 * itself read them (its list l). Quoted names, comments, groups, extra
 * white space, IDN domains are rewritten by GMime and so go its way. */
static bool
fast_addresses(const char *name, const char *s, InternetAddressList *l)
{
	InternetAddress *ia;
	const char *p, *e, *lt, *gname, *gaddr;
	int i, n = internet_address_list_length(l);

	if (!fast_line(name, s, FAST_ADDR_LINE))
		return false;
	for (i = 0, p = s;; i++) {
		if (i >= n)
			return false;
		ia = internet_address_list_get_address(l, i);
		if (!INTERNET_ADDRESS_IS_MAILBOX(ia))
			return false;
		gname = internet_address_get_name(ia);
		gaddr = internet_address_mailbox_get_addr(
		    (InternetAddressMailbox *)ia);
		if ((e = strchr(p, ',')) == NULL)
			e = p + strlen(p);
		if (e > p && e[-1] == '>' && (lt = memchr(p, '<',
		    (size_t)(e - p))) != NULL) {
			if (lt - p < 2 || lt[-1] != ' ' ||
			    !fast_phrase(p, lt - 1) ||
			    !fast_addr_spec(lt + 1, e - 1) || gname == NULL ||
			    strlen(gname) != (size_t)(lt - 1 - p) ||
			    strncmp(gname, p, (size_t)(lt - 1 - p)) != 0)
				return false;
			p = lt + 1;
			if (gaddr == NULL || strlen(gaddr) != (size_t)(e - 1 - p) ||
			    strncmp(gaddr, p, (size_t)(e - 1 - p)) != 0)
				return false;
		} else if (!fast_addr_spec(p, e) ||
		    (gname != NULL && *gname != '\0') || gaddr == NULL ||
		    strlen(gaddr) != (size_t)(e - p) ||
		    strncmp(gaddr, p, (size_t)(e - p)) != 0)
			return false;
		if (*e == '\0')
			return i + 1 == n;
		if (e[1] != ' ' || e[2] == ' ' || e[2] == '\0')
			return false;
		p = e + 2;
	}
}

/* A message id "dot-atom@dot-atom". GMime reads In-Reply-To and
 * References as message ids and writes back what it understood (the id up
 * to a second "@", say); these it writes as given, on one line however
 * long (msgid_ok allows up to MIME_MAX_ID). */
static bool
fast_id(const char *id)
{
	const char *at = strchr(id, '@');

	return at != NULL && fast_dot_atom(id, at) &&
	    fast_dot_atom(at + 1, id + strlen(id));
}

/* A body that GMime sends as 7bit unchanged: printable ASCII, tabs and
 * newlines, lines of at most 998 bytes, none starting "From " (GMime
 * encodes those against mbox mangling). A line of a lone "." (SMTP's end
 * of data) GMime leaves alone too, but that is its affair: such a body
 * goes its way. */
static bool
fast_body(const char *b)
{
	const unsigned char *p, *line;

	for (p = line = (const unsigned char *)b;; p++) {
		if (*p == '\n' || *p == '\0') {
			if (p - line > FAST_BODY_LINE ||
			    (p - line == 1 && line[0] == '.') ||
			    (p - line >= 5 && memcmp(line, "From ", 5) == 0))
				return false;
			if (*p == '\0')
				return true;
			line = p + 1;
		} else if ((*p < 0x20 && *p != '\t') || *p >= 0x7f)
			return false;
	}
}

/* References, List-Id and the extra fields of o as GMime writes them:
 * References plain ids (fast_refs folds them as GMime does); the others
 * unstructured text unchanged on one line. */
static bool
fast_headers(const struct mime_out *o)
{
	char *refs = refs_text(o);
	const char *p, *e;
	bool ok = true;
	size_t i;

	if (o->references != NULL) {
		for (p = o->references; *p != '\0' && ok; p = e) {
			char id[MIME_MAX_ID + 1];

			while (*p == ' ')
				p++;
			e = p + strcspn(p, " ");
			if (e == p)
				break;
			snprintf(id, sizeof id, "%.*s", (int)(e - p), p);
			ok = fast_id(id);
		}
	}
	g_free(refs);
	if (o->list_id != NULL && !fast_text("List-Id", o->list_id))
		ok = false;
	for (i = 0; ok && o->extra != NULL && o->extra[i] != NULL; i += 2)
		ok = fast_text(o->extra[i], o->extra[i + 1]);
	return ok;
}

/* The References value "<a> <b> ..." (refs_text) folded as GMime folds
 * it (the caller frees): the first id after "References:" whatever its
 * length, then each id on the same line unless the line, with that id,
 * a space before it and room for one more character, would reach 78: then
 * on a new line starting with a tab. Ids are never broken. The unit tests
 * compare it with GMime on random lists. */
static char *
fast_refs(const char *refs)
{
	GString *g = g_string_new(NULL);
	size_t col = strlen("References:"), n;
	const char *p = refs, *e;

	for (; *p != '\0'; p = e) {
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		e = p + strcspn(p, " ");
		n = (size_t)(e - p);    /* "<id>": the id and its brackets */
		if (g->len > 0 && col + n + 1 >= FAST_LINE) {
			g_string_append(g, "\n\t");
			col = 1;
		} else {
			if (g->len > 0)
				g_string_append_c(g, ' ');
			col++;
		}
		g_string_append_len(g, p, (gssize)n);
		col += n;
	}
	return g_string_free(g, FALSE);
}

/* Can the checked message o take the fast path? */
static bool
fast_ok(const struct mime_out *o, InternetAddressList *from,
    InternetAddressList *to)
{
	return o->attach_name == NULL && o->nfiles == 0 &&
	    (o->date == NULL || fast_text("Date", o->date)) &&
	    fast_addresses("From", o->from, from) &&
	    fast_addresses("To", o->to, to) &&
	    fast_subject(o->subject) &&
	    fast_id(o->message_id) &&
	    (o->in_reply_to == NULL || fast_id(o->in_reply_to)) &&
	    fast_headers(o) &&
	    fast_body(o->body);
}

/* fast_ok for everything but the addresses. */
static bool
fast_rest_ok(const struct mime_out *o)
{
	return o->attach_name == NULL && o->nfiles == 0 &&
	    (o->date == NULL || fast_text("Date", o->date)) &&
	    fast_subject(o->subject) &&
	    fast_id(o->message_id) &&
	    (o->in_reply_to == NULL || fast_id(o->in_reply_to)) &&
	    fast_headers(o) &&
	    fast_body(o->body);
}

/* Addresses that GMime parsed and fast_addresses accepted: the fast path
 * needs no GMime (and no lock) for a message between such addresses, the
 * kind hexpost sends over and over. */
#define FAST_CACHE 256
static struct {
	bool to;
	char *s;
} fast_cache[FAST_CACHE];
static int nfast_cache;
static pthread_mutex_t fast_cache_lock = PTHREAD_MUTEX_INITIALIZER;
/* The last dates GMime parsed for mime_build (hexpost makes one a second). */
#define FAST_DATES 8
static char fast_dates[FAST_DATES][64];
static int next_date;

static bool
fast_date_cached(const char *d)
{
	bool found = false;
	int i;

	pthread_mutex_lock(&fast_cache_lock);
	for (i = 0; i < FAST_DATES && !found; i++)
		found = strcmp(fast_dates[i], d) == 0;
	pthread_mutex_unlock(&fast_cache_lock);
	return found;
}

static void
fast_date_remember(const char *d)
{
	if (strlen(d) >= sizeof fast_dates[0])
		return;
	pthread_mutex_lock(&fast_cache_lock);
	strlcpy_(fast_dates[next_date], d, sizeof fast_dates[0]);
	next_date = (next_date + 1) % FAST_DATES;
	pthread_mutex_unlock(&fast_cache_lock);
}

static bool
fast_cached(bool to, const char *s)
{
	bool found = false;
	int i;

	pthread_mutex_lock(&fast_cache_lock);
	for (i = 0; i < nfast_cache && !found; i++)
		found = fast_cache[i].to == to && strcmp(fast_cache[i].s, s) ==
		    0;
	pthread_mutex_unlock(&fast_cache_lock);
	return found;
}

static void
fast_remember(bool to, const char *s)
{
	pthread_mutex_lock(&fast_cache_lock);
	if (nfast_cache < FAST_CACHE) {
		fast_cache[nfast_cache].to = to;
		fast_cache[nfast_cache++].s = xstrdup(s);
	}
	pthread_mutex_unlock(&fast_cache_lock);
}

/* Write the message o that fast_ok accepted, as build_gmime would. */
static void
build_fast(const struct mime_out *o, char **out, size_t *outlen)
{
	static const char tail[] = "MIME-Version: 1.0\n"
	    "Content-Type: text/plain; charset=utf-8\n"
	    "Content-Transfer-Encoding: 7bit\n\n";
	const char *f[64];
	char *date = NULL, *p, *refs = NULL, *subj, *folded;
	GDateTime *now;
	size_t i, n = 0, len, blen = strlen(o->body), soff, slen;

	if (o->date == NULL) {
		now = g_date_time_new_now_local();
		date = g_mime_utils_header_format_date(now);
		g_date_time_unref(now);
	}
	f[n++] = "Date: ";
	f[n++] = date != NULL ? date : o->date;
	f[n++] = "\nFrom: ";
	f[n++] = o->from;
	f[n++] = "\nTo: ";
	f[n++] = o->to;
	f[n++] = "\nSubject: ";
	fast_trim(o->subject, &soff, &slen);
	subj = g_strndup(o->subject + soff, slen);
	f[n++] = subj;
	f[n++] = "\nMessage-ID: <";
	f[n++] = o->message_id;
	if (o->in_reply_to != NULL) {
		f[n++] = ">\nIn-Reply-To: <";
		f[n++] = o->in_reply_to;
	}
	f[n++] = ">\n";
	if ((refs = refs_text(o)) != NULL) {
		folded = fast_refs(refs);
		g_free(refs);
		refs = folded;
		f[n++] = "References: ";
		f[n++] = refs;
		f[n++] = "\n";
	}
	f[n++] = "Auto-Submitted: ";
	f[n++] = o->auto_submitted;
	f[n++] = "\n";
	if (o->list_id != NULL) {
		f[n++] = "List-Id: ";
		f[n++] = o->list_id;
		f[n++] = "\n";
	}
	for (i = 0; o->extra != NULL && o->extra[i] != NULL &&
	    n + 8 < sizeof f / sizeof f[0]; i += 2) {
		f[n++] = o->extra[i];
		f[n++] = ": ";
		f[n++] = o->extra[i + 1];
		f[n++] = "\n";
	}
	f[n++] = tail;
	f[n++] = o->body;
	/* GMime ends a body that lacks it with a newline. */
	f[n++] = blen > 0 && o->body[blen - 1] != '\n' ? "\n" : "";
	for (i = len = 0; i < n; i++)
		len += strlen(f[i]);
	*out = p = xmalloc(len + 1);
	for (i = 0; i < n; i++) {
		size_t k = strlen(f[i]);

		memcpy(p, f[i], k);
		p += k;
	}
	*p = '\0';
	*outlen = len;
	g_free(date);
	g_free(subj);
	g_free(refs);
}

/* Whether mime_build may take the fast path: not when the environment
 * variable HEXPOST_MIME_NO_FASTPATH is set (read once), so that any
 * difference can be ruled out in the field. */
static bool
fast_enabled(void)
{
	static int enabled = -1;
	const char *v;

	if (enabled < 0) {
		v = getenv("HEXPOST_MIME_NO_FASTPATH");
		enabled = v == NULL || *v == '\0' || strcmp(v, "0") == 0;
	}
	return enabled != 0;
}

enum build_how { BUILD_ANY, BUILD_GMIME, BUILD_FAST };

/* Check o, then write it by the fast path if how and o allow, else (unless
 * how is BUILD_FAST) with GMime. */
static int
build_unlocked(const struct mime_out *o, enum build_how how, char **out,
    size_t *outlen, struct hp_error *err)
{
	InternetAddressList *from, *to;

	*out = NULL;
	*outlen = 0;
	mime_init();
	if (build_check(o, false, err) != HP_OK)
		return HP_EINVAL;
	if ((from = build_addresses(o->from, "From", true, err)) == NULL)
		return HP_EINVAL;
	if ((to = build_addresses(o->to, "To", false, err)) == NULL) {
		g_object_unref(from);
		return HP_EINVAL;
	}
	if (how != BUILD_GMIME && fast_ok(o, from, to)) {
		g_object_unref(from);
		g_object_unref(to);
		if (!fast_cached(false, o->from))
			fast_remember(false, o->from);
		if (!fast_cached(true, o->to))
			fast_remember(true, o->to);
		if (o->date != NULL && !fast_date_cached(o->date))
			fast_date_remember(o->date);
		build_fast(o, out, outlen);
		return HP_OK;
	}
	if (how == BUILD_FAST) {
		g_object_unref(from);
		g_object_unref(to);
		hp_seterr(err, HP_ENOENT, "mime_build: not for the fast path");
		return HP_ENOENT;
	}
	return build_gmime(o, from, to, out, outlen, err);
}

static int
build(const struct mime_out *o, enum build_how how, char **out,
    size_t *outlen, struct hp_error *err)
{
	int rc;

	if (how != BUILD_GMIME && o->from != NULL && o->to != NULL &&
	    o->date != NULL && fast_cached(false, o->from) &&
	    fast_cached(true, o->to) && fast_date_cached(o->date)) {
		/* Same checks and writer as build_unlocked takes for these
		 * addresses and this date, without calling GMime at all. */
		*out = NULL;
		*outlen = 0;
		if (build_check(o, true, err) != HP_OK)
			return HP_EINVAL;
		if (fast_rest_ok(o)) {
			build_fast(o, out, outlen);
			return HP_OK;
		}
	}
	pthread_mutex_lock(&gmime_lock);
	rc = build_unlocked(o, how, out, outlen, err);
	pthread_mutex_unlock(&gmime_lock);
	return rc;
}

/* Write the outbox message o into *out (the caller frees it). */
int
mime_build(const struct mime_out *o, char **out, size_t *outlen,
    struct hp_error *err)
{
	return build(o, fast_enabled() ? BUILD_ANY : BUILD_GMIME, out, outlen,
	    err);
}

int
mime_build_slow(const struct mime_out *o, char **out, size_t *outlen,
    struct hp_error *err)
{
	return build(o, BUILD_GMIME, out, outlen, err);
}

int
mime_build_fast(const struct mime_out *o, char **out, size_t *outlen,
    struct hp_error *err)
{
	return build(o, BUILD_FAST, out, outlen, err);
}
