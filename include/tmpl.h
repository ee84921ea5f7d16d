/* tmpl: a small logic-less template engine (a Mustache subset) for reports
 * and mail. Syntax:
 *   {{name}}              the value of name (plain text, no escaping)
 *   {{#name}}..{{/name}}  once per item if name is a list; once if name is a
 *                         non-empty string; not at all otherwise
 *   {{^name}}..{{/name}}  only if name is missing, an empty string or an
 *                         empty list
 *   {{! comment }}        nothing
 * Names are looked up in the current item, then in its parents. A line that
 * holds only a section tag or a comment (and white space) is removed
 * entirely, as in Mustache's "standalone" rule. Missing names render as "". */
#ifndef TMPL_H
#define TMPL_H

#include "hexpost.h"

struct tmpl_ctx;

/* New empty context; the caller owns it and frees it with tmpl_ctx_free. */
struct tmpl_ctx *tmpl_ctx_new(void);
void tmpl_ctx_free(struct tmpl_ctx *);
/* Set name to a copy of val (replacing any previous value). */
void tmpl_set(struct tmpl_ctx *, const char *name, const char *val);
void tmpl_setf(struct tmpl_ctx *, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tmpl_set_int(struct tmpl_ctx *, const char *name, long val);
/* Append a new item to list name (creating the list) and return it; the
 * item is owned by ctx. */
struct tmpl_ctx *tmpl_list_add(struct tmpl_ctx *, const char *name);

/* Render template text (NUL-terminated) with ctx, appending to out. Syntax
 * errors (unclosed or mismatched sections, unterminated tags) return
 * HP_EINVAL with the line number in err. */
int tmpl_render(const char *text, const struct tmpl_ctx *, struct sbuf *out,
    struct hp_error *err);

#endif
