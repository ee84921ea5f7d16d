/* fault: faults of the server itself (see include/fault.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fault.h"
#include "mail.h"

struct fault_rcpt {
	char (*email)[256];
	int64_t *cid;
	int n;
	int cap;
};

/* store_moderators callback: note one moderator's address. */
static void
fault_collect(const char *email, int64_t cid, void *arg)
{
	struct fault_rcpt *r = arg;

	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->email = xrealloc(r->email, (size_t)r->cap * sizeof *r->email);
		r->cid = xrealloc(r->cid, (size_t)r->cap * sizeof *r->cid);
	}
	strlcpy_(r->email[r->n], email, sizeof r->email[r->n]);
	r->cid[r->n++] = cid;
}

int
fault_raise(struct store *st, const struct config *cfg, const char *kind,
    long now, const char *error, const char *subject, const char *text,
    bool *first, struct hp_error *err)
{
	struct fault_rcpt r = { NULL, NULL, 0, 0 };
	char seed[512], subj[300];
	struct sbuf body;
	struct timespec ts;
	int i, rc;

	*first = false;
	if ((rc = store_begin(st, err)) != HP_OK)
		return rc;
	sbuf_init(&body);
	if ((rc = store_fault_put(st, kind, now, error, first, err)) == HP_OK &&
	    *first && (rc = store_moderators(st, fault_collect, &r, err)) ==
	    HP_OK) {
		sbuf_printf(&body, "%s\n\n  %s\n\nThis is the only message "
		    "about it until it happens again.\n", text, error);
		snprintf(subj, sizeof subj, "[hexpost] server: %s", subject);
		/* The clock's nanoseconds too: a fault cleared and raised
		 * again within the second is a new notice, not a duplicate
		 * of the last one's Message-ID (test_fault). */
		clock_gettime(CLOCK_REALTIME, &ts);
		for (i = 0; i < r.n && rc == HP_OK; i++) {
			snprintf(seed, sizeof seed, "fault.%s.%ld.%ld.%s", kind,
			    now, (long)ts.tv_nsec, r.email[i]);
			rc = mail_queue_message(st, cfg, r.cid[i], "notice",
			    r.email[i], seed, subj, body.buf, err);
		}
	}
	if (rc == HP_OK)
		rc = store_commit(st, err);
	else
		store_rollback(st);
	if (rc != HP_OK)
		*first = false;
	else if (*first) {
		log_msg(LOG_LVL_ERR, "%s: %s (%d moderator%s told)", subject,
		    error, r.n, r.n == 1 ? "" : "s");
		if (r.n == 0)
			log_warn("%s: there is no moderator to tell", subject);
	}
	free(r.email);
	free(r.cid);
	sbuf_free(&body);
	return rc;
}

int
fault_clear(struct store *st, const char *kind, bool *was,
    struct hp_error *err)
{
	return store_fault_clear(st, kind, was, err);
}
