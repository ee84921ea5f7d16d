/* hexpost: common definitions shared by every module. */
#ifndef HEXPOST_H
#define HEXPOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HEXPOST_VERSION "0.1.0"

/* Result codes on the mail and turn paths (never exit() in library code). */
enum hp_err {
	HP_OK = 0,
	HP_EINVAL = -1,   /* bad input from a user: orders, arguments */
	HP_ENOENT = -2,   /* no such campaign, side, player, window */
	HP_ESTATE = -3,   /* not allowed in the current state */
	HP_EDB = -4,      /* SQLite failure */
	HP_EIO = -5,      /* file or system call failure */
	HP_ENOMEM = -6,
	HP_EINTERNAL = -7, /* broken invariant detected without aborting */
	HP_EBUSY = -8     /* err->code only: the database is held by another
	                   * process (the call returns HP_EDB); try again */
};

/* sysexits(3)-style exit codes used by the command line. */
#define EX_OK_ 0
#define HP_EX_USAGE 64
#define HP_EX_DATAERR 65
#define HP_EX_NOINPUT 66
#define HP_EX_SOFTWARE 70
#define HP_EX_CANTCREAT 73
#define HP_EX_IOERR 74
#define HP_EX_TEMPFAIL 75
#define HP_EX_CONFIG 78

/* Error message buffer carried on every fallible call of the turn path. */
#define HP_ERRLEN 512
struct hp_error {
	int code;
	char msg[HP_ERRLEN];
};

/* The sysexits(3) code for an hp_err result (0 for HP_OK). */
int hp_exit_code(int);

void hp_seterr(struct hp_error *, int, const char *, ...)
    __attribute__((format(printf, 3, 4)));

/* Start-up failures and broken invariants only. */
void fatal(const char *, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *, ...) __attribute__((format(printf, 1, 2), noreturn));

enum log_level { LOG_LVL_ERR, LOG_LVL_WARN, LOG_LVL_INFO, LOG_LVL_DEBUG };
void log_set_level(enum log_level);
void log_msg(enum log_level, const char *, ...)
    __attribute__((format(printf, 2, 3)));
#define log_warn(...) log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

/* Growable string buffer; the owner frees buf with sbuf_free. */
struct sbuf {
	char *buf;
	size_t len;
	size_t cap;
	/* Set after sbuf_init: whatever is added is thrown away (text that
	 * nobody reads, such as the normalised orders of a simulation). */
	bool discard;
};
void sbuf_init(struct sbuf *);
void sbuf_add(struct sbuf *, const char *, size_t);
void sbuf_puts(struct sbuf *, const char *);
void sbuf_printf(struct sbuf *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
char *sbuf_steal(struct sbuf *); /* caller owns the result */
void sbuf_free(struct sbuf *);

void *xmalloc(size_t);
void *xcalloc(size_t, size_t);
void *xrealloc(void *, size_t);
char *xstrdup(const char *);
size_t strlcpy_(char *, const char *, size_t);

/* Read a whole file; caller frees. Returns NULL and sets err on failure. */
char *util_read_file(const char *, size_t *, struct hp_error *);
/* The value of the canonical line "KEY: VALUE\n" at *p into buf (len
 * bytes), advancing *p past it; false if *p is not such a line or the
 * value does not fit. */
bool util_field(const char **p, const char *key, char *buf, size_t len);
struct stat;
/* Read a file opened once with O_NOFOLLOW; *sb is fstat of the descriptor
 * read. Caller frees. NULL and err set on failure (a symlink included). */
char *util_read_file_nofollow(const char *, struct stat *sb, size_t *,
    struct hp_error *);
/* HP_OK if dir is a directory owned by the running user (or root) that
 * neither group nor others may write; else an error naming dir and the
 * fix. */
int util_check_private_dir(const char *dir, struct hp_error *);
/* Durable write: a temp file with a random name in the same directory
 * (O_EXCL, O_NOFOLLOW, mode set with fchmod), fsync, renameat, fsync dir. */
int util_write_file_atomic(const char *, const void *, size_t, int mode,
    struct hp_error *);

#endif
