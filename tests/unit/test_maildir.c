/* test_maildir: the Maildir format. Creation and permissions, delivery
 * (unique names, name hints, idempotence), listing (order, crash recovery,
 * what is ignored), reading (size limit) and marking (flags, idempotence). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hexpost.h"
#include "fixtures.h"
#include "maildir.h"

struct md {
	char top[512];   /* the mkdtemp directory, removed at the end */
	char dir[600];   /* the Maildir inside it */
};

static int
setup(void **state)
{
	struct md *m = xcalloc(1, sizeof *m);
	struct hp_error err = { 0, "" };

	fx_mkdtemp(m->top, sizeof m->top, "maildir");
	snprintf(m->dir, sizeof m->dir, "%s/mail", m->top);
	assert_int_equal(maildir_create(m->dir, &err), HP_OK);
	*state = m;
	return 0;
}

static int
teardown(void **state)
{
	struct md *m = *state;

	fx_rmtree(m->top);
	free(m);
	return 0;
}

/* dir/sub/name as a static string (one at a time). */
static const char *
at(const struct md *m, const char *sub, const char *name)
{
	static char p[1024];

	snprintf(p, sizeof p, "%s/%s/%s", m->dir, sub, name);
	return p;
}

static void
put(const struct md *m, const char *sub, const char *name, const char *text)
{
	FILE *f = fopen(at(m, sub, name), "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static bool
exists(const struct md *m, const char *sub, const char *name)
{
	struct stat st;

	return lstat(at(m, sub, name), &st) == 0;
}

/* Number of non-dot entries in dir/sub. */
static int
count(const struct md *m, const char *sub)
{
	char p[1024];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(p, sizeof p, "%s/%s", m->dir, sub);
	assert_non_null(d = opendir(p));
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* The only non-dot name in dir/sub (static). */
static const char *
only(const struct md *m, const char *sub)
{
	static char name[512];
	char p[1024];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(p, sizeof p, "%s/%s", m->dir, sub);
	assert_non_null(d = opendir(p));
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.') {
			strlcpy_(name, de->d_name, sizeof name);
			n++;
		}
	closedir(d);
	assert_int_equal(n, 1);
	return name;
}

static void
deliver(const struct md *m, const char *hint, const char *text)
{
	struct hp_error err = { 0, "" };
	bool existed = true;

	assert_int_equal(maildir_deliver(m->dir, hint, text, strlen(text),
	    &existed, NULL, &err), HP_OK);
	assert_false(existed);
}

static void
test_create(void **state)
{
	struct md *m = *state;
	struct hp_error err = { 0, "" };
	const char *subs[] = { "", "/tmp", "/new", "/cur" };
	char p[1024];
	struct stat st;
	size_t i;

	for (i = 0; i < 4; i++) {
		snprintf(p, sizeof p, "%s%s", m->dir, subs[i]);
		assert_int_equal(stat(p, &st), 0);
		assert_true(S_ISDIR(st.st_mode));
		assert_int_equal(st.st_mode & 07777, 0700);
	}
	/* Again: nothing to do. With a trailing slash too. */
	assert_int_equal(maildir_create(m->dir, &err), HP_OK);
	snprintf(p, sizeof p, "%s/", m->dir);
	assert_int_equal(maildir_create(p, &err), HP_OK);
	/* A missing parent, a file in the way: errors naming the path. */
	snprintf(p, sizeof p, "%s/no/such", m->top);
	assert_int_equal(maildir_create(p, &err), HP_EIO);
	assert_non_null(strstr(err.msg, p));
	assert_non_null(strstr(err.msg, strerror(ENOENT)));
	put(m, "tmp", "file", "x");
	snprintf(p, sizeof p, "%s/tmp/file", m->dir);
	assert_int_equal(maildir_create(p, &err), HP_EIO);
	assert_non_null(strstr(err.msg, p));
	/* A Maildir missing one subdirectory is completed. */
	snprintf(p, sizeof p, "%s/cur", m->dir);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(maildir_create(m->dir, &err), HP_OK);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
}

static void
test_deliver_list(void **state)
{
	struct md *m = *state;
	struct hp_error err = { 0, "" };
	struct maildir_entry *v;
	const char *texts[] = { "first\n", "second\n", "third\n" };
	char *path = NULL, *host, want[64];
	unsigned char *data;
	size_t n, len, i;
	bool existed;

	for (i = 0; i < 3; i++) {
		assert_int_equal(maildir_deliver(m->dir, NULL, texts[i],
		    strlen(texts[i]), &existed, i == 0 ? &path : NULL, &err),
		    HP_OK);
		assert_false(existed);
	}
	assert_int_equal(count(m, "tmp"), 0);
	assert_int_equal(count(m, "new"), 3);
	assert_non_null(path);
	assert_non_null(strstr(path, "/new/"));

	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].path, path);
	for (i = 0; i < n; i++) {
		assert_true(v[i].in_new);
		assert_string_equal(v[i].flags, "");
		/* time.M<usec>P<pid>Q<counter>.<host> */
		snprintf(want, sizeof want, "P%ldQ", (long)getpid());
		assert_non_null(strstr(v[i].name, ".M"));
		assert_non_null(strstr(v[i].name, want));
		host = strchr(strstr(v[i].name, want), '.');
		assert_non_null(host);
		assert_true(host[1] != '\0');
		assert_null(strchr(v[i].name, ':'));
		assert_null(strchr(v[i].name, '/'));
		data = maildir_read(&v[i], 1024, &len, &err);
		assert_non_null(data);
		assert_int_equal(len, strlen(texts[i]));
		assert_memory_equal(data, texts[i], len);
		assert_int_equal(data[len], '\0');
		free(data);
	}
	maildir_list_free(v, n);
	free(path);

	/* Order is by name, digit runs as numbers (delivery order). */
	deliver(m, "1700000010.M5P9Q10.h", "d");
	deliver(m, "1700000010.M5P9Q9.h", "c");
	deliver(m, "1700000009.M999999P9Q1.h", "b");
	deliver(m, "999999999.M1P1Q1.h", "a");
	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 7);
	assert_string_equal(v[0].name, "999999999.M1P1Q1.h");
	assert_string_equal(v[1].name, "1700000009.M999999P9Q1.h");
	assert_string_equal(v[2].name, "1700000010.M5P9Q9.h");
	assert_string_equal(v[3].name, "1700000010.M5P9Q10.h");
	maildir_list_free(v, n);

	/* An empty message. */
	assert_int_equal(maildir_deliver(m->dir, "empty", "", 0, NULL, NULL,
	    &err), HP_OK);
	assert_true(exists(m, "new", "empty"));
}

