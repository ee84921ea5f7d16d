/* engine: hooks the upper layers onto the lower (see include/engine.h). */
#include "engine.h"
#include "mail.h"
#include "serverkey.h"

/* Register the hooks (engine.h). */
void
engine_init(void)
{
	serverkey_set_notify(mail_queue_key_rotation);
}
