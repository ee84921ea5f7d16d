/* store: campaign state in SQLite. One database file holds many campaigns.
 * Every statement is prepared, every return code (COMMIT included) checked;
 * the caller brackets a turn step in store_begin/store_commit so that a
 * crash leaves the previous state intact. */
#ifndef STORE_H
#define STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "dice.h"
#include "events.h"
#include "game.h"
#include "hexpost.h"
#include "ruleset.h"

struct store;

enum window_state { WSTATE_OPEN, WSTATE_CLOSED, WSTATE_RESOLVED };
const char *window_strstate(enum window_state);

struct store_window {
	int64_t id;
	struct window_spec spec;
	enum window_state state;
	unsigned char seed[DICE_SEEDLEN];
	unsigned char commitment[32];
	bool have_key;
	unsigned char dice_key[DICE_KEYLEN];
};

struct store_order {
	int side;
	char source[16];
	char *raw;       /* owned */
	char *parsed;    /* owned */
	unsigned char hash[32];
};

struct store_campaign_info {
	char name[GAME_NAME_MAX];
	char ruleset[GAME_NAME_MAX];
	char scenario[GAME_NAME_MAX];
	char options[256];
	char status[16];
	char result[128];
	int turn;
	int window;
};

/* Open (creating if asked) the database at path; WAL, foreign keys on. */
int store_open(struct store **, const char *path, bool create,
    struct hp_error *);
void store_close(struct store *);
/* Apply every embedded migration newer than PRAGMA user_version. */
int store_migrate(struct store *, struct hp_error *);
int store_schema_version(struct store *);

int store_begin(struct store *, struct hp_error *);
int store_commit(struct store *, struct hp_error *);
void store_rollback(struct store *);
/* One step inside a transaction: undone alone by store_rollback_savepoint,
 * kept by store_release (and committed with the transaction). */
int store_savepoint(struct store *, struct hp_error *);
int store_release(struct store *, struct hp_error *);
void store_rollback_savepoint(struct store *);
bool store_in_transaction(struct store *);

int store_campaign_create(struct store *, const struct game *,
    const unsigned char *master, size_t masterlen, int64_t *cid,
    struct hp_error *);
/* Load campaign name into g (initialised by the caller). */
int store_game_load(struct store *, const char *name, struct game *,
    int64_t *cid, struct hp_error *);
int store_game_save(struct store *, int64_t cid, const struct game *,
    struct hp_error *);
/* Master seed of a test/demo campaign; *len 0 when none. */
int store_master_seed(struct store *, int64_t cid, unsigned char *buf,
    size_t *len, struct hp_error *);
/* Call fn for each campaign, by name. */
int store_campaign_list(struct store *,
    void (*fn)(const struct store_campaign_info *, void *), void *arg,
    struct hp_error *);

int store_player_add(struct store *, int64_t cid, int side, const char *name,
    const char *email, const char *pubkey, const char *keyid,
    bool moderator, struct hp_error *);
/* Call fn for each player of a campaign. */
int store_player_list(struct store *, int64_t cid,
    void (*fn)(int side, const char *name, const char *email, bool moderator,
    void *), void *arg, struct hp_error *);

int store_window_insert(struct store *, int64_t cid,
    const struct window_spec *, const unsigned char *seed,
    const unsigned char *commitment, int64_t *wid, struct hp_error *);
/* The window of the campaign that is not yet resolved (HP_ENOENT: none). */
int store_window_current(struct store *, int64_t cid, struct store_window *,
    struct hp_error *);
/* A window by turn and number; number 0 means the last one of the turn. */
int store_window_get(struct store *, int64_t cid, int turn, int number,
    struct store_window *, struct hp_error *);
/* The most recently resolved window (HP_ENOENT: none). */
int store_window_last_resolved(struct store *, int64_t cid,
    struct store_window *, struct hp_error *);
int store_window_set_state(struct store *, int64_t wid, enum window_state,
    const unsigned char *dice_key, struct hp_error *);

/* Record a side's order file for a window, superseding any earlier one. */
int store_orders_put(struct store *, int64_t wid, int side, int64_t player,
    const char *source, const char *raw, const char *parsed,
    const unsigned char *hash, struct hp_error *);
/* The current order file of each side: out[side].raw is NULL where none. */
int store_orders_current(struct store *, int64_t wid,
    struct store_order out[GAME_MAX_SIDES], struct hp_error *);
void store_orders_free(struct store_order out[GAME_MAX_SIDES]);
/* The sides of window wid that have current orders, a bit per side
 * index (what store_orders_current would fill, without reading them). */
int store_orders_sides(struct store *, int64_t wid, unsigned *sides,
    struct hp_error *);

