/* picmodel: the generic map model of a picture (see include/picmodel.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "picmodel.h"
#include "ruleset.h"

void
picmodel_default(const struct game *v, int side, struct pic_model *m)
{
	int i, d;

	m->layout = v->layout;
	snprintf(m->title, sizeof m->title, "%s, turn %d: %s", v->name,
	    v->turn, side < 0 ? "the moderator's view" :
	    v->sides[side].label);
	m->nsides = v->nsides < PIC_MAX_SIDES ? v->nsides : PIC_MAX_SIDES;
	for (i = 0; i < m->nsides; i++)
		strlcpy_(m->side_name[i], v->sides[i].label,
		    sizeof m->side_name[i]);
	for (i = 0; i < v->nhex; i++) {
		const struct game_hex *gh = &v->hexes[i];
		bool seen = side < 0 || v->rules == NULL ||
		    v->rules->hex_visible == NULL ||
		    v->rules->hex_visible(v, side, gh->h);
		struct pic_hex *p = picture_add_hex(m, gh->h, seen ?
		    gh->terrain : "unknown");
		char name[PIC_TEXT];

		if (!seen)
			continue;
		p->elevation = gh->elevation;
		for (d = 0; d < 6; d++) {
			if (gh->edge[d] == 0)
				continue;
			snprintf(name, sizeof name, "hexside feature %d",
			    gh->edge[d]);
			p->edge[d] = picture_edge_kind(m, name);
		}
	}
	for (i = 0; i < v->nunits; i++) {
		const struct game_unit *u = &v->units[i];
		struct pic_unit *p;

		if (!u->placed || (side >= 0 && v->rules != NULL &&
		    v->rules->hex_visible != NULL &&
		    !v->rules->hex_visible(v, side, u->pos)))
			continue;
		p = picture_add_unit(m, u->pos, u->side, u->id);
		strlcpy_(p->kind, u->kind, sizeof p->kind);
		p->strength = u->strength;
		p->facing = u->facing >= 0 && u->facing < 6 ? u->facing : -1;
		p->marker = u->side == GAME_SIDE_NONE;
	}
}

/* The hex whose label is the word at p (letters then digits), on v's map. */
static bool
word_hex(const struct game *v, const char *p, struct hex *h)
{
	char w[16];
	size_t n = 0;

	while (isalpha((unsigned char)p[n]) && n < 8)
		n++;
	if (n == 0 || !isdigit((unsigned char)p[n]))
		return false;
	while (isdigit((unsigned char)p[n]) && n < sizeof w - 1)
		n++;
	if (n >= sizeof w || isalnum((unsigned char)p[n]))
		return false;
	memcpy(w, p, n);
	w[n] = '\0';
	return hex_parse_label(&v->layout, w, h) && game_on_map(v, *h);
}

/* The unit of v named by the event's first word, or -1. */
static int
actor(const struct game *v, const char *text)
{
	char w[GAME_ID_MAX];
	size_t n = strcspn(text, " ,.:;'");

	if (n == 0 || n >= sizeof w)
		return -1;
	memcpy(w, text, n);
	w[n] = '\0';
	return game_unit_index(v, w);
}

void
picmodel_arrows(const struct game *v, const struct events *ev,
    struct pic_model *m)
{
	size_t i;

	for (i = 0; i < ev->n; i++) {
		const char *t = ev->v[i].text, *p, *q;
		int a = actor(v, t), side = a >= 0 ? v->units[a].side : -1;
		struct hex from, to;

		for (p = strstr(t, " -> "); p != NULL; p = strstr(p + 4,
		    " -> ")) {
			for (q = p; q > t && q[-1] != ' '; q--)
				;
			if (word_hex(v, q, &from) && word_hex(v, p + 4, &to) &&
			    !hex_eq(from, to))
				picture_add_arrow(m, PIC_MOVE, from, to, side);
		}
		if ((p = strstr(t, "fires a gas shell at ")) != NULL)
			p += 21;
		else if ((p = strstr(t, "fires at ")) != NULL)
			p += 9;
		else if ((p = strstr(t, "fires on ")) != NULL)
			p += 9;
		if (p == NULL)
			continue;
		if (!word_hex(v, p, &to))
			continue;
		if ((q = strstr(t, " from ")) != NULL && word_hex(v, q + 6,
		    &from))
			;
		else if (a >= 0 && v->units[a].placed)
			from = v->units[a].pos;
		else
			continue;
		if (!hex_eq(from, to))
			picture_add_arrow(m, PIC_FIRE, from, to, side);
	}
}
