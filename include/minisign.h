/* minisign: public keys, signatures and verification in the format of the
 * minisign(1) tool, with which players sign their order files; and a key
 * pair and signatures for the server itself (unencrypted secret key, as
 * `minisign -G -W` writes). */
#ifndef MINISIGN_H
#define MINISIGN_H

#include <stddef.h>

#include "hexpost.h"

#define MINISIGN_KEYID_LEN 8

struct minisign_pubkey {
	unsigned char keyid[8];
	unsigned char pk[32];
	char comment[256]; /* the untrusted comment, "" for a bare key */
};

struct minisign_sig {
	char alg[3]; /* "Ed" (legacy) or "ED" (prehashed with BLAKE2b-512) */
	unsigned char keyid[8];
	unsigned char sig[64];
	char trusted[1024];
	unsigned char global_sig[64];
	char untrusted[256]; /* cut at a UTF-8 character if longer */
};

/* Parse a public key file's text (also accept the bare base64 line, as
 * `minisign -P` takes). */
int minisign_pubkey_parse(
    const char *text, size_t len, struct minisign_pubkey *, struct hp_error *);
/* Parse a signature file's text (.minisig). */
int minisign_sig_parse(
    const char *text, size_t len, struct minisign_sig *, struct hp_error *);
/* Verify msg against sig with key: the key id first, then the signature
 * over the message (prehashed with BLAKE2b-512 for "ED"), then the global
 * signature over sig || trusted comment. HP_EINVAL with a message saying
 * which check failed. */
int minisign_verify(const struct minisign_pubkey *, const struct minisign_sig *,
    const unsigned char *msg, size_t len, struct hp_error *);
/* Key id as 16 uppercase hex digits, as minisign prints it. buf >= 17;
 * returns buf. */
char *minisign_keyid_hex(const unsigned char keyid[8], char *buf);
/* Write a new key pair for the server: the secret key file (mode 0600,
 * unencrypted, as `minisign -G -W` writes it) and the public key file
 * (comment NULL for minisign's "minisign public key <ID>"). Refuses to
 * overwrite either file. */
int minisign_keygen(const char *seckey_path, const char *pubkey_path,
    const char *comment, struct hp_error *);
/* Sign msg with an unencrypted secret key file: a prehashed ("ED")
 * signature file's text, with trusted_comment (NULL or "" for
 * "timestamp:<now>\thashed"). *sigtext is the caller's to free. */
int minisign_sign_file_text(const char *seckey_path, const unsigned char *msg,
    size_t len, const char *trusted_comment, char **sigtext, struct hp_error *);

/* A server secret key held in sodium_malloc memory (read-only). */
struct minisign_seckey;
/* Load an unencrypted secret key file; *out is the caller's, to release
 * with minisign_seckey_free (which wipes it). */
int minisign_seckey_load(const char *path, struct minisign_seckey **out,
    struct hp_error *);
/* The same for a key that must be private: no symlink, mode without group
 * or other bits, owned by the running user, all checked on the descriptor
 * it is read from. */
int minisign_seckey_load_private(const char *path,
    struct minisign_seckey **out, struct hp_error *);
void minisign_seckey_free(struct minisign_seckey *);
/* The public half of a loaded key (comment empty). */
void minisign_seckey_pubkey(const struct minisign_seckey *,
    struct minisign_pubkey *);
/* minisign_sign_file_text with a loaded key. */
int minisign_sign_text(const struct minisign_seckey *, const unsigned char *msg,
    size_t len, const char *trusted_comment, char **sigtext, struct hp_error *);

/* The text of a minisign public key file for pk (the two lines minisign
 * -G writes) into buf of len bytes (120 are enough). */
void minisign_pubkey_text(const struct minisign_pubkey *pk, char *buf,
    size_t len);

#endif
