/* test_picture: the picture of a side's map (src/picture.c, src/picmodel.c,
 * view_picture): the model holds what the side's view holds and nothing
 * more (fog of war: two games that differ only in the other side's hidden
 * scout give the same model and the same PNG bytes), arrows follow the
 * events the side may see, and cairo writes a PNG and an SVG; the PNG
 * hexpost encodes itself (issue 17) decodes, through libpng, to the pixels
 * of cairo's own PNG writer. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "fixtures.h"
#include "picmodel.h"
#include "picture.h"
#include "ruleset.h"
#include "view.h"

/* A test-fog game with the scouts at blue_at and red_at. */
static void
fog_game(struct game *g, const char *blue_at, const char *red_at)
{
	struct hp_error err = { 0, "" };

	game_init(g);
	g->rules = ruleset_find("test-fog");
	assert_non_null(g->rules);
	strlcpy_(g->name, "v", sizeof g->name);
	snprintf(g->options, sizeof g->options, "blue-start=%s,red-start=%s",
	    blue_at, red_at);
	assert_int_equal(ruleset_setup(g, NULL, NULL, NULL, NULL, &err),
	    HP_OK);
}

/* side's model text and PNG of g with events ev. */
static void
draw(const struct game *g, int side, const struct events *ev,
    struct sbuf *text, struct sbuf *png)
{
	struct hp_error err = { 0, "" };
	struct pic_model m;

	picture_init(&m);
	view_picture(g, side, ev, &m);
	picture_text(&m, text);
	assert_int_equal(picture_draw(&m, false, png, &err), HP_OK);
	picture_free(&m);
}

static void
test_fog(void **state)
{
	struct game a, b;
	struct events ev;
	struct sbuf ta, tb, pa, pb;

	(void)state;
	fog_game(&a, "B1", "C2");
	fog_game(&b, "B1", "D0");
	events_init(&ev);
	/* Red's hidden move, seen by Red alone, and a public event. */
	events_add(&ev, 1u << 1, 0, "rs moves C2 -> D0.");
	events_add(&ev, EVENT_ALL_SIDES, 0, "The weather holds.");
	sbuf_init(&ta);
	sbuf_init(&tb);
	sbuf_init(&pa);
	sbuf_init(&pb);
	draw(&a, 0, &ev, &ta, &pa);
	draw(&b, 0, &ev, &tb, &pb);
	assert_string_equal(ta.buf, tb.buf);
	assert_int_equal(pa.len, pb.len);
	assert_memory_equal(pa.buf, pb.buf, pa.len);
	assert_non_null(strstr(ta.buf, "[bs]"));
	assert_null(strstr(ta.buf, "[rs]"));
	assert_null(strstr(ta.buf, "arrow"));
	/* Red sees its scout and its move; the two games differ for Red. */
	sbuf_free(&ta);
	sbuf_free(&tb);
	sbuf_init(&ta);
	sbuf_init(&tb);
	sbuf_free(&pa);
	sbuf_free(&pb);
	sbuf_init(&pa);
	sbuf_init(&pb);
	draw(&a, 1, &ev, &ta, &pa);
	draw(&b, 1, &ev, &tb, &pb);
	assert_non_null(strstr(ta.buf, "[rs]"));
	assert_non_null(strstr(ta.buf, "arrow move"));
	assert_string_not_equal(ta.buf, tb.buf);
	assert_true(pa.len != pb.len || memcmp(pa.buf, pb.buf, pa.len) != 0);
	sbuf_free(&ta);
	sbuf_free(&tb);
	sbuf_free(&pa);
	sbuf_free(&pb);
	events_free(&ev);
	game_free(&a);
	game_free(&b);
}

