/* cap: private header of the cards-ap ruleset (seed 004, issue 15): a card
 * and action-point hex game played by round plans (docs/rules/cards-ap.md).
 * Modules: cap_state.c (the ruleset-owned state and geometry), cap_rules.c
 * (every rule of the seed), cap_plan.c (the plan language), cap_play.c
 * (rounds, alternation of the plans, stops), cap.c (the ruleset). */
#ifndef CAP_H
#define CAP_H

#include <stdbool.h>

#include "ruleset.h"

#define CAP_SIDES 2
#define CAP_MAX_KINDS 16
#define CAP_MAX_TERRAIN 16
#define CAP_MAX_CARDS 64
#define CAP_MAX_TOKENS 40
#define CAP_MAX_ENTRIES 48
#define CAP_MAX_STOPS 12
#define CAP_MAX_EVENTS 16
#define CAP_MAX_PATH 4
#define CAP_FIRE_ROW 256   /* most units a row of cap_fire_row covers */

#define CAP_HIT 1          /* unit flags: carries a hit token */
#define CAP_SPENT 1        /* unit status */
#define CAP_GONE 2         /* unit status: eliminated */
#define CAP_SMOKE "smoke"  /* kind of a smoke marker (strength = level) */

/* A counter (the seed's counter data, scenario placeholders). */
struct cap_counter {
	char kind[GAME_KIND_MAX];
	bool vehicle;
	int move;        /* AP to move forward ("top right corner") */
	int bonus;       /* bonus-move icons (vehicles) */
	int range;
	int fp[2];       /* FP against a red DR, against a blue DR */
	bool white;      /* white-box FP: -2 in the same hex, else +4 */
	int dr[2];       /* front, flank */
	int drcol;       /* 0 red, 1 blue */
};

struct cap_terrain {
	char name[GAME_TERRAIN_MAX];
	int move;        /* extra AP to enter */
	int dv;          /* terrain modifier to DV */
	bool cover;
	bool block;      /* blocks line of sight beyond it */
};

enum cap_card_action { CARD_NONE, CARD_RALLY, CARD_SMOKE };

struct cap_card {
	int num;         /* bottom centre number */
	bool ignore;     /* the 'ignore spent check' symbol */
	int action;      /* enum cap_card_action */
};

struct cap_arty {
	int side, round, fp;
	struct hex at;
};

struct cap_reinf {
	char unit[GAME_ID_MAX];
	int round;
	struct hex at;
};

enum cap_act { ACT_NONE, ACT_MOVE, ACT_PIVOT, ACT_FIRE, ACT_CLOSE,
	ACT_RALLY, ACT_CARD, ACT_STALL, ACT_PASS };
enum cap_cond { COND_NONE, COND_OCCUPIED, COND_ENEMY, COND_INRANGE,
	COND_INLOS, COND_CAPS, COND_PASSED };
enum cap_stopk { STOP_HIT, STOP_LOST, STOP_SEEN, STOP_INRANGE, STOP_DRY,
	STOP_ANSWER };

struct cap_action {
	int kind;                 /* enum cap_act */
	bool cmd;                 /* a command action paid with CAPs */
	int unit;                 /* acting unit, -1 none */
	struct hex path[CAP_MAX_PATH];
	int npath;
	bool toward;              /* move one hex toward path[0] */
	int facing;               /* -1: keep */
	struct hex target;        /* fire: hex; card smoke: hex */
	bool best;                /* fire at the best target in sight */
	int tunit;                /* close combat target, card rally unit */
	int caps;                 /* CAPs added to the roll (0-2) */
	int card;                 /* card number in the deck (1-based) */
};

struct cap_entry {
	int line;
	int cond;                 /* enum cap_cond */
	bool neg;
	int cunit;
	struct hex chex;
	int cn;
	struct cap_action then, els;
	bool has_else;
};

struct cap_stop {
	int kind;                 /* enum cap_stopk */
	int unit;                 /* -1: any */
	int act;                  /* STOP_ANSWER: enum cap_act, ACT_NONE any */
};

struct cap_plan {
	int initiative;           /* CAPs bid on initiative, 0-2 */
	struct cap_entry e[CAP_MAX_ENTRIES];
	int n;
	struct cap_stop stops[CAP_MAX_STOPS];
	int nstops;
	bool dry_pass;            /* pass when dry instead of asking */
};

/* The ruleset-owned state (g->rstate). */
struct cap_state {
	struct cap_counter ctr[CAP_MAX_KINDS];
	int nctr;
	struct cap_terrain ter[CAP_MAX_TERRAIN];
	int nter;
	struct cap_card card[CAP_MAX_CARDS];
	int ncard;
	int deck[CAP_MAX_CARDS], ndeck;       /* card numbers, undrawn */
	int disc[CAP_MAX_CARDS], ndisc;
	int hand[CAP_SIDES][CAP_MAX_CARDS], nhand[CAP_SIDES];
	int pool[CAP_MAX_TOKENS], npool;      /* token values in the pool */
	struct cap_arty arty[16];
	int narty;
	struct cap_reinf reinf[16];
	int nreinf;
	bool have_plan[CAP_SIDES];
	struct cap_plan plan[CAP_SIDES];      /* the rest of each plan */
	char log[CAP_SIDES][2048];            /* this round's action lines */
};

