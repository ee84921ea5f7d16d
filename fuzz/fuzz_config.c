/* libFuzzer harness for the configuration parser (config_load). The input
 * is written as a 0600 configuration file and loaded. Checked on every run:
 * a file that loads has an absolute datadir, every string NUL-terminated
 * within its field, at most CONFIG_MAX_IMAP imap lines, numbers in their
 * ranges, a from with '@', an imap_after folder or keyword of printable
 * ASCII only; one that does not names the file and a line, and says why. */
#include <fcntl.h>
#include <sodium.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char path[96];

/* Whether field (len bytes) is NUL-terminated within itself. */
static int
terminated(const char *field, size_t len)
{
	return memchr(field, '\0', len) != NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hp_error err = { 0, "" };
	struct config c;
	const char *a;
	char prefix[128];
	int fd, i;

	if (path[0] == '\0') {
		char dir[] = "/tmp/hp-fuzz-config.XXXXXX";

		/* As main does: the passwords live in sodium_malloc memory. */
		if (sodium_init() < 0)
			abort();
		if (mkdtemp(dir) == NULL)
			abort();
		snprintf(path, sizeof path, "%s/hexpost.conf", dir);
	}
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
		abort();
	if (size > 0 && write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	if (config_load(&c, path, &err) != HP_OK) {
		snprintf(prefix, sizeof prefix, "%s:", path);
		if (err.code == 0 || strncmp(err.msg, prefix, strlen(prefix)) !=
		    0)
			abort();
		return 0;
	}
	if (!terminated(c.datadir, sizeof c.datadir) || c.datadir[0] != '/' ||
	    !terminated(c.database, sizeof c.database) ||
	    !terminated(c.mailbox, sizeof c.mailbox) ||
	    !terminated(c.outbox, sizeof c.outbox) ||
	    !terminated(c.from, sizeof c.from) || strchr(c.from, '@') == NULL ||
	    !terminated(c.domain, sizeof c.domain) ||
	    !terminated(c.imap_after_arg, sizeof c.imap_after_arg) ||
	    c.nimap < 0 || c.nimap > CONFIG_MAX_IMAP ||
	    c.poll_interval < 1 || c.poll_interval > 86400 ||
	    c.mail_timeout < 1 || c.mail_timeout > 10000 ||
	    c.imap_batch < 1 || c.imap_batch > 10000 ||
	    c.log_level < 0 || c.log_level > 3)
		abort();
	for (a = c.imap_after_arg; *a != '\0'; a++)
		if ((unsigned char)*a < 0x20 || (unsigned char)*a >= 0x7f)
			abort();
	for (i = 0; i < c.nimap; i++)
		if (!terminated(c.imap[i], CONFIG_PATH_MAX))
			abort();
	config_free(&c);
	return 0;
}