int store_events_put(struct store *, int64_t wid, const struct events *,
    struct hp_error *);
int store_dice_put(struct store *, int64_t wid, const struct dice *,
    struct hp_error *);
/* Load the dice log of a window into d (scripted dice with a log). */
int store_dice_load(struct store *, int64_t wid, struct dice *,
    struct hp_error *);

int store_report_put(struct store *, int64_t wid, int side, const char *body,
    struct hp_error *);
/* The report for side of window wid; caller frees. NULL + HP_ENOENT if none. */
char *store_report_get(struct store *, int64_t wid, int side,
    struct hp_error *);
/* The picture data (picture_text) of window wid for side (mapout.h),
 * stored like reports (against the view's previous one and the public
 * one); caller frees. NULL + HP_ENOENT if none, HP_EINVAL if damaged. */
int store_picture_put(struct store *, int64_t wid, int side,
    const char *text, struct hp_error *);
char *store_picture_get(struct store *, int64_t wid, int side,
    struct hp_error *);

/* Players, as mail intake needs them. */
struct store_player {
	int64_t id;
	int64_t campaign_id;
	char campaign[GAME_NAME_MAX];
	int side;
	char name[GAME_NAME_MAX];
	char email[256];
	char pubkey[256];   /* minisign public key file text */
	char key_id[17];    /* 16 hex digits */
	bool moderator;
};
/* Every active player whose key id is key_id (any campaign): fills out up
 * to max entries and returns how many there are, or a negative hp_err. */
int store_players_by_key(struct store *, const char *key_id,
    struct store_player *out, int max, struct hp_error *);
/* The active player of campaign holding key_id, into *out: 1, 0 when
 * there is none, or an error code. */
int store_player_by_key_in(struct store *, const char *key_id,
    const char *campaign, struct store_player *out, struct hp_error *);
/* Call fn for each distinct (key id, public key) of an active player. */
int store_keyring(struct store *,
    void (*fn)(const char *key_id, const char *pubkey, void *), void *arg,
    struct hp_error *);
/* Set a player's key (minisign public key text and its key id). */
int store_player_set_key(struct store *, int64_t cid, const char *name,
    const char *pubkey, const char *key_id, struct hp_error *);

/* Has a message with this content hash (or Message-ID, if not NULL) been
 * taken in already? */
int store_message_seen(struct store *, const unsigned char *hash,
    const char *message_id, bool *seen, struct hp_error *);
int store_message_record(struct store *, const unsigned char *hash,
    const char *message_id, const char *mailbox, const char *outcome,
    const char *detail, int64_t cid, int64_t player, struct hp_error *);

struct store_outmsg {
	int64_t id;
	char message_id[256];
	char kind[16];
	char rcpt[256];
	char envelope_from[256];
	unsigned char *data;   /* owned */
	size_t len;
	int attempts;
	char stage[128];       /* staged file (outbox Maildir tmp/), or "" */
};
/* Queue a message; a message_id already queued is left alone (*added
 * false). */
int store_outbox_add(struct store *, int64_t cid, const char *kind,
    const char *message_id, const char *rcpt, const char *envelope_from,
    const void *data, size_t len, bool *added, struct hp_error *);
/* Messages due for delivery at time now, oldest first, at most max. */
int store_outbox_due(struct store *, long now, struct store_outmsg *out,
    int max, int *n, struct hp_error *);
void store_outmsg_free(struct store_outmsg *, int n);
int store_outbox_sent(struct store *, int64_t id, struct hp_error *);
/* Record that message id's file is staged as stage (transport_ops.stage),
 * before the transport makes it visible. */
int store_outbox_staged(struct store *, int64_t id, const char *stage,
    struct hp_error *);
/* A failed attempt: retry at next (unix time), or give up if next < 0. */
int store_outbox_failed(struct store *, int64_t id, long next,
    const char *why, struct hp_error *);
/* Counts of queued, sent and failed messages. */
int store_outbox_counts(struct store *, int counts[3], struct hp_error *);

/* audit */
/* One stored order file, superseded or not (store_orders_all). */
struct store_order_row {
	int64_t id;
	int side;
	int64_t player;  /* 0: none */
	char source[16];
	char *raw;       /* owned */
	unsigned char hash[32];
	bool current;
};
/* Record the signature (the .minisig text, siglen bytes) of an accepted
 * order file by the file's hash; a file already recorded keeps its first. */
int store_ordersig_put(struct store *, const unsigned char *hash,
    const char *sig, size_t siglen, const char *pubkey, const char *key_id,
    int64_t player, struct hp_error *);
