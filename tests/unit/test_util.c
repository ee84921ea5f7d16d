/* test_util: the durable write helper refuses to be steered by files an
 * attacker planted at its old predictable temporary name (a symlink to
 * another file, a 0666 file), and the log escapes control bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hexpost.h"
#include "log.h"

/* A fresh temporary directory; the caller removes it with rm -rf. */
static char *
tmpdir(void)
{
	char *d = strdup("/tmp/hp-test-util.XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

/* Remove directory d and what is in it. */
static void
rmrf(char *d)
{
	char cmd[512];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
	assert_int_equal(system(cmd), 0);
	free(d);
}

/* The whole content of path (caller frees). */
static char *
slurp(const char *path)
{
	struct hp_error err = { 0, "" };
	char *t = util_read_file(path, NULL, &err);

	assert_non_null(t);
	return t;
}

/* A symlink planted where the helper used to put its temporary file must
 * not make it write through the link into another file. */
static void
test_atomic_planted_symlink(void **state)
{
	struct hp_error err = { 0, "" };
	char *d = tmpdir(), victim[256], target[256], planted[320];
	char *t;
	FILE *f;

	(void)state;
	snprintf(victim, sizeof victim, "%s/victim", d);
	snprintf(target, sizeof target, "%s/hexpost.conf", d);
	snprintf(planted, sizeof planted, "%s.tmp.%ld", target,
	    (long)getpid());
	assert_non_null(f = fopen(victim, "w"));
	fputs("precious\n", f);
	fclose(f);
	assert_int_equal(symlink(victim, planted), 0);
	assert_int_equal(util_write_file_atomic(target, "new\n", 4, 0600,
	    &err), HP_OK);
	t = slurp(victim);
	assert_string_equal(t, "precious\n");
	free(t);
	t = slurp(target);
	assert_string_equal(t, "new\n");
	free(t);
	rmrf(d);
}

/* A 0666 file planted at the old temporary name must not leave the
 * written file readable and writable by everyone. */
static void
test_atomic_planted_mode(void **state)
{
	struct hp_error err = { 0, "" };
	char *d = tmpdir(), target[256], planted[320];
	struct stat sb;
	int fd;

	(void)state;
	snprintf(target, sizeof target, "%s/hexpost.conf", d);
	snprintf(planted, sizeof planted, "%s.tmp.%ld", target,
	    (long)getpid());
	assert_true((fd = open(planted, O_WRONLY | O_CREAT, 0666)) != -1);
	assert_int_equal(fchmod(fd, 0666), 0);
	close(fd);
	assert_int_equal(util_write_file_atomic(target, "x\n", 2, 0600,
	    &err), HP_OK);
	assert_int_equal(lstat(target, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(sb.st_uid, geteuid());
	/* And a mode wider than the umask allows is set exactly. */
	umask(077);
	assert_int_equal(util_write_file_atomic(target, "y\n", 2, 0644,
	    &err), HP_OK);
	assert_int_equal(stat(target, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0644);
	rmrf(d);
}

/* A missing directory is an error with its name, not a crash. */
static void
test_atomic_no_dir(void **state)
{
	struct hp_error err = { 0, "" };

	(void)state;
	assert_int_equal(util_write_file_atomic("/nonexistent-hp/dir/f", "x",
	    1, 0600, &err), HP_EIO);
	assert_non_null(strstr(err.msg, "/nonexistent-hp/dir"));
}

/* Control bytes (an ESC sequence, CR, LF, 8-bit bytes) are escaped in log
 * lines, and a backslash is doubled so the escape is unambiguous. */
static void
test_log_escape(void **state)
{
	char out[128], *d = tmpdir(), path[256], *t;
	int saved, fd;

	(void)state;
	log_escape("From: \x1b[2J\x1b]0;pwn\x07 a\r\nb\\c \xff", out,
	    sizeof out);
	assert_string_equal(out, "From: \\x1b[2J\\x1b]0;pwn\\x07 a\\x0d\\x0ab"
	    "\\\\c \\xff");
	log_escape("abcdef", out, 4);
	assert_string_equal(out, "abc");
	log_escape("\x1b\x1b", out, 6);
	assert_string_equal(out, "\\x1b");
	/* Through log_msg itself, to stderr. */
	snprintf(path, sizeof path, "%s/log", d);
	fflush(stderr);
	saved = dup(2);
	assert_true((fd = open(path, O_WRONLY | O_CREAT, 0600)) != -1);
	dup2(fd, 2);
	close(fd);
	log_msg(LOG_LVL_ERR, "bad mail from %s", "\x1b[31mevil\x1b[0m\n");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	t = slurp(path);
	assert_null(strchr(t, '\x1b'));
	assert_non_null(strstr(t, "bad mail from \\x1b[31mevil\\x1b[0m\\x0a\n"));
	free(t);
	rmrf(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atomic_planted_symlink),
		cmocka_unit_test(test_atomic_planted_mode),
		cmocka_unit_test(test_atomic_no_dir),
		cmocka_unit_test(test_log_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