static void
test_mark(void **state)
{
	struct md *m = *state;
	struct hp_error err = { 0, "" };
	struct maildir_entry *v, *w;
	char want[512];
	size_t n, nw;

	deliver(m, NULL, "hello\n");
	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 1);
	assert_int_equal(maildir_mark(m->dir, &v[0], 'S', &err), HP_OK);
	assert_int_equal(count(m, "new"), 0);
	snprintf(want, sizeof want, "%s:2,S", v[0].name);
	assert_string_equal(only(m, "cur"), want);
	assert_int_equal(maildir_list(m->dir, 'S', &w, &nw, &err), HP_OK);
	assert_int_equal(nw, 0);
	assert_null(w);
	/* Again, with the stale entry (the rename already happened). */
	assert_int_equal(maildir_mark(m->dir, &v[0], 'S', &err), HP_OK);
	assert_string_equal(only(m, "cur"), want);
	/* Under another flag it is still waiting: mark it with T. */
	assert_int_equal(maildir_list(m->dir, 'T', &w, &nw, &err), HP_OK);
	assert_int_equal(nw, 1);
	assert_false(w[0].in_new);
	assert_string_equal(w[0].name, want);
	assert_string_equal(w[0].flags, "S");
	assert_int_equal(maildir_mark(m->dir, &w[0], 'T', &err), HP_OK);
	assert_int_equal(maildir_mark(m->dir, &w[0], 'T', &err), HP_OK);
	snprintf(want, sizeof want, "%s:2,ST", v[0].name);
	assert_string_equal(only(m, "cur"), want);
	/* The stale new/ entry: cur/ holds it with S (and T). */
	assert_int_equal(maildir_mark(m->dir, &v[0], 'S', &err), HP_OK);
	assert_string_equal(only(m, "cur"), want);
	maildir_list_free(w, nw);
	maildir_list_free(v, n);

	/* Gone altogether: an error naming the path. */
	deliver(m, "lost", "x");
	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 1);
	assert_int_equal(unlink(v[0].path), 0);
	assert_int_equal(maildir_mark(m->dir, &v[0], 'S', &err), HP_EIO);
	assert_non_null(strstr(err.msg, v[0].path));
	assert_non_null(strstr(err.msg, strerror(ENOENT)));
	/* Bad flags. */
	assert_int_equal(maildir_mark(m->dir, &v[0], ':', &err), HP_EINVAL);
	assert_int_equal(maildir_mark(m->dir, &v[0], '\0', &err), HP_EINVAL);
	maildir_list_free(v, n);
	assert_int_equal(maildir_list(m->dir, '/', &v, &n, &err), HP_EINVAL);
}