/* The signature and signer's public key recorded for an order file; the
 * caller frees *sig and *pubkey. HP_ENOENT if none. */
int store_ordersig_get(struct store *, const unsigned char *hash, char **sig,
    char **pubkey, struct hp_error *);
/* Store a window's dice log text, its hash and signature (sig and pubkey
 * NULL when there is no server key). */
int store_dicelog_put(struct store *, int64_t cid, int64_t wid,
    const char *text, const unsigned char *hash, const char *sig,
    const char *pubkey, struct hp_error *);
/* A window's dice log; the caller frees *text, *sig and *pubkey (both NULL
 * when unsigned). HP_ENOENT if the window has none. */
int store_dicelog_get(struct store *, int64_t wid, char **text, char **sig,
    char **pubkey, struct hp_error *);
/* Hash of the campaign's latest dice log (HP_ENOENT: none yet). */
int store_dicelog_last_hash(struct store *, int64_t cid, unsigned char *hash,
    struct hp_error *);
/* Every window of a campaign in the order opened; caller frees *out. */
int store_windows_all(struct store *, int64_t cid, struct store_window **out,
    int *n, struct hp_error *);
/* Append a window's stored events to ev (initialised by the caller). */
int store_events_load(struct store *, int64_t wid, struct events *,
    struct hp_error *);
/* Every order file of a window, oldest first; free with
 * store_order_rows_free. */
int store_orders_all(struct store *, int64_t wid, struct store_order_row **out,
    int *n, struct hp_error *);
void store_order_rows_free(struct store_order_row *, int n);
/* A player's side, name and registered public key ("" if none). */
int store_player_get(struct store *, int64_t pid, int *side, char *name,
    size_t namelen, char *pubkey, size_t pklen, struct hp_error *);


/* deadlines and moderation */

/* A campaign's own settings; -1 / "" where it takes the configuration's. */
struct store_settings {
	int deadline_hours;
	int remind_hours;
	char missing[8];        /* "ai", "hold", "wait" or "" */
	bool paused;
	long paused_at;
};
/* The settings of campaign cid (all defaults if it has no row). */
int store_settings_get(struct store *, int64_t cid, struct store_settings *,
    struct hp_error *);
int store_settings_put(struct store *, int64_t cid,
    const struct store_settings *, struct hp_error *);

/* A campaign in quarantine: its resolution failed, nothing is tried again
 * until the moderator resumes it (migration 009). */
struct store_quarantine {
	bool on;
	long since;             /* unix time, hexpost's clock */
	char error[HP_ERRLEN];
};
/* The quarantine of the campaign called name (q->on false if none). */
int store_quarantine_get(struct store *, const char *name,
    struct store_quarantine *, struct hp_error *);
/* Put campaign cid in quarantine since since, for error. */
int store_quarantine_put(struct store *, int64_t cid, long since,
    const char *error, struct hp_error *);
/* Lift campaign cid's quarantine; *was whether there was one. */
int store_quarantine_clear(struct store *, int64_t cid, bool *was,
    struct hp_error *);

/* The clock of an order window (unix times by hexpost's clock). */
struct store_clock {
	bool have;              /* the window has a row */
	long opened;
	long fixed;             /* fixed deadline, 0 if none */
	long extended;          /* seconds added by the moderator */
	bool reminded;
	bool held;              /* waits for the moderator, who was told */
};
int store_clock_get(struct store *, int64_t wid, struct store_clock *,
    struct hp_error *);
/* Insert or replace the clock of window wid. */
int store_clock_put(struct store *, int64_t wid, const struct store_clock *,
    struct hp_error *);

/* Record a command carried out; nonce (may be NULL) must be new for the
 * campaign, else HP_ESTATE. *id (may be NULL) gets its row id. */
int store_command_add(struct store *, int64_t cid, int64_t player,
    const char *nonce, const char *command, const char *detail, long at,
    int64_t *id, struct hp_error *);
/* The active players of a campaign, by side and name: fills out up to max
 * and returns how many there are, or a negative hp_err. */
int store_players_of(struct store *, int64_t cid, struct store_player *out,
    int max, struct hp_error *);
/* Retire a player (replaced): inactive, and renamed so the name is free. */
int store_player_retire(struct store *, int64_t player, struct hp_error *);

/* imap: the state of mail fetched over IMAP (src/fetch_imap.c). */

/* The mailbox row for url, made if new: its id, UIDVALIDITY (0 if never
 * selected) and the last UID fetched. */
int store_imap_mailbox(struct store *, const char *url, int64_t *id,
    uint32_t *uidvalidity, uint32_t *last_uid, struct hp_error *);
