/* serverkey: the server's signing key (see include/serverkey.h). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "serverkey.h"

int
serverkey_generate(const struct config *c, struct hp_error *err)
{
	return minisign_keygen(c->server_key, c->server_pub,
	    "hexpost server key", err);
}

int
serverkey_load(const char *path, struct minisign_seckey **out,
    struct hp_error *err)
{
	struct stat sb;

	*out = NULL;
	if (stat(path, &sb) == -1) {
		hp_seterr(err, HP_EIO, "server key %s: %s (hexpost key generate "
		    "makes one)", path, strerror(errno));
		return HP_EIO;
	}
	if (sb.st_mode & 077) {
		hp_seterr(err, HP_EINVAL, "server key %s: mode %03o lets others "
		    "read it; chmod 600 %s", path, (unsigned)(sb.st_mode & 0777),
		    path);
		return HP_EINVAL;
	}
	return minisign_seckey_load(path, out, err);
}