/* The messages taken in before (flag S) are listed by
 * maildir_list_flagged, in order, and maildir_unmark takes the flag off
 * (others kept), so maildir_list lists the message again (issue 21, item
 * 4: a database restored from a backup). */
static void
test_flagged_unmark(void **state)
{
	struct md *m = *state;
	struct hp_error err = { 0, "" };
	struct maildir_entry *v, *w;
	size_t n, nw;

	deliver(m, "m1", "one\n");
	deliver(m, "m2", "two\n");
	deliver(m, "m3", "three\n");
	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 3);
	assert_int_equal(maildir_mark(m->dir, &v[0], 'S', &err), HP_OK);
	assert_int_equal(maildir_mark(m->dir, &v[2], 'S', &err), HP_OK);
	maildir_list_free(v, n);
	put(m, "cur", "m4:2,FS", "four\n");
	assert_int_equal(maildir_list_flagged(m->dir, 'S', &w, &nw, &err),
	    HP_OK);
	assert_int_equal(nw, 3);
	assert_string_equal(w[0].name, "m1:2,S");
	assert_string_equal(w[1].name, "m3:2,S");
	assert_string_equal(w[2].name, "m4:2,FS");
	assert_int_equal(maildir_unmark(m->dir, &w[1], 'S', &err), HP_OK);
	assert_int_equal(maildir_unmark(m->dir, &w[2], 'S', &err), HP_OK);
	assert_true(exists(m, "cur", "m3:2,"));
	assert_true(exists(m, "cur", "m4:2,F"));
	maildir_list_free(w, nw);
	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].name, "m2");
	assert_string_equal(v[1].name, "m3:2,");
	assert_string_equal(v[2].name, "m4:2,F");
	maildir_list_free(v, n);
	/* Gone meanwhile: an error naming it. */
	assert_int_equal(maildir_list_flagged(m->dir, 'S', &w, &nw, &err),
	    HP_OK);
	assert_int_equal(nw, 1);
	assert_int_equal(unlink(w[0].path), 0);
	assert_int_equal(maildir_unmark(m->dir, &w[0], 'S', &err), HP_EIO);
	assert_non_null(strstr(err.msg, "m1:2,S"));
	maildir_list_free(w, nw);
	assert_int_equal(maildir_list_flagged(m->dir, ':', &w, &nw, &err),
	    HP_EINVAL);
}