/* A new UIDVALIDITY: last UID 0, records of the old one dropped. */
int store_imap_reset(struct store *, int64_t id, uint32_t uidvalidity,
    struct hp_error *);
/* In one transaction: record uids[0, n) as spooled and, if last_uid is
 * above the stored one, move it there. */
int store_imap_spooled(struct store *, int64_t id, uint32_t uidvalidity,
    const uint32_t *uids, size_t n, uint32_t last_uid, struct hp_error *);
/* Call fn for each spooled message of mailbox id, in UID order. */
int store_imap_pending(struct store *, int64_t id,
    void (*fn)(uint32_t uidvalidity, uint32_t uid, void *), void *arg,
    struct hp_error *);
/* Is any message of mailbox id spooled and not yet marked? */
int store_imap_any_pending(struct store *, int64_t id, bool *any,
    struct hp_error *);
/* In one transaction: forget uids[0, n) (marked on the server). */
int store_imap_forget(struct store *, int64_t id, uint32_t uidvalidity,
    const uint32_t *uids, size_t n, struct hp_error *);

/* Undelivered outgoing mail, for the moderator. */
struct store_outbox_row {
	int64_t id;
	char message_id[256];
	char kind[16];
	char rcpt[256];
	char state[16];
	int attempts;
	long next_attempt;
	char last_error[512];
	char created_at[32];
};
/* Call fn for each message not delivered: queued after a failed attempt,
 * or failed for good (all queued ones too if all). */
int store_outbox_list(struct store *, bool all,
    void (*fn)(const struct store_outbox_row *, void *), void *arg,
    struct hp_error *);

/* integration: what the audit needs from moderation and key history. */

/* The player recorded with the signature of order file hash (0: none, or
 * no signature). */
int store_ordersig_player(struct store *, const unsigned char *hash,
    int64_t *player, struct hp_error *);
/* How many commands of campaign cid were verb (exactly, or verb followed
 * by a space and an argument); the argument of the latest into arg. */
int store_command_count(struct store *, int64_t cid, const char *verb,
    int *count, char *arg, size_t arglen, struct hp_error *);
/* Is player pid active (not replaced)? */
int store_player_active(struct store *, int64_t pid, bool *active,
    struct hp_error *);

/* key rotation */

/* One rotation statement of the server key (schema/006_keys.sql). */
struct store_rotation {
	int seq;                   /* 1, 2, ...: the statement's sequence */
	char *statement;           /* owned: the canonical text */
	char *signature;           /* owned: .minisig by the old key */
	char *countersignature;    /* owned: .minisig by the new key */
	char old_key_id[17];
	char new_key_id[17];
	char *old_pubkey;          /* owned: public key file texts */
	char *new_pubkey;
	long created_at;
};
/* Record a rotation statement (in the caller's transaction). A sequence
 * number or new key already recorded: HP_EDB. */
int store_rotation_add(struct store *, const struct store_rotation *,
    struct hp_error *);
/* Every rotation statement, by sequence; *out is the caller's, released
 * with store_rotations_free (NULL when *n is 0). */
int store_rotations_all(struct store *, struct store_rotation **out, int *n,
    struct hp_error *);
void store_rotations_free(struct store_rotation *, int n);
/* The active players of every campaign that has not finished, by campaign
 * and side (id, campaign_id, campaign, side, name, email filled); *out is
 * the caller's to free (NULL when *n is 0). */
int store_rotation_recipients(struct store *, struct store_player **out,
    int *n, struct hp_error *);

/* mail intake (issue 12) */

/* Has a message with this content hash, or this Message-ID (non-NULL) and
 * this body hash, been taken in? A message recorded without a body hash
 * (before migration 7) matches on its Message-ID alone. */
int store_message_seen_content(struct store *, const unsigned char *hash,
    const char *message_id, const unsigned char *content_hash, bool *seen,
    struct hp_error *);
/* Record the body hash of the message recorded under hash. */
int store_message_set_content(struct store *, const unsigned char *hash,
    const unsigned char *content_hash, struct hp_error *);
/* Is email the address of an active player of any campaign (case of the
 * letters aside)? */
int store_email_registered(struct store *, const char *email, bool *yes,
    struct hp_error *);
/* Call fn with the text and hash of every order file campaign cid took in
 * (every window, superseded ones too; not the built-in opponent's). */
int store_orders_each(struct store *, int64_t cid,
    void (*fn)(const char *raw, size_t len, const unsigned char *hash,
    void *arg), void *arg, struct hp_error *);
/* May the stranger at address get a short answer now (none in the last
 * period seconds)? If so it is recorded as answered at now; if not, the
 * suppressed count grows. */
