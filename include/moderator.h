/* moderator: commands to a campaign, by signed mail or the command line.
 * A command file is signed like an order file and names its campaign, the
 * command and a nonce (a command file is carried out once):
 *
 *     campaign: hill
 *     command: extend 24
 *     nonce: 5f0c...
 *
 * Any player may ask for "status" and "report" (their last report again).
 * The moderator (a player added with --moderator, or whoever runs the
 * command line) may also "pause", "resume", "extend HOURS", "deadline
 * TIME", "set deadline_hours|remind_hours N", "set missing ai|hold|wait",
 * "proceed ai|hold" (a window held at its deadline goes on), "replace SIDE"
 * (with "email:", optional "key:" (the minisign public key's base64 line)
 * and "name:" lines), "resend [SIDE]" (the last reports again) and "end
 * [RESULT]". Each command changes the state in one transaction with its
 * answer and notices in the outbox. "vacation" (any player for their own
 * side, the moderator for any), "extension HOURS" (players) and the club
 * keys of "set" are carried out by absence (include/absence.h).
 *
 * In a campaign with a moderator key ("moderator-key", command line only,
 * once), replace, proceed, end, extend and deadline are moderator
 * statements (include/modstmt.h): each needs the statement's signature by
 * that key, is recorded with it and mailed to every player. The moderator
 * may also mail the statement and its signature (intake: statement.txt
 * and statement.txt.minisig). */
#ifndef MODERATOR_H
#define MODERATOR_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "store.h"

#define MODERATOR_FILE_MAX 4096

struct mod_command {
	char campaign[GAME_NAME_MAX];
	char verb[16];
	char arg[256];          /* the rest of the command line, trimmed */
	char email[256];
	char name[GAME_NAME_MAX];
	char key[128];          /* minisign public key, base64 line */
	char nonce[128];
	/* A moderator statement (docs/AUDIT.md, "Moderator statements"):
	 * the .minisig text of the statement this command makes, by the
	 * campaign's moderator key (not owned; NULL: none). */
	const char *sig;
	bool print_statement;   /* only write the statement to reply */
	/* A statement mailed by the moderator with sig (not owned; NULL:
	 * none): it must be, byte for byte, the statement this command
	 * makes now. */
	const char *stmt_text;
};

/* Is text a command file (a "command:" line) rather than an order file? */
bool moderator_is_command(const char *text, size_t len);
/* Parse a command file; HP_EINVAL with the reason (and line) in err. */
int moderator_parse(const char *text, size_t len, struct mod_command *,
    struct hp_error *);
/* Carry out cmd on behalf of player who (NULL: the command line, with the
 * moderator's rights), at time now, inside the caller's transaction; cfg
 * (may be NULL: no mail) addresses the notices. The answer goes to reply.
 * A refusal (HP_EINVAL, HP_ENOENT, HP_ESTATE, reason in err) writes
 * nothing; HP_EDB means the caller must roll back. */
int moderator_exec(struct store *, const struct config *,
    const struct mod_command *, const struct store_player *who, long now,
    struct sbuf *reply, struct hp_error *);

/* The base64 line of the minisign public key file path into out (len
 * bytes); HP_EINVAL or HP_EIO, reason in err, if it is not one. */
int moderator_key_file(const char *path, char *out, size_t len,
    struct hp_error *);
/* Register keyline (from moderator_key_file) as campaign's moderator key,
 * in a transaction of its own, as 'moderate NAME moderator-key --key'
 * does; the answer goes to reply. */
int moderator_key_register(struct store *, const struct config *,
    const char *campaign, const char *keyline, struct sbuf *reply,
    struct hp_error *);

/* hexpost moderate NAME COMMAND [ARG...] [--email A] [--key FILE]
 * [--name N] [--sig FILE] [--print-statement]: argv[0] is "moderate".
 * Returns an exit code. */
int moderator_cli(int argc, char **argv, const struct config *,
    const char *db_path);

#endif
