#!/bin/bash
# wake: the wake index (issue 17, migration 22). A pass looks only at the
# campaigns the index says are due, and a due campaign is never missed:
# its reminder and its deadline come at their time, orders entered by
# another process, a moderator's pause, resume and extend, and a changed
# deadline default in hexpost.conf all wake it; an idle pass writes
# nothing to the database, and at the default log level the daemon prints
# nothing for it. hexpost's clock is set by HEXPOST_NOW (test only).
# Usage: bash wake.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start wake "${1:?usage: wake.sh /path/to/hexpost}" minisign sqlite3
e2e_datadir
e2e_keys ann
T0=1900000000
at() { echo $((T0 + $1 * 3600)); }
hp() { HEXPOST_NOW=${NOW:-$T0} "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
q() { sqlite3 "$DB" "$1"; }
wake() { q "SELECT w.wake_at FROM campaign_wake w JOIN campaigns c ON c.id = w.campaign_id WHERE c.name = '$1'"; }
# run_at HOURS: run --once at T0 + HOURS.
run_at() {
	NOW=$(at "$1") hp run --once || fail "run --once at +$1 h: $(cat "$T/out" "$T/err")"
}
# dbsum: the database and its WAL as bytes (an idle pass changes neither).
dbsum() { cat "$DB" "$DB-wal" 2>/dev/null | md5sum; }
cat >>"$CONF" <<EOF
deadline_hours = 48
remind_hours = 24
from = hexpost@club.example
domain = club.example
EOF

STEP="setup"
hp campaign new hill --ruleset fire-and-movement --seed wake1 || fail "campaign"
hp campaign new dale --ruleset fire-and-movement --seed wake2 || fail "campaign 2"
hp player add hill blue --email ann@example.org --name Ann --key "$T/ann.pub" --moderator ||
	fail "player: $(cat "$T/err")"
hp player add dale blue --email ann@example.org --name Ann --key "$T/ann.pub" --moderator ||
	fail "player 2: $(cat "$T/err")"
[ "$(wake hill)" = 0 ] || fail "a new campaign is not due: $(wake hill)"

STEP="first pass"
run_at 0
# Both wait for Blue: next looked at when the reminder is due (48 - 24 h).
[ "$(wake hill)" = "$(at 24)" ] || fail "hill wakes at $(wake hill), want $(at 24)"
[ "$(wake dale)" = "$(at 24)" ] || fail "dale wakes at $(wake dale), want $(at 24)"

STEP="idle"
s=$(dbsum)
run_at 1
[ "$(dbsum)" = "$s" ] || fail "an idle pass wrote to the database"
run_at 23
[ "$(dbsum)" = "$s" ] || fail "an idle pass (+23 h) wrote to the database"
q "EXPLAIN QUERY PLAN SELECT c.name FROM campaign_wake w INDEXED BY campaign_wake_at JOIN campaigns c ON c.id = w.campaign_id WHERE w.wake_at <= 5" |
	grep -q "USING .*INDEX campaign_wake_at" || fail "the due query does not use the index"

STEP="reminder"
n=$(q "SELECT count(*) FROM outbox WHERE kind = 'reminder'")
run_at 24
m=$(q "SELECT count(*) FROM outbox WHERE kind = 'reminder'")
[ "$m" -eq $((n + 2)) ] || fail "$((m - n)) reminders at the reminder time, want 2: $(cat "$T/out" "$T/err")"
# Reminded: next the deadline (the pass after a change looks once more).
run_at 25
[ "$(wake hill)" = "$(at 48)" ] || fail "hill wakes at $(wake hill) after its reminder, want $(at 48)"

STEP="orders from another process"
hp orders template hill --side blue && head -n 4 "$T/out" >"$W/blue.txt" || fail "template"
hp orders suggest hill --side blue && sed '1,4d' "$T/out" >>"$W/blue.txt" || fail "suggest"
minisign -S -s "$T/ann.key" -m "$W/blue.txt" >/dev/null 2>&1 || fail "minisign -S"
NOW=$(at 26) hp orders submit hill "$W/blue.txt" --sig "$W/blue.txt.minisig" ||
	fail "submit: $(cat "$T/err")"
[ "$(wake hill)" = 0 ] || fail "orders did not wake hill: $(wake hill)"
[ "$(wake dale)" = "$(at 48)" ] || fail "hill's orders woke dale: $(wake dale)"
run_at 26
grep -q "^resolved 1 window of hill" "$T/out" || fail "hill not resolved: $(cat "$T/out" "$T/err")"
grep -q "of dale" "$T/out" && fail "dale looked at without cause: $(cat "$T/out")"

STEP="orders by mail"
# dale waits for its deadline; Ann's signed mail wakes it in the same pass.
hp orders template dale --side blue && head -n 4 "$T/out" >"$W/dale.txt" || fail "template"
hp orders suggest dale --side blue && sed '1,4d' "$T/out" >>"$W/dale.txt" || fail "suggest"
signed_mail "$T/ann.key" "$W/dale.txt" "Ann <ann@example.org>" "dale.1@example.org" \
	"orders" "$W/dale.eml" || fail "mail"
deliver "$D/inbox" "$W/dale.eml" dale1
[ "$(wake dale)" = "$(at 48)" ] || fail "dale woke before its mail was taken in"
run_at 26
grep -q "^mail in: 1 accepted" "$T/out" || fail "the mail was not taken in: $(cat "$T/out" "$T/err")"
grep -q "^resolved [0-9]* windows\? of dale" "$T/out" || fail "dale not resolved on its mail: $(cat "$T/out")"

STEP="pause"
NOW=$(at 27) hp moderate dale pause || fail "pause: $(cat "$T/out" "$T/err")"
run_at 27
run_at 28
[ "$(wake dale)" = 9000000000000000000 ] || fail "a paused campaign wakes at $(wake dale)"
run_at 60
grep -q "deadline of dale" "$T/out" && fail "a paused campaign's deadline acted: $(cat "$T/out")"

STEP="resume"
NOW=$(at 61) hp moderate dale resume || fail "resume: $(cat "$T/out" "$T/err")"
[ "$(wake dale)" = 0 ] || fail "resume did not wake dale: $(wake dale)"
run_at 61
run_at 62
w=$(wake dale)
[ "$w" -gt "$(at 61)" ] && [ "$w" -lt 9000000000000000000 ] || fail "dale wakes at $w after resume"

STEP="extend"
# w is the reminder's time, or the deadline's once reminded.
rem=$(q "SELECT k.reminded FROM window_clock k JOIN windows w ON w.id = k.window_id JOIN campaigns c ON c.id = w.campaign_id WHERE c.name = 'dale' AND w.state = 'open'")
if [ "$rem" = 1 ]; then dl=$((w + 100 * 3600)); else dl=$((w + 124 * 3600)); fi
NOW=$(at 62) hp moderate dale extend 100 || fail "extend: $(cat "$T/out" "$T/err")"
[ "$(wake dale)" = 0 ] || fail "extend did not wake dale"
run_at 62
run_at 63
# The deadline moved 100 h and its reminder is owed (again) 24 h before.
[ "$(wake dale)" = $((dl - 24 * 3600)) ] || fail "dale wakes at $(wake dale) after extend 100, want $((dl - 24 * 3600))"

STEP="deadline passes"
run_at $(((dl - 24 * 3600 - T0) / 3600 + 1))
grep -q "^deadline of dale: reminded" "$T/out" || fail "no reminder: $(cat "$T/out" "$T/err")"
run_at $(((dl - T0) / 3600 - 1))
grep -q "dale" "$T/out" && fail "dale looked at before its deadline: $(cat "$T/out")"
run_at $(((dl - T0) / 3600 + 1))
grep -q "^deadline of dale: filled" "$T/out" || fail "the deadline did not act: $(cat "$T/out" "$T/err")"
grep -q "^resolved [0-9]* windows\? of dale" "$T/out" || fail "dale not resolved at its deadline: $(cat "$T/out")"

STEP="configuration"
h=$(wake hill)
sed -i 's/^deadline_hours = 48$/deadline_hours = 72/' "$CONF"
run_at 200
# hill's wake was computed with 48 h: the new default woke it again.
[ "$(wake hill)" != "$h" ] || fail "a changed deadline_hours did not wake hill ($h)"

STEP="daemon quiet"
echo "poll_interval = 1" >>"$CONF"
run_at 300
run_at 300
s=$(dbsum)
NOW=$(at 300) HEXPOST_NOW=$(at 300) "$HEXPOST" --config "$CONF" run >"$T/dout" 2>&1 &
DPID=$!
sleep 3.5
kill "$DPID"
wait "$DPID"
[ ! -s "$T/dout" ] || fail "an idle daemon wrote to its log: $(cat "$T/dout")"
[ "$(dbsum)" = "$s" ] || fail "the idle daemon wrote to the database"
echo "wake: ok"
