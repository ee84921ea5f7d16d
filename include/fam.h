/* fam: the fire-and-movement ruleset (seed 000); its parsed orders are
 * exposed for the unit tests and the built-in opponent. */
#ifndef FAM_H
#define FAM_H

#include <stdbool.h>

#include "game.h"
#include "hex.h"

enum fam_policy {
	FAM_POLICY_NONE,
	FAM_POLICY_BEST,     /* most expected hits */
	FAM_POLICY_NEAREST,  /* the section nearest the hill */
	FAM_POLICY_HOLD
};

struct fam_orders {
	int side;
	bool standing;
	/* Blue */
	int deploy_line[3];      /* line of each section's deploy order, 0 */
	struct hex deploy[3];
	int pc_deploy;           /* section the Pl Comd starts with, -1 */
	int move_line[3];
	struct hex move_to[3];
	int fire_line[3];
	int cmd;                 /* section the Pl Comd goes to, -1 */
	/* Red */
	bool hold;
	bool has_target;
	struct hex target;
	bool has_beaten;
	struct hex beaten;
	int engage_cmd;          /* 1 yes, 0 no, -1 not said */
	enum fam_policy policy;  /* standing orders */
};

void fam_parsed_init(struct fam_orders *);
/* Red's fire for a policy, from the current state. */
void fam_red_choose(const struct game *, int policy, struct fam_orders *);

#endif
