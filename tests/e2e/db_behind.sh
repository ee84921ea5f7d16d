#!/bin/bash
# db_behind: a database restored from a copy one pass old loses no mail
# (issue 21, item 4). Before the fix, mail the inbox had flagged seen in
# the pass the copy missed was never taken in again nor answered, though
# its player had got an acknowledgement. Now each start lists the seen
# messages whose hash (or Message-ID and body) the database does not know,
# tells the moderators once, and takes them in again; the answer goes out
# under the Message-ID it had, so the outbox Maildir gets no second copy.
# The same after a WAL cut at its last checkpoint.
# Usage: bash db_behind.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start db_behind "${1:?usage: db_behind.sh /path/to/hexpost}" minisign sqlite3
e2e_datadir
e2e_keys ann bob
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
q() { sqlite3 "$DB" "$1"; }
hp campaign new hill --ruleset fire-and-movement --seed behind || fail "campaign"
hp player add hill blue --email ann@example.org --name Ann --key "$T/ann.pub" \
	--moderator || fail "player: $(cat "$T/err")"
hp player add hill red --email bob@example.org --name Bob --key "$T/bob.pub" ||
	fail "player: $(cat "$T/err")"
hp orders template hill --side blue && head -n 4 "$T/out" >"$W/blue.txt" || fail "template"
hp orders suggest hill --side blue && sed '1,4d' "$T/out" >>"$W/blue.txt" || fail "suggest"
behind() { q "SELECT count(*) FROM outbox WHERE kind = 'notice' AND CAST(data AS TEXT) LIKE '%database was behind the mailbox%'"; }

STEP="pass 1"
hp run --once || fail "run: $(cat "$T/err")"
sqlite3 "$DB" ".backup '$W/backup.db'" || fail "backup"
STEP="pass 2"
signed_mail "$T/ann.key" "$W/blue.txt" "Ann <ann@example.org>" \
	"blue.1@example.org" "orders" "$W/m1.eml" || fail "mail"
deliver "$D/inbox" "$W/m1.eml" m1
hp run --once || fail "run: $(cat "$T/err")"
grep -q "mail in: 1 accepted" "$T/out" || fail "not accepted: $(cat "$T/out")"
[ -n "$(find "$D/inbox/cur" -name 'm1:2,*S*')" ] || fail "not flagged seen"
ACKS=$(grep -l "^In-Reply-To: <blue.1@example.org>" "$D"/outbox/new/* | wc -l)
[ "$ACKS" -eq 1 ] || fail "want 1 acknowledgement, have $ACKS"

STEP="restore"
rm -f "$DB-wal" "$DB-shm"
cp "$W/backup.db" "$DB" || fail "restore"
[ "$(q "SELECT count(*) FROM messages")" -eq 0 ] || fail "the copy is not one pass old"
hp run --once || fail "run after the restore: $(cat "$T/err")"
grep -q "mail in: 1 accepted" "$T/out" || fail "the seen message was not taken in again: $(cat "$T/out")"
grep -q "flagged seen in .* but unknown to the database taken in again" "$T/err" ||
	fail "not logged: $(cat "$T/err")"
[ "$(q "SELECT count(*) FROM messages WHERE outcome = 'accepted'")" -eq 1 ] ||
	fail "not recorded: $(q "SELECT outcome, detail FROM messages")"
[ "$(q "SELECT count(*) FROM orders o JOIN windows w ON w.id = o.window_id")" -ge 1 ] ||
	fail "no orders in the database"
[ "$(behind)" -eq 1 ] || fail "want 1 notice to the moderator, have $(behind)"
[ "$(q "SELECT rcpt FROM outbox WHERE kind = 'notice' AND CAST(data AS TEXT) LIKE '%database was behind%'")" = ann@example.org ] ||
	fail "the notice went elsewhere"
ACKS=$(grep -l "^In-Reply-To: <blue.1@example.org>" "$D"/outbox/new/* | wc -l)
[ "$ACKS" -eq 1 ] || fail "the acknowledgement was written again: $ACKS"

STEP="next start"
hp run --once || fail "run: $(cat "$T/err")"
grep -q "mail in: 0 accepted" "$T/out" || fail "taken in a second time: $(cat "$T/out")"
[ "$(behind)" -eq 1 ] || fail "told again: $(behind)"
# The WAL lost at its last checkpoint (a crash, then the -wal file cut
# away): the same check finds the mail the lost commits had taken in.
STEP="WAL cut"
printf 'From: Ann <ann@example.org>\nTo: hexpost@localhost\nSubject: hello\nMessage-ID: <plain.2@example.org>\n\nNo file, only words.\n' >"$W/m2.eml"
deliver "$D/inbox" "$W/m2.eml" m2
# (No sqlite3 between the crash and the cut: closing it would checkpoint.)
BEFORE=$(( $(q "SELECT count(*) FROM messages") + 1 ))
HEXPOST_TEST_CRASH_AFTER_FINISH=1 hp run --once && fail "the crash point did not fire"
[ -n "$(find "$D/inbox/cur" -name 'm2:2,*S*')" ] || fail "m2 not flagged seen"
[ -s "$DB-wal" ] || fail "no WAL left by the crash"
rm -f "$DB-wal" "$DB-shm"
[ "$(q "SELECT count(*) FROM messages")" -lt "$BEFORE" ] ||
	fail "cutting the WAL lost nothing"
hp run --once || fail "run after the WAL cut: $(cat "$T/err")"
grep -q "mail in: 0 accepted, 1 refused" "$T/out" || fail "m2 not taken in again: $(cat "$T/out")"
[ "$(q "SELECT count(*) FROM messages")" -eq "$BEFORE" ] || fail "not recorded again"
[ "$(grep -l "^In-Reply-To: <plain.2@example.org>" "$D"/outbox/new/* | wc -l)" -eq 1 ] ||
	fail "want the refusal once in the outbox"
[ "$(behind)" -eq 2 ] || fail "want a second notice, have $(behind)"
hp run --once || fail "run: $(cat "$T/err")"
[ "$(behind)" -eq 2 ] || fail "told again: $(behind)"
echo "db_behind: ok"