/* A crash after moving to cur/ but before flagging loses nothing. */
static void
test_crash_recovery(void **state)
{
	struct md *m = *state;
	struct hp_error err = { 0, "" };
	struct maildir_entry *v;
	size_t n;

	put(m, "cur", "100.M1P1Q1.h", "a");         /* no info at all */
	put(m, "cur", "101.M1P1Q1.h:2,", "b");      /* empty flags */
	put(m, "cur", "102.M1P1Q1.h:2,RS", "c");    /* done */
	put(m, "new", "103.M1P1Q1.h", "d");
	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].name, "100.M1P1Q1.h");
	assert_false(v[0].in_new);
	assert_string_equal(v[1].name, "101.M1P1Q1.h:2,");
	assert_false(v[1].in_new);
	assert_string_equal(v[2].name, "103.M1P1Q1.h");
	assert_true(v[2].in_new);
	assert_int_equal(maildir_mark(m->dir, &v[0], 'S', &err), HP_OK);
	assert_int_equal(maildir_mark(m->dir, &v[1], 'S', &err), HP_OK);
	assert_true(exists(m, "cur", "100.M1P1Q1.h:2,S"));
	assert_true(exists(m, "cur", "101.M1P1Q1.h:2,S"));
	assert_false(exists(m, "cur", "100.M1P1Q1.h"));
	assert_false(exists(m, "cur", "101.M1P1Q1.h:2,"));
	maildir_list_free(v, n);
	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 1);
	maildir_list_free(v, n);
}

/* Existing flags are kept, and written sorted and once each. */
static void
test_flags_sorted(void **state)
{
	struct md *m = *state;
	struct hp_error err = { 0, "" };
	struct maildir_entry *v;
	size_t n;

	put(m, "cur", "x:2,F", "x");
	put(m, "cur", "y:2,TRR", "y");
	put(m, "cur", "z:2,aF", "z");
	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].name, "x:2,F");
	assert_string_equal(v[0].flags, "F");
	assert_string_equal(v[1].flags, "RT");
	assert_string_equal(v[2].flags, "Fa");
	assert_int_equal(maildir_mark(m->dir, &v[0], 'S', &err), HP_OK);
	assert_int_equal(maildir_mark(m->dir, &v[1], 'S', &err), HP_OK);
	assert_int_equal(maildir_mark(m->dir, &v[2], 'S', &err), HP_OK);
	maildir_list_free(v, n);
	assert_true(exists(m, "cur", "x:2,FS"));
	assert_true(exists(m, "cur", "y:2,RST"));
	assert_true(exists(m, "cur", "z:2,FSa"));
	assert_int_equal(count(m, "cur"), 3);
	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 0);
}

static void
test_hint_idempotent(void **state)
{
	struct md *m = *state;
	struct hp_error err = { 0, "" };
	struct maildir_entry *v;
	const char *bad[] = { "", "a/b", "a:2,S", ".hidden", "tab\there" };
	char *path = NULL, big[300];
	bool existed;
	size_t n, i;

	assert_int_equal(maildir_deliver(m->dir, "turn-3-blue", "one", 3,
	    &existed, &path, &err), HP_OK);
	assert_false(existed);
	assert_string_equal(path, at(m, "new", "turn-3-blue"));
	free(path);
	assert_int_equal(maildir_deliver(m->dir, "turn-3-blue", "two", 3,
	    &existed, &path, &err), HP_OK);
	assert_true(existed);
	assert_string_equal(path, at(m, "new", "turn-3-blue"));
	free(path);
	assert_string_equal(only(m, "new"), "turn-3-blue");
	assert_int_equal(count(m, "tmp"), 0);

	/* Still there once processed (in cur/ with flags). */
	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 1);
	assert_int_equal(maildir_mark(m->dir, &v[0], 'S', &err), HP_OK);
	maildir_list_free(v, n);
	assert_int_equal(maildir_deliver(m->dir, "turn-3-blue", "three", 5,
	    &existed, &path, &err), HP_OK);
	assert_true(existed);
	assert_string_equal(path, at(m, "cur", "turn-3-blue:2,S"));
	free(path);
	assert_int_equal(count(m, "new"), 0);
	assert_int_equal(count(m, "cur"), 1);

	/* The first content is the one kept. */
	assert_int_equal(maildir_list(m->dir, 'T', &v, &n, &err), HP_OK);
	assert_int_equal(n, 1);
	{
		size_t len;
		unsigned char *d = maildir_read(&v[0], 100, &len, &err);

		assert_non_null(d);
		assert_int_equal(len, 3);
		assert_memory_equal(d, "one", 3);
		free(d);
	}
	maildir_list_free(v, n);

	/* A prefix of an existing name is another message. */
	deliver(m, "turn-3", "other");
	assert_true(exists(m, "new", "turn-3"));

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(maildir_deliver(m->dir, bad[i], "x", 1,
		    &existed, NULL, &err), HP_EINVAL);
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	assert_int_equal(maildir_deliver(m->dir, big, "x", 1, &existed,
	    NULL, &err), HP_EINVAL);
	assert_int_equal(count(m, "tmp"), 0);
}