int store_stranger_answer(struct store *, const char *address, long now,
    long period, bool *may, struct hp_error *);

/* Record the exact text of the scenario campaign cid was started from
 * (NULL: built into its ruleset) and its SHA-256. */
int store_campaign_set_scenario(struct store *, int64_t cid, const char *text,
    struct hp_error *);
/* The scenario text of campaign cid, or NULL in *text when it has none
 * (caller frees). */
int store_campaign_scenario(struct store *, int64_t cid, char **text,
    struct hp_error *);
/* Server faults (migration 011, src/fault.c): a fault of kind is recorded
 * once, since since; *added says whether this call recorded it. */
int store_fault_put(struct store *, const char *kind, long since,
    const char *error, bool *added, struct hp_error *);
/* Forget the fault of kind; *was whether there was one. */
int store_fault_clear(struct store *, const char *kind, bool *was,
    struct hp_error *);
/* Call fn once for each address that moderates a campaign not finished,
 * with the lowest such campaign's id. */
int store_moderators(struct store *,
    void (*fn)(const char *email, int64_t cid, void *), void *arg,
    struct hp_error *);
/* Note why queued message id could not be delivered, counting no attempt
 * (a local fault: the outbox could not be written). */
int store_outbox_held(struct store *, int64_t id, const char *why,
    struct hp_error *);
/* The highest row ids of messages and outbox (0 if empty): rows are never
 * deleted, so a database that went back in time has lower ones. */
int store_high_water(struct store *, int64_t *messages, int64_t *outbox,
    struct hp_error *);
/* Does an outbox row still name stage (a file in the outbox's tmp/)? */
int store_outbox_stage_used(struct store *, const char *stage, bool *used,
    struct hp_error *);
/* seed chain (issue 11, docs/AUDIT.md "Seed chain") */

/* A campaign's seed chain as stored. */
struct store_chain {
	unsigned char tail[32];   /* secret: the chain's last seed */
	int length;
	char *statement;          /* owned; canonical statement text */
	char *signature;          /* owned; .minisig text or NULL */
	char *pubkey;             /* owned; the signer's public key or NULL */
};

/* Record campaign cid's seed chain (unsigned) in the caller's
 * transaction. */
int store_chain_put(struct store *, int64_t cid, const unsigned char *tail,
    int length, const char *statement, struct hp_error *);
/* Record the statement's signature and the signer's public key. */
int store_chain_sign(struct store *, int64_t cid, const char *signature,
    const char *pubkey, struct hp_error *);
/* Campaign cid's seed chain into c (store_chain_free it); HP_ENOENT when
 * the campaign has none (made before migration 12). */
int store_chain_get(struct store *, int64_t cid, struct store_chain *c,
    struct hp_error *);
/* Free what store_chain_get filled in and wipe the tail. */
void store_chain_free(struct store_chain *);
/* How many windows campaign cid has opened. */
int store_window_count(struct store *, int64_t cid, int *n,
    struct hp_error *);
/* Every player of campaign cid who has a key, active or replaced, in the
 * order registered: *out (caller frees) gets *n entries. */
int store_player_keys(struct store *, int64_t cid, struct store_player **out,
    int *n, struct hp_error *);

/* Decision windows (issue 10, G1; migration 14): window wid continues the
 * resolution of window of, which stopped at step. */
int store_window_cont_set(struct store *, int64_t wid, int64_t of, int step,
    struct hp_error *);
/* The window wid continues: its id, turn and number, and the step that
 * asked. HP_ENOENT when wid continues nothing. */
int store_window_cont_get(struct store *, int64_t wid, int64_t *of, int *turn,
    int *number, int *step, struct hp_error *);
/* Standing orders fixed when window wid opened (G3): record side's. */
int store_standing_put(struct store *, int64_t wid, int side, const char *raw,
    const unsigned char *hash, struct hp_error *);
/* Window wid's standing snapshot, per side (raw NULL: none; source
 * "standing"); free with store_orders_free. */
int store_standing_get(struct store *, int64_t wid,
    struct store_order out[GAME_MAX_SIDES], struct hp_error *);

/* Mark window wid's standing snapshot as taken (when it opened). */
int store_standing_fix(struct store *, int64_t wid, struct hp_error *);
/* Was window wid's standing snapshot taken when it opened? (False for a
 * window opened before migration 14.) */
int store_standing_fixed(struct store *, int64_t wid, bool *fixed,
    struct hp_error *);

/* Moderator statements (migration 16, docs/AUDIT.md "Moderator
 * statements"). */
struct store_modstmt {
	int seq;
	char *statement;          /* owned; canonical text */
	char *signature;          /* owned; .minisig by the moderator key */
};
/* Campaign cid's moderator public key file text into *pub (caller frees;
 * NULL when none is registered). */
