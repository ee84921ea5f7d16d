/* serverkey: the server's minisign key pair, which signs every window's
 * dice log. The secret key file must be mode 0600 (no group or other
 * access); loaded, it lives in sodium_malloc memory, read-only, and is
 * wiped when released. */
#ifndef SERVERKEY_H
#define SERVERKEY_H

#include "config.h"
#include "minisign.h"

/* Write a new key pair at the configuration's server_key (mode 0600) and
 * server_pub; refuses to replace an existing key. */
int serverkey_generate(const struct config *, struct hp_error *);
/* Load the secret key at path, refusing a file others can read; *out is
 * the caller's, to release with minisign_seckey_free. */
int serverkey_load(const char *path, struct minisign_seckey **out,
    struct hp_error *);

#endif
