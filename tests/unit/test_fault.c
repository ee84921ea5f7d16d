/* test_fault: faults of the server itself (fault.c). Regression: a fault
 * raised again in the same second as an earlier one of the same kind, after
 * that one was cleared, queued no notice, because both notices' Message-IDs
 * were made from the kind, the second and the address alone (the outbox took
 * the second for a duplicate; e2e_outbox_full failed whenever its disk-full
 * and read-only faults fell in one second). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>

#include "engine.h"
#include "fault.h"
#include "fixtures.h"

/* Raise the outbox fault with error why at now; returns whether it was new. */
static bool
raise_at(struct store *st, const struct config *cfg, long now,
    const char *why)
{
	struct hp_error err = { 0, "" };
	bool first = false;

	assert_int_equal(fault_raise(st, cfg, "outbox", now, why, "the outbox "
	    "cannot be written", "test", &first, &err), HP_OK);
	return first;
}

/* Two faults in one second, cleared between them: two notices. */
static void
test_two_faults_one_second(void **state)
{
	struct hp_error err = { 0, "" };
	struct config cfg;
	const char *path;
	struct store *st;
	int64_t cid;
	bool was;

	(void)state;
	engine_init();
	st = fx_club(&path, &cfg, &cid, NULL, "fault");
	assert_true(raise_at(st, &cfg, 1000, "No space left on device"));
	/* The same fault again is not news. */
	assert_false(raise_at(st, &cfg, 1000, "No space left on device"));
	assert_int_equal(fault_clear(st, "outbox", &was, &err), HP_OK);
	assert_true(was);
	assert_true(raise_at(st, &cfg, 1000, "Read-only file system"));
	assert_int_equal(fault_clear(st, "outbox", &was, &err), HP_OK);
	/* Even the same error again, once cleared, is a new fault. */
	assert_true(raise_at(st, &cfg, 1000, "Read-only file system"));
	assert_int_equal(fx_db_long(path, "SELECT count(*) FROM outbox WHERE "
	    "kind = 'notice' AND rcpt = 'bea@example.org'"), 3);
	store_close(st);
	fx_tmp_clean();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_faults_one_second),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
