/* engine: hooks the upper layers onto the lower (see include/engine.h). */
#include "absence.h"
#include "deadline.h"
#include "engine.h"
#include "mail.h"
#include "mapout.h"
#include "report.h"
#include "serverkey.h"
#include "turn.h"

/* Every window's deadline clock starts when it opens; its reports are
 * rendered and stored when it is resolved. */
static const struct turn_observer observer = {
	deadline_window_opened, report_render
};
/* Absences fill the windows of players away; missed windows are counted
 * when a window is resolved (absence.h). */
static const struct turn_observer club = {
	absence_window_opened, absence_window_resolved
};

/* Each resolved window's picture data, for the web archive (issue 18). */
static const struct turn_observer pictures = {
	NULL, mapout_window_resolved
};

/* Register the hooks (engine.h). */
void
engine_init(void)
{
	turn_observe(&observer);
	turn_observe(&club);
	turn_observe(&pictures);
	serverkey_set_notify(mail_queue_key_rotation);
}