static void
test_fam_model_and_formats(void **state)
{
	struct hp_error err = { 0, "" };
	struct game g;
	struct events ev;
	struct pic_model m;
	struct sbuf t, png, svg;

	(void)state;
	fx_fam_game(&g, "");
	fx_fam_place(&g, "A0", 0, "B1", 1, "C0", 0, 0);
	events_init(&ev);
	events_add(&ev, EVENT_ALL_SIDES, 0, "2 Section moves A0 -> B1 and is "
	    "spent.");
	events_add(&ev, EVENT_ALL_SIDES, 0, "The enemy fires on B1 with a "
	    "beaten zone in A0.");
	picture_init(&m);
	view_picture(&g, 0, &ev, &m);
	assert_int_equal(m.nhex, g.nhex);
	assert_int_equal(m.nsides, 2);
	sbuf_init(&t);
	picture_text(&m, &t);
	assert_non_null(strstr(t.buf, "[P]"));
	assert_non_null(strstr(t.buf, "[R]"));
	assert_non_null(strstr(t.buf, "arrow move 0,0 -> 1,0 side 0"));
	assert_non_null(strstr(t.buf, "state 1"));	/* 2 Section spent */
	assert_non_null(strstr(t.buf, "arrow fire"));	/* the enemy's */
	assert_non_null(strstr(t.buf, "-> 1,0 side 1"));
	sbuf_init(&png);
	sbuf_init(&svg);
	assert_int_equal(picture_draw(&m, false, &png, &err), HP_OK);
	assert_int_equal(picture_draw(&m, true, &svg, &err), HP_OK);
	assert_true(png.len > 1000);
	assert_memory_equal(png.buf, "\x89PNG\r\n\x1a\n", 8);
	assert_non_null(strstr(svg.buf, "<svg"));
	sbuf_free(&t);
	sbuf_free(&png);
	sbuf_free(&svg);
	picture_free(&m);
	events_free(&ev);
	game_free(&g);
}

struct png_read {
	const struct sbuf *b;
	size_t off;
};

/* cairo read callback over an sbuf. */
static cairo_status_t
png_read_fn(void *closure, unsigned char *data, unsigned int len)
{
	struct png_read *r = closure;

	if (r->off + len > r->b->len)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(data, r->b->buf + r->off, len);
	r->off += len;
	return CAIRO_STATUS_SUCCESS;
}

/* The PNG in b decoded by cairo (libpng). */
static cairo_surface_t *
png_decode(const struct sbuf *b)
{
	struct png_read r = { b, 0 };
	cairo_surface_t *s = cairo_image_surface_create_from_png_stream(
	    png_read_fn, &r);

	assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
	return s;
}

/* hexpost's PNG encoder and cairo's (HEXPOST_PNG_CAIRO) give the same
 * pixels, and hexpost's is the same bytes each time. */
static void
test_png_same_pixels(void **state)
{
	struct hp_error err = { 0, "" };
	struct game g;
	struct events ev;
	struct pic_model m;
	struct sbuf ours, again, theirs;
	cairo_surface_t *a, *b;
	int y, w, h, sa, sb;

	(void)state;
	fx_fam_game(&g, "");
	fx_fam_place(&g, "A0", 0, "B1", 1, "C0", 0, 0);
	events_init(&ev);
	events_add(&ev, EVENT_ALL_SIDES, 0, "2 Section moves A0 -> B1 and is "
	    "spent.");
	picture_init(&m);
	view_picture(&g, 0, &ev, &m);
	sbuf_init(&ours);
	sbuf_init(&again);
	sbuf_init(&theirs);
	assert_int_equal(picture_draw(&m, false, &ours, &err), HP_OK);
	assert_int_equal(picture_draw(&m, false, &again, &err), HP_OK);
	setenv("HEXPOST_PNG_CAIRO", "1", 1);
	assert_int_equal(picture_draw(&m, false, &theirs, &err), HP_OK);
	unsetenv("HEXPOST_PNG_CAIRO");
	assert_int_equal(ours.len, again.len);
	assert_memory_equal(ours.buf, again.buf, ours.len);
	a = png_decode(&ours);
	b = png_decode(&theirs);
	w = cairo_image_surface_get_width(a);
	h = cairo_image_surface_get_height(a);
	assert_true(w > 100 && h > 100);
	assert_int_equal(w, cairo_image_surface_get_width(b));
	assert_int_equal(h, cairo_image_surface_get_height(b));
	assert_int_equal(cairo_image_surface_get_format(a),
	    cairo_image_surface_get_format(b));
	sa = cairo_image_surface_get_stride(a);
	sb = cairo_image_surface_get_stride(b);
	for (y = 0; y < h; y++)
		assert_memory_equal(cairo_image_surface_get_data(a) +
		    (size_t)y * (size_t)sa, cairo_image_surface_get_data(b) +
		    (size_t)y * (size_t)sb, (size_t)w * 4);
	cairo_surface_destroy(a);
	cairo_surface_destroy(b);
	sbuf_free(&ours);
	sbuf_free(&again);
	sbuf_free(&theirs);
	picture_free(&m);
	events_free(&ev);
	game_free(&g);
}