static void
test_tmp_ignored(void **state)
{
	struct md *m = *state;
	struct hp_error err = { 0, "" };
	struct maildir_entry *v;
	size_t n;

	put(m, "tmp", "1700000000.M1P1Q1.h", "half-written");
	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 0);
	assert_null(v);
}

static void
test_oversized(void **state)
{
	struct md *m = *state;
	struct hp_error err = { 0, "" };
	struct maildir_entry *v;
	unsigned char *d;
	char text[101];
	size_t n, len = 7;

	memset(text, 'x', 100);
	text[100] = '\0';
	deliver(m, "big", text);
	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 1);
	assert_null(maildir_read(&v[0], 99, &len, &err));
	assert_int_equal(err.code, HP_EINVAL);
	assert_non_null(strstr(err.msg, v[0].path));
	assert_non_null(strstr(err.msg, "too large"));
	assert_int_equal(len, 0);
	d = maildir_read(&v[0], 100, &len, &err);
	assert_non_null(d);
	assert_int_equal(len, 100);
	free(d);
	/* Gone: an error naming the path. */
	assert_int_equal(unlink(v[0].path), 0);
	assert_null(maildir_read(&v[0], 100, &len, &err));
	assert_int_equal(err.code, HP_EIO);
	assert_non_null(strstr(err.msg, v[0].path));
	maildir_list_free(v, n);
}

/* Dot-files, directories, FIFOs and symbolic links are not messages. */
static void
test_ignored(void **state)
{
	struct md *m = *state;
	struct hp_error err = { 0, "" };
	struct maildir_entry *v;
	size_t n;

	put(m, "new", ".hidden", "x");
	put(m, "cur", ".x:2,", "x");
	put(m, "new", "real", "x");
	assert_int_equal(mkdir(at(m, "new", "subdir"), 0700), 0);
	assert_int_equal(mkfifo(at(m, "new", "fifo"), 0600), 0);
	assert_int_equal(symlink("real", at(m, "cur", "link")), 0);
	assert_int_equal(maildir_list(m->dir, 'S', &v, &n, &err), HP_OK);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].name, "real");
	maildir_list_free(v, n);
}

static void
test_missing(void **state)
{
	struct md *m = *state;
	struct hp_error err = { 0, "" };
	struct maildir_entry *v;
	char p[1024];
	size_t n;

	snprintf(p, sizeof p, "%s/nowhere", m->top);
	assert_int_equal(maildir_list(p, 'S', &v, &n, &err), HP_EIO);
	assert_non_null(strstr(err.msg, p));
	assert_non_null(strstr(err.msg, strerror(ENOENT)));
	assert_int_equal(maildir_deliver(p, NULL, "x", 1, NULL, NULL, &err),
	    HP_EIO);
	assert_non_null(strstr(err.msg, p));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deliver_list, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mark, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flagged_unmark, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_crash_recovery, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_flags_sorted, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_hint_idempotent, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_tmp_ignored, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_oversized, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
