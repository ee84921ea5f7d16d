/* dice: every random number hexpost uses comes from here. A window's dice
 * are a deterministic stream derived from a 32-byte key (docs/AUDIT.md
 * specifies the derivation byte by byte); tests script exact results.
 * Every roll is logged with its purpose, sides, target and result. */
#ifndef DICE_H
#define DICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DICE_KEYLEN 32
#define DICE_SEEDLEN 32
#define DICE_PURPOSE_MAX 120

struct dice_roll {
	int seq;                  /* 1-based within the window's stream (a
	                           * sealed roll: within its visibility set) */
	char purpose[DICE_PURPOSE_MAX];
	int sides;
	int target;               /* succeeds on result >= target; 0: no target */
	int result;
	unsigned visible;         /* bit per side shown it during the game;
	                           * DICE_ALL_SIDES for a public roll */
	bool sealed;              /* from the sealed stream */
};

#define DICE_ALL_SIDES 0xffu
/* Sealed streams: one per visibility set (a non-empty set of up to
 * GAME_MAX_SIDES = 4 sides), so a side's shown sealed rolls are exactly
 * the whole of the streams whose set holds it (docs/AUDIT.md, "Sealed
 * dice"). */
#define DICE_SEALED_SETS 16

struct dice_stream {
	unsigned char key[DICE_KEYLEN];
	uint64_t block;
	unsigned char buf[64];
	size_t bufpos;
	bool ready;               /* key derived */
	int n;                    /* rolls drawn from it so far */
};

enum dice_mode { DICE_STREAM, DICE_SCRIPTED };

struct dice {
	enum dice_mode mode;
	unsigned char key[DICE_KEYLEN];
	uint64_t block;           /* next stream block index */
	unsigned char buf[64];
	size_t bufpos;            /* bytes of buf consumed */
	const int *script;        /* DICE_SCRIPTED: results in order */
	size_t nscript;
	size_t scriptpos;
	bool script_exhausted;    /* set when a scripted roll ran out */
	struct dice_roll *log;    /* public rolls only */
	size_t nlog;
	size_t caplog;
	/* Sealed stream (dice_sealed_enable): one stream per visibility set,
	 * keyed from that set's seed; its rolls are logged apart. */
	unsigned sealed_on;       /* bit per set (1 << mask) with a seed */
	unsigned char sealed_seed[DICE_SEALED_SETS][DICE_SEEDLEN];
	struct dice_stream sealed[DICE_SEALED_SETS];
	struct dice_roll *slog;   /* sealed rolls, in the order drawn */
	size_t nslog;
	size_t capslog;
};

/* Fill seed with DICE_SEEDLEN bytes from randombytes_buf. */
void dice_new_seed(unsigned char *seed);
/* Deterministic seed for test/demo campaigns: BLAKE2b-256 keyed by the
 * master seed over the campaign name, turn and window. */
void dice_seed_from_master(const unsigned char *master, size_t masterlen,
    const char *campaign, int turn, int window, unsigned char *seed);
/* Commitment to a seed (BLAKE2b-256 of a domain tag and the seed). */
void dice_commit(const unsigned char *seed, unsigned char *out32);

/* Stream dice keyed by key (DICE_KEYLEN bytes). */
void dice_init_stream(struct dice *, const unsigned char *key);
/* Scripted dice: each roll returns the next value of script. A roll past
 * the end returns 1 and sets script_exhausted (tests assert on it). */
void dice_init_scripted(struct dice *, const int *script, size_t n);
void dice_free(struct dice *);
/* A new zeroed entry at the end of the roll log (for loaders); owned by d. */
struct dice_roll *dice_log_entry(struct dice *);

/* Roll one die with sides faces (2..65536), log it, return 1..sides.
 * Unbiased: rejection sampling over the byte stream (docs/AUDIT.md). */
int dice_roll(struct dice *, int sides, int target, const char *purpose);
/* Roll count dice of sides faces one after the other (2d6: count 2, sides
 * 6) and return their sum. Each die is a roll of its own in the log, with
 * purpose "PURPOSE (die K of COUNT)" and no target. */
int dice_roll_sum(struct dice *, int count, int sides, const char *purpose);
/* Shuffle deck[0..n-1] in place (Fisher-Yates, docs/AUDIT.md): for i from
 * n-1 down to 1, j = roll(i+1) - 1 and swap deck[i], deck[j]; each roll is
 * logged as "PURPOSE (shuffle, card I)" with I = i+1. n <= 65536. */
void dice_shuffle(struct dice *, int *deck, int n, const char *purpose);
/* Draw one card at random from a deck of n cards (1..65536): the 0-based
 * position, roll(n) - 1, of the card drawn. A deck of one card needs no
 * roll (nothing is logged) and gives 0. */
int dice_draw(struct dice *, int n, const char *purpose);
/* A roll from the window's sealed stream, shown during the game only to
 * the sides in visible (bit per side, non-empty, < DICE_SEALED_SETS) and
 * the moderator; revealed to all at the game's end. Logged in d->slog,
 * numbered within its visibility set. Scripted dice take the next scripted
 * value. Stream dice need dice_sealed_enable first (a broken invariant
 * otherwise). */
int dice_roll_sealed(struct dice *, unsigned visible, int sides, int target,
    const char *purpose);
/* Draw without replacement from the sealed stream (cards, hit tokens): the
 * 0-based position 0..n-1 of the card drawn among the n still in the pile,
 * dice_roll_sealed(n) - 1; a pile of one needs no roll and gives 0. */
int dice_draw_sealed(struct dice *, unsigned visible, int n,
    const char *purpose);
/* Give stream dice d (keyed with the window's public key) the seed of
 * visibility set mask: its sealed rolls then come from the stream of
 * docs/AUDIT.md, "Sealed dice". */
void dice_sealed_enable(struct dice *, unsigned mask,
    const unsigned char *set_seed);
/* The key of set mask's stream in the window whose public key is wkey:
 * BLAKE2b-256 keyed by the set's seed over "hexpost-sealed-v1\0" || wkey. */
void dice_sealed_key(const unsigned char *set_seed, const unsigned char *wkey,
    unsigned char *out32);
/* A new zeroed sealed log entry (for loaders); owned by d. */
struct dice_roll *dice_slog_entry(struct dice *);

/* Derive a window's dice key from its seed and context (docs/AUDIT.md):
 * BLAKE2b-256 keyed by the seed over a domain tag, the campaign name, turn,
 * window number and the BLAKE2b-256 hashes of the accepted order files
 * (given in side order, nhash entries of 32 bytes). */
void dice_derive_key(const unsigned char *seed, const char *campaign, int turn,
    int window, const unsigned char (*hashes)[32], size_t nhash,
    unsigned char *key);

#endif