int store_modkey_get(struct store *, int64_t cid, char **pub,
    struct hp_error *);
/* Register campaign cid's moderator public key (file text). */
int store_modkey_put(struct store *, int64_t cid, const char *pub,
    struct hp_error *);
/* Record statement number seq of campaign cid with its signature. */
int store_modstmt_add(struct store *, int64_t cid, int seq,
    const char *statement, const char *signature, long at,
    struct hp_error *);
/* Every statement of campaign cid in sequence order into *out (free with
 * store_modstmt_free); *n how many. */
int store_modstmt_all(struct store *, int64_t cid, struct store_modstmt **out,
    int *n, struct hp_error *);
/* Free what store_modstmt_all returned. */
void store_modstmt_free(struct store_modstmt *, int n);

/* sealed dice and events citing several rolls (migration 15, view) */

/* One visibility set's sealed seed and its statement's signature. */
struct store_sealed_set {
	unsigned mask;
	unsigned char seed[32];
	char *signature;          /* owned; NULL: unsigned */
	char *pubkey;             /* owned; NULL: unsigned */
};
/* Record the seed of set mask of campaign cid (caller's transaction). */
int store_sealed_set_put(struct store *, int64_t cid, unsigned mask,
    const unsigned char *seed, struct hp_error *);
/* Record the signature of set mask's statement and the signer's key. */
int store_sealed_set_sign(struct store *, int64_t cid, unsigned mask,
    const char *signature, const char *pubkey, struct hp_error *);
/* Campaign cid's sealed sets, by mask: *out (free with
 * store_sealed_sets_free) gets *n entries; *n 0 when it has none. */
int store_sealed_sets(struct store *, int64_t cid,
    struct store_sealed_set **out, int *n, struct hp_error *);
/* Free what store_sealed_sets returned and wipe the seeds. */
void store_sealed_sets_free(struct store_sealed_set *, int n);
/* Store the sealed rolls of d (d->slog) for window wid. */
int store_sealed_dice_put(struct store *, int64_t wid, const struct dice *,
    struct hp_error *);
/* Load window wid's sealed rolls into d->slog, in the order drawn. */
int store_sealed_dice_load(struct store *, int64_t wid, struct dice *,
    struct hp_error *);
/* Store the roll ranges (nroll, roll_set) of ev's events, already stored
 * with store_events_put. */
int store_events_put_rolls(struct store *, int64_t wid,
    const struct events *, struct hp_error *);
/* Load the roll ranges of ev's events, loaded with store_events_load. */
int store_events_load_rolls(struct store *, int64_t wid, struct events *,
    struct hp_error *);

/* bounces (issue 19, schema/018_bounces.sql, src/bounce.c) */
/* The outbox row queued under a Message-ID. */
struct store_sent {
	int64_t id;
	int64_t campaign_id;       /* 0 if none */
	char kind[16];
	char rcpt[256];
	char state[16];            /* queued, sent, failed */
	unsigned char *data;       /* the message as queued, owned */
	size_t len;
};
/* The outbox row of message_id into *out: 1, 0 when there is none, or a
 * negative hp_err. */
int store_outbox_find(struct store *, const char *message_id,
    struct store_sent *out, struct hp_error *);
/* A bounce taken in (a row of table bounces). */
struct store_bounce {
	int64_t outbox_id;
	const char *message_id;
	int64_t campaign_id, player_id;   /* 0 if none */
	const char *rcpt, *action, *status, *diagnostic, *format;
	long at;
};
/* Record bounce b, the message of hash. *first is set when it is the
 * first bounce of b->rcpt for b->player_id (the player became
 * unreachable). In the caller's transaction. */
int store_bounce_add(struct store *, const unsigned char hash[32],
    const struct store_bounce *b, bool *first, struct hp_error *);
/* An active player whose current address bounced. */
struct store_unreachable {
	char campaign[GAME_NAME_MAX];
	char player[GAME_NAME_MAX];
	char rcpt[256];
	long since, last;          /* first and last bounce, unix time */
	int count;
	char status[16];           /* of the last bounce */
	char diagnostic[256];
};
/* Call fn for every active player of campaign cid (0: every campaign)
 * whose current address has bounced, oldest first. */
int store_unreachable_each(struct store *, int64_t cid,
    void (*fn)(const struct store_unreachable *, void *), void *arg,
    struct hp_error *);

