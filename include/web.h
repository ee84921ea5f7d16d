/* web: the campaign web archive (`hexpost web DIR`, and the daemon after
 * each pass when the configuration sets web_dir). A static site, plain HTML
 * and CSS, no script: DIR/index.html lists the club's campaigns with their
 * state and deadlines; DIR/NAME/index.html shows a campaign: the open
 * window (deadline, commitment, who still owes orders), and every resolved
 * window's public picture (what every side's view has in common), the
 * events every side sees, its commitment and revealed seed, and its signed
 * dice log when every roll in it is shown to every side. After the end the
 * campaign page adds each side's picture and report of every window and
 * the audit bundle. Nothing a side may not see appears before the end.
 * Every file is written durably (temp, fsync, rename). */
#ifndef WEB_H
#define WEB_H

#include "config.h"
#include "store.h"

/* Write (or refresh) the site in dir (created if missing). cfg (may be
 * NULL) gives the deadline defaults and the server's public key. */
int web_write(struct store *, const struct config *cfg, const char *dir,
    struct hp_error *);

#endif
