/* mailpref: per-campaign and per-player report mail contents (see
 * include/mailpref.h). */
#include <sqlite3.h>
#include <string.h>

#include "mailpref.h"

bool
mailpref_parse(const char *name, enum mailpref_item *it)
{
	if (strcmp(name, "picture-mail") == 0 || strcmp(name, "picture") == 0)
		*it = MAILPREF_PICTURE;
	else if (strcmp(name, "json-mail") == 0 || strcmp(name, "json") == 0)
		*it = MAILPREF_JSON;
	else
		return false;
	return true;
}

int
mailpref_set(struct store *st, int64_t cid, const char *player,
    enum mailpref_item it, bool on, struct hp_error *err)
{
	const char *sql = it == MAILPREF_PICTURE ?
	    "INSERT INTO mail_prefs (campaign_id, player, picture) "
	    "VALUES (?1, ?2, ?3) ON CONFLICT (campaign_id, player) "
	    "DO UPDATE SET picture = ?3" :
	    "INSERT INTO mail_prefs (campaign_id, player, json) "
	    "VALUES (?1, ?2, ?3) ON CONFLICT (campaign_id, player) "
	    "DO UPDATE SET json = ?3";

	return store_exec(st, "mail_prefs set", sql, STORE_ARGS(STORE_INT(cid),
	    STORE_TEXT(player != NULL ? player : ""), STORE_INT(on ? 1 : 0)),
	    NULL, err);
}

bool
mailpref_get(struct store *st, int64_t cid, const char *player,
    enum mailpref_item it)
{
	struct store_query q;
	struct hp_error err = { 0, "" };
	int v = -1, best = -1;
	const char *sql = it == MAILPREF_PICTURE ?
	    "SELECT player, picture FROM mail_prefs WHERE campaign_id = ?1 "
	    "AND (player = '' OR player = ?2)" :
	    "SELECT player, json FROM mail_prefs WHERE campaign_id = ?1 "
	    "AND (player = '' OR player = ?2)";

	if (store_query_open(&q, st, "mail_prefs get", sql,
	    STORE_ARGS(STORE_INT(cid), STORE_TEXT(player != NULL ? player :
	    "")), &err) != HP_OK)
		return it == MAILPREF_PICTURE;
	while (store_query_next(&q, &err)) {
		const unsigned char *p = sqlite3_column_text(q.s, 0);

		if (sqlite3_column_type(q.s, 1) == SQLITE_NULL)
			continue;
		if (p != NULL && *p != '\0')
			best = sqlite3_column_int(q.s, 1);
		else
			v = sqlite3_column_int(q.s, 1);
	}
	(void)store_query_close(&q, &err);
	if (best >= 0)
		return best != 0;
	if (v >= 0)
		return v != 0;
	return it == MAILPREF_PICTURE;
}
