/* libFuzzer harness for the audit bundle loader (audit_bundle). The input
 * is a bundle directory packed as text: each file starts with a line
 * "== NAME" (NAME: letters, digits, '.', '_', '-' and '/', no "..", at most
 * 200 bytes), its content the lines up to the next such line; the files are
 * written under a private temporary directory, audited, and removed.
 * Checked on every run: the loader never crashes (ASan, UBSan), returns
 * HP_OK or an error with a message, and a bundle that verifies checked at
 * least one window. */
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char top[64];

/* nftw callback: remove one entry. */
static int
rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	return remove(p);
}

/* Whether name is a safe relative path for a bundle file. */
static int
name_ok(const char *n, size_t len)
{
	size_t i;

	if (len == 0 || len > 200 || n[0] == '/' || n[len - 1] == '/')
		return 0;
	for (i = 0; i < len; i++)
		if (!((n[i] >= 'a' && n[i] <= 'z') || (n[i] >= 'A' &&
		    n[i] <= 'Z') || (n[i] >= '0' && n[i] <= '9') ||
		    strchr("._-/", n[i]) != NULL) || n[i] == '\0')
			return 0;
	return memmem(n, len, "..", 2) == NULL && memmem(n, len, "//", 2) ==
	    NULL;
}

/* Create dir/name's parent directories and write the file. */
static void
put(const char *dir, const char *name, size_t nlen, const uint8_t *p,
    size_t len)
{
	char path[512];
	FILE *f;
	size_t i;

	snprintf(path, sizeof path, "%s/%.*s", dir, (int)nlen, name);
	for (i = strlen(dir) + 1; path[i] != '\0'; i++)
		if (path[i] == '/') {
			path[i] = '\0';
			(void)mkdir(path, 0700);
			path[i] = '/';
		}
	if ((f = fopen(path, "wb")) == NULL)
		return;	/* e.g. a name that is also a directory */
	if (len > 0)
		fwrite(p, 1, len, f);
	fclose(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hp_error err = { 0, "" };
	struct audit_stats st;
	char dir[128];
	const uint8_t *p = data, *end = data + size, *nl, *name = NULL;
	const uint8_t *body = NULL;
	size_t nlen = 0;
	int files = 0, rc;

	if (top[0] == '\0') {
		strcpy(top, "/tmp/hp-fuzz-bundle.XXXXXX");
		if (mkdtemp(top) == NULL)
			abort();
	}
	snprintf(dir, sizeof dir, "%s/b", top);
	if (mkdir(dir, 0700) == -1)
		abort();
	/* Split into files at lines starting "== ". */
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if (nl - p >= 3 && memcmp(p, "== ", 3) == 0) {
			if (name != NULL && files < 400)
				put(dir, (const char *)name, nlen, body,
				    (size_t)(p - body));
			files++;
			name = p + 3;
			nlen = (size_t)(nl - name);
			body = nl < end ? nl + 1 : end;
			if (!name_ok((const char *)name, nlen))
				name = NULL;
		}
		p = nl < end ? nl + 1 : end;
	}
	if (name != NULL && files <= 400)
		put(dir, (const char *)name, nlen, body, (size_t)(end - body));
	rc = audit_bundle(dir, NULL, &st, &err);
	if (rc == HP_OK && st.windows < 1)
		abort();
	if (rc != HP_OK && err.msg[0] == '\0')
		abort();
	if (nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		abort();
	return 0;
}
