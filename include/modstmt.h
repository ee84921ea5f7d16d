/* modstmt: moderator statements (docs/AUDIT.md, "Moderator statements").
 * A moderator action that changes who plays or what counts (replace,
 * proceed, end, extend, deadline) is, in a campaign with a moderator key,
 * this canonical text signed by the moderator's own minisign key (never
 * the server's):
 *
 *     hexpost moderator statement v1
 *     campaign: NAME
 *     sequence: N
 *     window: K            (the campaign's K-th window, open when signed)
 *     turn: T
 *     number: W            (its number within the turn)
 *     name: WINDOW-NAME
 *     action: VERB[ ARG]
 *     end
 */
#ifndef MODSTMT_H
#define MODSTMT_H

#include <stdbool.h>

#include "game.h"
#include "ruleset.h"
#include "hexpost.h"

#define MODSTMT_MAGIC "hexpost moderator statement v1"

struct modstmt {
	char campaign[GAME_NAME_MAX];
	int seq;                     /* 1, 2, ... within the campaign */
	int window;                  /* campaign-wide index, 1-based */
	int turn;
	int number;
	char name[WINDOW_NAME_MAX];
	char verb[16];               /* replace, proceed, end, extend, deadline */
	char arg[128];               /* canonical argument, may be empty */
};

/* Does verb need a statement in a campaign with a moderator key? */
bool modstmt_signed_verb(const char *verb);
/* The canonical text of m; the caller frees it. */
char *modstmt_format(const struct modstmt *m);
/* Parse a statement; valid only in canonical form. HP_EINVAL with the
 * reason in err. */
int modstmt_parse(const char *text, struct modstmt *m, struct hp_error *err);
/* Check sigtext (a .minisig) over text with the public key file text
 * pubtext; HP_EINVAL saying what failed. */
int modstmt_verify(const char *pubtext, const char *text, const char *sigtext,
    struct hp_error *err);
/* Is text a statement saying "proceed" in turn's window number? Its
 * sequence number, else 0. */
int modstmt_proceed_in(const char *text, int turn, int number);
/* The key id (16 hex digits) of public key file text pub into id[17];
 * false if it does not parse. */
bool modstmt_keyid(const char *pub, char *id);

#endif
