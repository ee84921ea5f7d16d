/* cap_ai: the built-in opponent of cards-ap. It writes a round plan (or an
 * answer) from what its own side's view shows only (view_game; read in
 * place, see below): for each unit on the
 * map, in turn, "fire at the nearest enemy in sight, else move toward the
 * objective", rally for hit units, a rally card when it holds one; it
 * stops to be asked when one of its units is lost and when its plan runs
 * dry while the enemy still acts. The AI never ignores a spent check
 * (cap_rules.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap.h"

/* Write side's plan for window w into b. */
void
cap_opponent(const struct game *g0, const struct window_spec *w, int side,
    struct sbuf *b)
{
	const struct game *vp = g0;  /* what its view shows of g0 */
	struct cap_hand st;   /* of the state only its hand and the cards */
	struct hex obj;
	char olbl[8];
	int i, pass, caps, n = 0;
	bool per_action;

	/* The side's view (view_game: a copy redacted by cap_redact) is not
	 * made (issue 17): of the game the opponent reads only its own hand,
	 * the card chart, the vars and its own units' id, place, flags,
	 * status and x[1], which the redaction leaves as they are (it drops
	 * the other hand, the deck, the pool, the other plan and its own
	 * units' x[0]); everything on the map is seen by both sides. */
	cap_state_load_hand(vp, side, &st);
	per_action = game_option_flag(vp, "per-action");
	obj.q = game_var(vp, "obj.q", 0);
	obj.r = game_var(vp, "obj.r", 0);
	hex_label(&vp->layout, obj, olbl, sizeof olbl);
	caps = cap_svar(vp, "cap", side, 0);
	if (w->kind != WINDOW_DECISION && caps >= 3 && !per_action)
		CAP_PUTS(b, "initiative 1\n");
	if (!per_action)
		CAP_PUTS(b, "stop lost\n");
	for (i = 0; i < vp->nunits && !per_action; i++) {
		const struct game_unit *u = &vp->units[i];
		int k;

		if (u->side != side || !u->placed || !(u->flags & CAP_HIT))
			continue;
		for (k = 0; k < st.nhand; k++)
			if (st.card[st.hand[k] - 1].action == CARD_RALLY) {
				CAP_PUTS(b, "card ");
				cap_put_int(b, st.hand[k]);
				CAP_PUTS(b, " rally ");
				sbuf_puts(b, u->id);
				CAP_PUTS(b, "\n");
				n++;
				break;
			}
	}
	for (pass = 0; pass < 3; pass++)
		for (i = 0; i < vp->nunits; i++) {
			const struct game_unit *u = &vp->units[i];

			if (u->side != side || !u->placed || u->status != 0)
				continue;
			if (per_action && n > 0)
				break;
			/* Written without printf (issue 17): "if inrange U
			 * then fire U best else rally U", or "... best[ caps
			 * 1] else move U toward OBJ". */
			CAP_PUTS(b, "if inrange ");
			sbuf_puts(b, u->id);
			CAP_PUTS(b, " then fire ");
			sbuf_puts(b, u->id);
			if (pass == 0 && (u->flags & CAP_HIT) && u->x[1] == 0) {
				CAP_PUTS(b, " best else rally ");
				sbuf_puts(b, u->id);
				CAP_PUTS(b, "\n");
				n++;
				continue;
			}
			sbuf_puts(b, caps >= 4 && pass == 0 ? " best caps 1" :
			    " best");
			CAP_PUTS(b, " else move ");
			sbuf_puts(b, u->id);
			CAP_PUTS(b, " toward ");
			sbuf_puts(b, olbl);
			CAP_PUTS(b, "\n");
			n++;
		}
	if (n == 0)
		CAP_PUTS(b, "pass\n");
}
