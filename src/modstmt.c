/* modstmt: moderator statements (see include/modstmt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minisign.h"
#include "modstmt.h"

/* The verbs a campaign's moderator key must sign. */
static const char *const signed_verbs[] = {
	"replace", "proceed", "end", "extend", "deadline",
};

bool
modstmt_signed_verb(const char *verb)
{
	size_t i;

	for (i = 0; i < sizeof signed_verbs / sizeof signed_verbs[0]; i++)
		if (strcmp(verb, signed_verbs[i]) == 0)
			return true;
	return false;
}

char *
modstmt_format(const struct modstmt *m)
{
	struct sbuf b;

	sbuf_init(&b);
	sbuf_printf(&b, MODSTMT_MAGIC "\ncampaign: %s\nsequence: %d\n"
	    "window: %d\nturn: %d\nnumber: %d\nname: %s\naction: %s%s%s\n"
	    "end\n", m->campaign, m->seq, m->window, m->turn, m->number,
	    m->name, m->verb, m->arg[0] ? " " : "", m->arg);
	return sbuf_steal(&b);
}

/* A decimal number without sign or leading zero, 0..1000000000. */
static bool
number(const char *s, int *out)
{
	long v = 0;

	if (*s == '\0' || (s[0] == '0' && s[1] != '\0'))
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || (v = v * 10 + (*s - '0')) >
		    1000000000)
			return false;
	}
	*out = (int)v;
	return true;
}

int
modstmt_parse(const char *text, struct modstmt *m, struct hp_error *err)
{
	char buf[256], *again;
	const char *p = text;
	size_t k;
	bool ok;

	memset(m, 0, sizeof *m);
	ok = strncmp(p, MODSTMT_MAGIC "\n", strlen(MODSTMT_MAGIC) + 1) == 0;
	p += ok ? strlen(MODSTMT_MAGIC) + 1 : 0;
	ok = ok &&
	    util_field(&p, "campaign", m->campaign, sizeof m->campaign) &&
	    util_field(&p, "sequence", buf, sizeof buf) &&
	    number(buf, &m->seq) &&
	    util_field(&p, "window", buf, sizeof buf) &&
	    number(buf, &m->window) &&
	    util_field(&p, "turn", buf, sizeof buf) &&
	    number(buf, &m->turn) &&
	    util_field(&p, "number", buf, sizeof buf) &&
	    number(buf, &m->number) &&
	    util_field(&p, "name", m->name, sizeof m->name) &&
	    util_field(&p, "action", buf, sizeof buf) &&
	    strcmp(p, "end\n") == 0;
	if (!ok) {
		hp_seterr(err, HP_EINVAL, "not a moderator statement (expected "
		    "the lines '" MODSTMT_MAGIC "', campaign:, sequence:, "
		    "window:, turn:, number:, name:, action: and 'end', each "
		    "ending in LF)");
		return HP_EINVAL;
	}
	/* One space after each colon: a value never starts with one. */
	if (m->campaign[0] == ' ' || m->name[0] == ' ' || buf[0] == ' ') {
		hp_seterr(err, HP_EINVAL, "moderator statement: more than one "
		    "space after a colon");
		return HP_EINVAL;
	}
	k = strcspn(buf, " ");
	if (k == 0 || k >= sizeof m->verb || strlen(buf + k) > sizeof m->arg) {
		hp_seterr(err, HP_EINVAL, "moderator statement: bad action");
		return HP_EINVAL;
	}
	memcpy(m->verb, buf, k);
	m->verb[k] = '\0';
	if (buf[k] == ' ')
		strlcpy_(m->arg, buf + k + 1, sizeof m->arg);
	if (!modstmt_signed_verb(m->verb) || m->seq < 1 || m->window < 1) {
		hp_seterr(err, HP_EINVAL, "moderator statement: action '%s' or "
		    "a number is not one a statement takes", m->verb);
		return HP_EINVAL;
	}
	again = modstmt_format(m);
	ok = strcmp(again, text) == 0;
	free(again);
	if (!ok) {
		hp_seterr(err, HP_EINVAL, "moderator statement %d is not in "
		    "canonical form", m->seq);
		return HP_EINVAL;
	}
	return HP_OK;
}

int
modstmt_verify(const char *pubtext, const char *text, const char *sigtext,
    struct hp_error *err)
{
	struct minisign_pubkey pk;
	struct minisign_sig sig;
	int rc;

	if ((rc = minisign_pubkey_parse(pubtext, strlen(pubtext), &pk,
	    err)) != HP_OK || (rc = minisign_sig_parse(sigtext,
	    strlen(sigtext), &sig, err)) != HP_OK)
		return rc;
	return minisign_verify(&pk, &sig, (const unsigned char *)text,
	    strlen(text), err);
}

int
modstmt_proceed_in(const char *text, int turn, int number)
{
	struct modstmt m;

	if (modstmt_parse(text, &m, NULL) != HP_OK || m.turn != turn ||
	    m.number != number || strcmp(m.verb, "proceed") != 0)
		return 0;
	return m.seq;
}

bool
modstmt_keyid(const char *pub, char *id)
{
	struct minisign_pubkey pk;

	if (minisign_pubkey_parse(pub, strlen(pub), &pk, NULL) != HP_OK)
		return false;
	minisign_keyid_hex(pk.keyid, id);
	return true;
}