/* Statement helper (issue 10, structure): every statement of store.c goes
 * through it. One call prepares sql from the store's statement cache (sql
 * must be a string literal: the cache is keyed by its address), binds a
 * typed argument list, steps and releases; every SQLite return code
 * (prepare, bind, step, reset) becomes an hp_error naming the statement
 * (`what`), as "database: what: message" (HP_EBUSY in err for a database
 * held by another process, HP_EIO for a full disk, as store's other
 * errors). Public for its unit test and for store files split later; other
 * modules call the store_* functions above, never SQL. */
enum store_arg_type {
	STORE_ARG_END, STORE_ARG_NULL, STORE_ARG_INT, STORE_ARG_TEXT,
	STORE_ARG_BLOB
};

struct store_arg {
	enum store_arg_type type;
	int64_t i;          /* STORE_ARG_INT */
	const void *p;      /* text or blob; NULL binds SQL NULL */
	int len;            /* bytes of p; -1: text up to its NUL */
};

/* Arguments ?1, ?2, ... in order: STORE_ARGS(STORE_INT(cid),
 * STORE_TEXT(name)); NULL for none. */
#define STORE_ARGS(...) ((const struct store_arg[]){ __VA_ARGS__, \
	{ STORE_ARG_END, 0, NULL, 0 } })
#define STORE_INT(v) ((struct store_arg){ STORE_ARG_INT, (int64_t)(v), \
	NULL, 0 })
#define STORE_NULL ((struct store_arg){ STORE_ARG_NULL, 0, NULL, 0 })
/* Text up to its NUL; a NULL pointer binds SQL NULL. */
#define STORE_TEXT(v) ((struct store_arg){ STORE_ARG_TEXT, 0, (v), -1 })
/* len bytes of text, or of a blob; a NULL pointer binds SQL NULL. */
#define STORE_TEXTN(v, n) ((struct store_arg){ STORE_ARG_TEXT, 0, (v), \
	(int)(n) })
#define STORE_BLOB(v, n) ((struct store_arg){ STORE_ARG_BLOB, 0, (v), \
	(int)(n) })

/* A row id, or SQL NULL when v <= 0 (no player, no campaign). */
static inline struct store_arg
store_arg_id(int64_t v)
{
	return v > 0 ? STORE_INT(v) : STORE_NULL;
}

struct sqlite3_stmt;

/* A statement being stepped: store_query_open, store_query_next while it
 * gives rows (read them from s with sqlite3_column_*), store_query_close. */
struct store_query {
	struct store *st;
	struct sqlite3_stmt *s;    /* owned by the store's cache */
	const char *what;          /* names the statement in errors */
	int sqlite_rc;             /* the last SQLite code (extended) */
	int rc;                    /* HP_OK, or the error err holds */
	bool done;
};

/* Prepare sql (from the cache) and bind args into q. HP_OK, or HP_EDB with
 * err set (nothing to close). */
int store_query_open(struct store_query *q, struct store *, const char *what,
    const char *sql, const struct store_arg *args, struct hp_error *);
/* Step q: true with a row; false when no row is left (q->rc HP_OK) or on
 * an error (q->rc HP_EDB, err set, q->sqlite_rc says which). */
bool store_query_next(struct store_query *q, struct hp_error *);
/* Release q's statement; returns q->rc, or HP_EDB (err set) if releasing
 * reports an error not seen yet. */
int store_query_close(struct store_query *q, struct hp_error *);
/* Run a statement that returns no rows. If sqlite_rc is not NULL it gets
 * the step's SQLite code (e.g. SQLITE_CONSTRAINT_UNIQUE, for the caller's
 * own message). HP_OK or HP_EDB with err set. */
int store_exec(struct store *, const char *what, const char *sql,
    const struct store_arg *args, int *sqlite_rc, struct hp_error *);
/* Rows changed by the last statement run, and the last row id inserted. */
int store_changes(struct store *);
int64_t store_last_id(struct store *);
/* How long a statement waits for a database held by another process
 * before failing with HP_EBUSY (10 s from store_open). */
void store_busy_timeout(struct store *, int ms);

/* The wake index (migration 22, issue 17; deadline.h says when). Call
 * fn(name, cid, active, arg) for each campaign whose wake is at or before
 * now, by name, from one indexed query (active: its status is 'active');
 * name is valid during the call. */
int store_wake_due(struct store *, long now,
    void (*fn)(const char *name, int64_t cid, bool active, void *),
    void *arg, struct hp_error *);
/* Set campaign cid's wake time. */
int store_wake_set(struct store *, int64_t cid, long long wake,
    struct hp_error *);
/* If fingerprint (the configuration the wakes depend on) is not the one
 * stored, set every wake to 0 and store it, in one transaction (*reset
 * true); otherwise only read. */
int store_wake_config(struct store *, const char *fingerprint, bool *reset,
    struct hp_error *);

