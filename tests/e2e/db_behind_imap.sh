#!/bin/bash
# db_behind_imap: a database restored from a copy one pass old, with mail
# fetched over IMAP from a real Dovecot (issue 21, item 4, the IMAP side).
# The restored database's last UID for the mailbox is the old one, so the
# next run fetches by UID again what the lost pass had fetched and marked
# (imap_after = seen or keyword leaves it in the mailbox): the order mail is
# taken in again and answered under the same Message-ID, and a run after
# that takes in nothing. The spool keeps no marked mail to compare, so the
# moderator is told by the data directory's mark (hexpost.mark: the
# database's highest message and outbox row after each pass), which the
# restored database is behind; once.
# Usage: bash db_behind_imap.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
. "$SRC/tests/e2e/lib-servers.sh"
e2e_start db_behind_imap "${1:?usage: db_behind_imap.sh /path/to/hexpost}" \
	minisign sqlite3
e2e_at_exit srv_stop_all
HP_PW=hexpost-pw-$RANDOM$RANDOM
srv_init "$T/srv"
srv_user hexpost@localhost "$HP_PW"
dovecot_start
e2e_datadir
cat >>"$CONF" <<EOF
imap = imap://127.0.0.1:$IMAP_PORT/INBOX
imap_user = hexpost@localhost
imap_starttls = off
imap_after = keyword \$HexpostDone
mail_timeout = 10
EOF
export HEXPOST_IMAP_PASSWORD=$HP_PW
e2e_keys ann
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
q() { sqlite3 "$DB" "$1"; }
hp campaign new hill --ruleset fire-and-movement --seed behind-imap || fail "campaign"
hp player add hill blue --email ann@example.org --name Ann --key "$T/ann.pub" \
	--moderator || fail "player: $(cat "$T/err")"
hp orders template hill --side blue && head -n 4 "$T/out" >"$W/blue.txt" || fail "template"
hp orders suggest hill --side blue && sed '1,4d' "$T/out" >>"$W/blue.txt" || fail "suggest"
behind() { q "SELECT count(*) FROM outbox WHERE kind = 'notice' AND rcpt = 'ann@example.org' AND CAST(data AS TEXT) LIKE '%database was behind the mailbox%'"; }
acks() { grep -l "^In-Reply-To: <blue.1@example.org>" "$D"/outbox/new/* 2>/dev/null | wc -l; }

STEP="pass 1"
hp run --once || fail "run: $(cat "$T/err")"
sqlite3 "$DB" ".backup '$W/backup.db'" || fail "backup"
STEP="pass 2"
signed_mail "$T/ann.key" "$W/blue.txt" "Ann <ann@example.org>" \
	"blue.1@example.org" "orders" "$W/m1.eml" || fail "mail"
srv_put hexpost@localhost "$W/m1.eml"
hp run --once || fail "run: $(cat "$T/err")"
grep -q "mail in: 1 accepted" "$T/out" || fail "not accepted: $(cat "$T/out")"
grep -q "imap: 1 fetched, 1 marked" "$T/out" || fail "not fetched and marked: $(cat "$T/out")"
[ "$(acks)" -eq 1 ] || fail "want 1 acknowledgement"

STEP="restore"
rm -f "$DB-wal" "$DB-shm"
cp "$W/backup.db" "$DB" || fail "restore"
hp run --once || fail "run after the restore: $(cat "$T/err")"
grep -q "mail in: 1 accepted" "$T/out" || fail "not taken in again: $(cat "$T/out")"
[ "$(q "SELECT count(*) FROM messages WHERE outcome = 'accepted'")" -eq 1 ] ||
	fail "not recorded"
[ "$(acks)" -eq 1 ] || fail "the acknowledgement was written again: $(acks)"
grep -q "the database is behind the data directory's mark" "$T/err" ||
	fail "not logged: $(cat "$T/err")"
[ "$(behind)" -eq 1 ] || fail "want 1 notice to the moderator, have $(behind)"
STEP="next run"
hp run --once || fail "run: $(cat "$T/err")"
[ "$(behind)" -eq 1 ] || fail "told again: $(behind)"
grep -q "mail in: 0 accepted, 0 refused, 0 ignored, 0 duplicate" "$T/out" ||
	fail "taken in a second time: $(cat "$T/out")"
echo "db_behind_imap: ok"
