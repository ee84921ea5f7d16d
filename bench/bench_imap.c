/* bench_imap: the timed part of bench/bench_imap.sh. Usage: bench_imap
 * CONFIG EXPECTED. With the configuration's IMAP mailbox (prepared by the
 * script: EXPECTED signed order mails in a local Dovecot), times what
 * 'hexpost run --once' does to take mail in: fetch_imap_run (UID FETCH in
 * batches into the spool Maildir, each file fsynced), intake_run (MIME,
 * signatures, orders, acknowledgements queued, one transaction per 100
 * messages) and fetch_imap_mark (\Seen set on the server, spool emptied).
 * Prints each phase and, last, "seconds S" for the script. Exit status 70
 * if not every message was fetched and accepted (the figure would not
 * measure the real path). */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "config.h"
#include "engine.h"
#include "fetch_imap.h"
#include "hexpost.h"
#include "intake.h"
#include "store.h"

int
main(int argc, char **argv)
{
	struct config cfg;
	struct hp_error err = { 0, "" };
	struct fetch_imap_stats fs, ms;
	struct intake_stats is;
	struct store *st;
	double t0, t1, t2, t3;
	int want, rc = 0;

	if (argc != 3 || (want = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: bench_imap CONFIG EXPECTED\n");
		return 64;
	}
	if (sodium_init() < 0)
		return 70;
	engine_init();
	if (config_load(&cfg, argv[1], &err) != HP_OK ||
	    store_open(&st, cfg.database, false, &err) != HP_OK) {
		fprintf(stderr, "bench_imap: %s\n", err.msg);
		return 78;
	}
	t0 = bench_now();
	if (fetch_imap_run(st, &cfg, &fs, &err) != HP_OK)
		goto fail;
	t1 = bench_now();
	if (intake_run(st, &cfg, &is, &err) != HP_OK)
		goto fail;
	t2 = bench_now();
	if (fetch_imap_mark(st, &cfg, &ms, &err) != HP_OK)
		goto fail;
	t3 = bench_now();
	printf("  fetch   %4d messages  %7.3f s  (UID FETCH in batches of %d, "
	    "into the spool)\n", fs.fetched, t1 - t0, cfg.imap_batch);
	printf("  intake  %4d accepted  %7.3f s  (rejected %d, ignored %d, "
	    "duplicate %d, deferred %d)\n", is.n[INTAKE_ACCEPTED], t2 - t1,
	    is.n[INTAKE_REJECTED], is.n[INTAKE_IGNORED],
	    is.n[INTAKE_DUPLICATE], is.deferred);
	printf("  mark    %4d messages  %7.3f s  (\\Seen on the server, spool "
	    "emptied)\n", ms.marked, t3 - t2);
	printf("seconds %.6f\n", t3 - t0);
	if (fs.fetched != want || is.n[INTAKE_ACCEPTED] != want ||
	    ms.marked != want) {
		fprintf(stderr, "bench_imap: expected %d messages fetched, "
		    "accepted and marked\n", want);
		rc = 70;
	}
	store_close(st);
	config_free(&cfg);
	return rc;
fail:
	fprintf(stderr, "bench_imap: %s\n", err.msg);
	store_close(st);
	config_free(&cfg);
	return 70;
}
