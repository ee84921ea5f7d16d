/* orders: the plain-text order file format shared by every ruleset. A file
 * starts with header lines ("campaign:", "turn:", "window:", "side:" and
 * optionally "nonce:"), then the ruleset's own order lines. Blank lines and
 * '#' comments are allowed anywhere. */
#ifndef ORDERS_H
#define ORDERS_H

#include <stddef.h>

#include "hexpost.h"

#define ORDERS_MAX_BYTES (64 * 1024)
#define ORDERS_MAX_LINES 2000
#define ORDERS_MAX_WORDS 16
#define ORDERS_WORD_MAX 64

struct order_error {
	int line;        /* 1-based line of the file, 0 for the whole file */
	char msg[200];
};

struct order_errors {
	struct order_error *v;
	size_t n;
	size_t cap;
};

struct order_line {
	int lineno;                 /* line number in the file */
	int nwords;
	char words[ORDERS_MAX_WORDS][ORDERS_WORD_MAX]; /* lower-cased */
	char text[256];             /* the line as written, trimmed */
};

struct order_body {
	struct order_line *v;
	size_t n;
};

struct order_header {
	char campaign[64];
	int turn;
	char window[32];
	char side[16];
	char nonce[80];
	char chain[65];  /* optional: the seed chain's head, 64 hex digits, as
	                  * the player got it (docs/AUDIT.md, "Order file
	                  * headers") */
	int have;        /* bitmask of ORDERS_H_* seen */
	long long sequence; /* standing orders' "sequence:" (0: none) */
	int sequence_line;  /* its line number */
};
#define ORDERS_H_CAMPAIGN 1
#define ORDERS_H_TURN 2
#define ORDERS_H_WINDOW 4
#define ORDERS_H_SIDE 8
#define ORDERS_H_NONCE 16
#define ORDERS_H_CHAIN 32
#define ORDERS_H_SEQUENCE 64  /* standing orders only (docs/AUDIT.md) */

void orders_errors_init(struct order_errors *);
void orders_errors_free(struct order_errors *);
void orders_error(struct order_errors *, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* All errors as "line N: msg" lines; caller frees. */
char *orders_errors_text(const struct order_errors *);

/* Split a whole order file into header and body. Checks size, NUL bytes,
 * UTF-8, line lengths, header syntax and that the four required headers
 * are present. Errors go to errs; returns HP_OK or HP_EINVAL. body is
 * freed with orders_body_free. */
int orders_parse_file(const char *text, size_t len, struct order_header *,
    struct order_body *, struct order_errors *);
void orders_body_free(struct order_body *);

/* Helpers for ruleset parsers. */
int orders_parse_int(const char *, int lo, int hi, int *out);

#endif