/* Retention (issue 17; 'hexpost storage --compact', the daemon once a
 * day), in one transaction: the copies of outbox rows sent a day or more
 * before now are compacted (compressed; a report's reduced to its headers
 * and a line naming its body's BLAKE2b-256, the report being kept;
 * store_outbox_find reads them back uncompressed); rows sent or failed
 * more than keep_days before now are removed (keep_days 0: none), the
 * newest row always kept (store_high_water). */
struct store_compact_stats {
	int64_t packed;         /* sent copies compacted */
	int64_t deleted;        /* outbox rows removed */
	/* Resolved windows a day old whose events, dice rows and dice log
	 * were packed into one compressed row (issue 17, migration 024;
	 * src/store.c "Packed windows"): the readers give the same. */
	int64_t windows_packed;
};
int store_compact(struct store *, long now, int keep_days,
    struct store_compact_stats *, struct hp_error *);
/* What the database holds (issue 17, 'hexpost storage'). */
struct store_storage {
	int64_t file_bytes;     /* pages in use and free, as on disk */
	int64_t free_bytes;     /* free pages (VACUUM returns them) */
	int64_t windows;        /* resolved windows */
	int64_t reports, report_bytes, reports_packed;
	int64_t outbox_queued, outbox_sent, outbox_failed;
	int64_t outbox_bytes, outbox_packed;
	char oldest_sent[32];   /* sent_at of the oldest row kept, or "" */
	int64_t windows_packed; /* windows packed into window_packs */
	int64_t shared_dicts, shared_dict_bytes; /* migration 028 */
};
/* Fill *out, and call fn(name, bytes, arg) for each table and index by
 * the bytes of its pages (largest first). */
int store_storage_get(struct store *, struct store_storage *out,
    void (*fn)(const char *name, int64_t bytes, void *), void *arg,
    struct hp_error *);
/* VACUUM: give the free pages back to the file system. */
int store_vacuum(struct store *, struct hp_error *);

/* Commits of this connection wait for the disk (full, the default) or
 * only for the WAL to be written (not full: a process killed loses
 * nothing, a power cut may lose the last commits). The daemon's pass
 * resolves its campaigns not full, then commits once full before any mail
 * goes out (issue 17): what a power cut loses was seen by nobody and is
 * resolved again the same way. */
int store_sync_full(struct store *, bool full, struct hp_error *);

/* Intake's replay check (issue 17): has campaign cid taken in an order
 * file (any source but the built-in opponent) whose BLAKE2b-256 is hash,
 * or, nonce not "", whose nonce: line is nonce? Files whose nonce intake
 * kept (orders.nonce, store_orders_nonce_set) are compared in SQL; for
 * the others nonce_of(raw, len, out, outlen) gives it ("" if none).
 * Writes nothing. */
int store_orders_replay(struct store *, int64_t cid,
    const unsigned char hash[32], const char *nonce,
    void (*nonce_of)(const char *raw, size_t len, char *out, size_t outlen),
    bool *same_file, bool *same_nonce, struct hp_error *);
/* Keep nonce ("" if none) as the nonce of the order file with this hash
 * campaign cid has just stored (its rows whose nonce is not kept yet). */
int store_orders_nonce_set(struct store *, int64_t cid,
    const unsigned char hash[32], const char *nonce, struct hp_error *);

/* Issue 17, intake: store_orders_put keeping nonce ("" if none) as the
 * new row's nonce, one statement instead of store_orders_put and
 * store_orders_nonce_set. */
int store_orders_put_nonce(struct store *, int64_t wid, int side,
    int64_t player, const char *source, const char *raw, const char *parsed,
    const unsigned char *hash, const char *nonce, struct hp_error *);
/* PRAGMA data_version: changes when another connection commits (never for
 * this connection's own commits). */
int store_data_version(struct store *, int64_t *version, struct hp_error *);
/* Issue 17, intake: keep the undo pages of a savepoint (SQLite's statement
 * journal) in memory (on: PRAGMA temp_store=MEMORY) instead of a temporary
 * file written page by page, or back to the default (off). Takes effect
 * at the next transaction; call it outside one. Durability is the same:
 * that journal only undoes a savepoint inside an open transaction. */
int store_temp_memory(struct store *, bool on, struct hp_error *);
/* Issue 17, intake: store_message_record with the message's body hash
 * (what store_message_set_content sets) in the same INSERT. */
int store_message_record_content(struct store *, const unsigned char *hash,
    const char *message_id, const char *mailbox, const char *outcome,
    const char *detail, int64_t cid, int64_t player,
    const unsigned char *content_hash, struct hp_error *);

#endif