/* Append string literal lit to sbuf b (its length known: no strlen). */
#define CAP_PUTS(b, lit) sbuf_add((b), "" lit, sizeof(lit) - 1)

/* cap_state.c */
struct cap_state *cap_state_load(const struct game *g);
struct cap_state *cap_state_load_plans(const struct game *g, unsigned mask);
/* One side's hand and the card chart of a state. */
struct cap_hand {
	int hand[CAP_MAX_CARDS], nhand;
	struct cap_card card[CAP_MAX_CARDS];
	int ncard;
};
void cap_state_load_hand(const struct game *g, int side, struct cap_hand *h);
void cap_state_save(struct game *g, const struct cap_state *st);
void cap_state_free(struct cap_state *st);
/* The decimal digits of v into out (at least 12 bytes), as "%d" writes
 * them, not NUL-terminated; their count. */
size_t cap_fmt_int(char *out, int v);
const struct cap_counter *cap_counter_of(const struct cap_state *,
    const struct game_unit *u);
const struct cap_terrain *cap_terrain_at(const struct cap_state *,
    const struct game *, struct hex h);
int cap_dir_parse(const char *s);
const char *cap_dir_name(int dir);
bool cap_in_arc(struct hex from, int facing, struct hex to);
bool cap_los(const struct cap_state *, const struct game *, struct hex a,
    struct hex b);
void cap_los_begin(const struct cap_state *, const struct game *);
void cap_los_end(void);
bool cap_smoke_at(const struct game *, struct hex h);
int cap_svar(const struct game *, const char *key, int side, int dflt);
void cap_set_svar(struct game *, const char *key, int side, int val);
bool cap_can_fire(const struct cap_state *, const struct game *, int unit,
    int target);
int cap_best_target(const struct cap_state *, const struct game *, int unit);
bool cap_backwards(int facing, int dir);
void cap_put_int(struct sbuf *b, int v);

/* cap_plan.c */
int cap_plan_parse(const struct game *g, int side, const struct order_body *b,
    bool per_action, struct cap_plan *p, struct order_errors *errs);
void cap_plan_canon(const struct game *g, const struct cap_plan *p,
    struct sbuf *out);
void cap_action_text(const struct game *g, const struct cap_action *a,
    struct sbuf *out);
int cap_plan_from_text(const struct game *g, int side, const char *text,
    struct cap_plan *p);
int cap_plan_cached(const struct game *g, int side, const char *text,
    struct cap_plan *p);
void cap_plan_copy(struct cap_plan *p, const struct cap_plan *m);
void cap_plan_clear(struct cap_plan *p);

/* cap_rules.c: each rule; ctx gives dice and events. */
struct cap_ctx {
	struct game *g;
	struct cap_state *st;
	struct dice *dice;
	struct events *ev;
	/* What happened during the last action, for stops. */
	int hit[CAP_SIDES];       /* units hit (bitless count) */
	int hitunit[CAP_MAX_EVENTS], nhitunit;
	int lostunit[CAP_MAX_EVENTS], nlostunit;
	/* Whom unit row_unit may fire at (cap_fire_row), when row_ok: set
	 * by an 'inrange' guard for the action it guards, nothing changing
	 * in between (cap_play.c clears it around each action). */
	bool row_ok;
	int row_unit;
	unsigned char row[CAP_FIRE_ROW];
};
int cap_spent_check(struct cap_ctx *, int side, int unit, int aps);
int cap_draw_card(struct cap_ctx *, unsigned visible, const char *why);
void cap_take_hit(struct cap_ctx *, int unit, int by_side);
void cap_eliminate(struct cap_ctx *, int unit);
int cap_move_cost(const struct cap_state *, const struct game *, int unit,
    const struct hex *path, int npath, char *why, size_t whylen);
int cap_fire(struct cap_ctx *, int unit, struct hex target, int tunit,
    int caps);
int cap_rally(struct cap_ctx *, int unit, const char *how);
int cap_initiative(struct cap_ctx *, const int bid[CAP_SIDES]);
void cap_round_start(struct cap_ctx *, int round);
int cap_do_action(struct cap_ctx *, int side, const struct cap_action *a,
    char *why, size_t whylen);
void cap_fire_row(const struct cap_state *, const struct game *, int unit,
    unsigned char *row);

/* cap_play.c */
enum resolve_rc cap_resolve(struct resolve_ctx *c);
bool cap_next_window(const struct game *g, struct window_spec *w);
void cap_victory(struct game *g, struct events *ev);

/* cap_ai.c */
void cap_opponent(const struct game *g, const struct window_spec *w,
    int side, struct sbuf *b);

#endif
