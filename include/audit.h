/* audit: check a campaign end to end, from the database or from an
 * exported bundle, and write such bundles (docs/AUDIT.md, "Audit").
 *
 * For every window in order: each order file against its hash and its
 * player's minisign signature (the built-in opponent's files against what
 * the opponent writes in the replayed state), the server's signature of the
 * dice log, the hash chain, the revealed seed against the commitment, the
 * dice key and every die re-derived from the spec, the stored rolls against
 * the log; then a deterministic replay from the scenario and the orders,
 * which must give the same windows, rolls, events, reports and final state.
 * The first discrepancy stops the audit and is named in err. */
#ifndef AUDIT_H
#define AUDIT_H

#include <stdbool.h>
#include <stdio.h>

#include "hexpost.h"
#include "game.h"
#include "ruleset.h"
#include "store.h"

struct audit_opts {
	const char *server_pub;   /* server public key file to trust, or NULL:
	                           * the key recorded with the first log (a
	                           * bundle: its server.pub); the rotation
	                           * statements link it to the others */
	FILE *progress;           /* one line per window checked, or NULL */
	bool accept_test_dice;    /* check a --seed campaign instead of
	                           * failing it (docs/AUDIT.md) */
	const char *const *pins;  /* "SIDE=FILE": players' public keys the
	                           * auditor got from the players; a pinned
	                           * side's files must be signed by one */
	int npins;
	const char *moderator_key;  /* the moderator's public key file the
	                           * auditor got from the moderator, or NULL
	                           * (docs/AUDIT.md, "Moderator statements") */
	bool accept_unsigned_moderation;  /* check a campaign with unsigned
	                           * moderator actions instead of failing it
	                           * (docs/AUDIT.md, "Unsigned moderator
	                           * actions") */
};

struct audit_stats {
	int windows;              /* windows checked (resolved) */
	int orders;               /* order files that entered a dice key */
	int signed_orders;        /* player signatures verified */
	int unsigned_orders;      /* files entered on the command line */
	int opponent_orders;      /* built-in opponent's files regenerated */
	int deadline_orders;      /* files a deadline policy wrote, checked */
	int replaced_signed;      /* of signed_orders: by since-replaced
	                           * players (key history) */
	bool moderator_end;       /* the game was ended by the moderator */
	bool test_dice;           /* a --seed campaign, accepted */
	int chain_links;          /* revealed seeds linked to the signed
	                           * seed chain statement's head */
	int no_input_windows;     /* windows before the first signed player
	                           * file: dice no player input reached */
	long rolls;               /* dice re-derived */
	long sealed_rolls;        /* sealed dice re-derived */
	int sealed_sets;          /* sealed set statements checked */
	int reports;              /* reports re-rendered and compared */
	int events;               /* windows whose stored events were compared */
	int stops;                /* resolutions that stopped to ask and
	                           * resumed in a decision window (G1) */
	int log_signatures;       /* dice logs whose signature verified */
	int rotations;            /* key rotation statements verified */
	int rotations_followed;   /* of those, the chain the trusted key is
	                           * in (all of them, or none) */
	int server_keys;          /* server keys that signed the logs */
	char server_key_id[17];
	char key_source[64];      /* where the trusted server key came from */
	char moderator_key_id[17];  /* the campaign's moderator key; "" none */
	int mod_statements;       /* moderator statements verified */
	int mod_pinned;           /* 1: the moderator key was the pinned one */
	int deadline_fills;       /* sides filled without a proceed statement
	                           * (at a deadline: the server's clock) */
	int mod_unsigned;         /* unsigned moderator actions accepted */
};

/* Audit campaign name in the database. HP_EINVAL names the first
 * discrepancy; other codes are failures to read. */
int audit_campaign(struct store *, const char *name, const struct audit_opts *,
    struct audit_stats *, struct hp_error *);
/* Audit an exported bundle directory, without a database. */
int audit_bundle(const char *dir, const struct audit_opts *,
    struct audit_stats *, struct hp_error *);
/* Write campaign name's audit bundle into dir (created; must not exist or
 * be empty): signed order files and signatures, players' and the server's
 * public keys, dice logs and their signatures, revealed seeds, reports,
 * the scenario and the current state. server_pub (may be NULL) is copied
 * as server.pub, else the key recorded with the logs. */
int audit_export(struct store *, const char *name, const char *dir,
    const char *server_pub, struct hp_error *);

/* Print the summary of a successful audit of what. */
void audit_print(FILE *, const char *what, const struct audit_stats *);

#endif