static void
test_arrows_parse(void **state)
{
	struct game g;
	struct events ev;
	struct pic_model m;
	struct sbuf t;

	(void)state;
	fx_fam_game(&g, "");
	fx_fam_place(&g, "A0", 0, "B1", 1, "C0", 0, 0);
	events_init(&ev);
	events_add(&ev, EVENT_ALL_SIDES, 0, "1 fires at C2: a hit.");
	events_add(&ev, EVENT_ALL_SIDES, 0, "Someone fires on B3 from A2.");
	events_add(&ev, EVENT_ALL_SIDES, 0, "x fires at ZZ99 and A0 -> Q77.");
	picture_init(&m);
	picmodel_default(&g, -1, &m);
	picmodel_arrows(&g, &ev, &m);
	sbuf_init(&t);
	picture_text(&m, &t);
	assert_int_equal(m.narrows, 2);
	assert_non_null(strstr(t.buf, "arrow fire 0,0 -> 2,1 side 0"));
	assert_non_null(strstr(t.buf, "arrow fire 0,2 -> 1,2 side -1"));
	sbuf_free(&t);
	picture_free(&m);
	events_free(&ev);
	game_free(&g);
}

/* picture_text and picture_parse round-trip; the public view keeps only
 * what both views share. */
static void
test_text_roundtrip_intersect(void **state)
{
	struct hp_error err = { 0, "" };
	struct game g;
	struct events ev;
	struct pic_model m, m2, o;
	struct sbuf a, b;
	struct pic_unit *u;

	(void)state;
	fx_fam_game(&g, "");
	fx_fam_place(&g, "A0", 0, "B1", 1, "C0", 0, 0);
	events_init(&ev);
	events_add(&ev, EVENT_ALL_SIDES, 0, "2 Section moves A0 -> B1.");
	picture_init(&m);
	view_picture(&g, 0, &ev, &m);
	strlcpy_(m.units[0].kind, "odd [kind] name", sizeof m.units[0].kind);
	m.hexes[0].edge[2] = picture_edge_kind(&m, "river bank");
	sbuf_init(&a);
	sbuf_init(&b);
	picture_text(&m, &a);
	picture_init(&m2);
	assert_int_equal(picture_parse(a.buf, &m2, &err), HP_OK);
	picture_text(&m2, &b);
	assert_string_equal(a.buf, b.buf);
	assert_non_null(strstr(a.buf, "[odd _kind_ name]"));
	picture_init(&o);
	assert_int_equal(picture_parse("hex 1,2 [wood] x\n", &o, &err),
	    HP_EINVAL);
	assert_non_null(strstr(err.msg, "line 1"));
	picture_free(&o);
	/* o: the same view without the first unit and with an extra one */
	picture_init(&o);
	assert_int_equal(picture_parse(a.buf, &o, &err), HP_OK);
	o.units[0].pos.q += 1;
	u = picture_add_unit(&o, o.units[1].pos, 1, "x");
	u->strength = 3;
	strlcpy_(o.hexes[1].terrain, "marsh", sizeof o.hexes[1].terrain);
	picture_intersect(&m2, &o);
	assert_int_equal(m2.nunits, m.nunits - 1);
	assert_string_equal(m2.hexes[1].terrain, "unknown");
	assert_string_equal(m2.hexes[0].terrain, m.hexes[0].terrain);
	assert_int_equal(m2.narrows, m.narrows);
	sbuf_free(&a);
	sbuf_free(&b);
	picture_free(&m);
	picture_free(&m2);
	picture_free(&o);
	events_free(&ev);
	game_free(&g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fog),
		cmocka_unit_test(test_fam_model_and_formats),
		cmocka_unit_test(test_arrows_parse),
		cmocka_unit_test(test_text_roundtrip_intersect),
		cmocka_unit_test(test_png_same_pixels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
