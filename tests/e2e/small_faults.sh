#!/bin/bash
# small_faults: the smaller faults of issue 21, item 7, that a daemon meets.
# 1. Killed runs leave files in outbox/tmp/; a pass removes those older than
#    36 hours (as Maildir readers do) that no outbox row names, and never a
#    stage a queued message still names, however old. Before: kept forever.
# 2. The server key file touched (its time moved, as a clock jump shifts
#    times seen through a faked clock) or copied back in place (a new inode)
#    with the same key is not a change: before, every such change logged
#    "server key changed: reloaded". A real rotation still reloads.
# (The window opened while the clock was days behind is tested in
# tests/unit/test_deadline.c, test_clock_jump.)
# Usage: bash small_faults.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start small_faults "${1:?usage: small_faults.sh /path/to/hexpost}" \
	minisign sqlite3
e2e_datadir
e2e_keys ann
DPID=
e2e_at_exit '[ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null'
fail_hook() { [ -f "$T/derr" ] && sed 's/^/  daemon: /' "$T/derr" >&2; }
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
q() { sqlite3 "$DB" "$1"; }
TMPD=$D/outbox/tmp
hp campaign new hill --ruleset fire-and-movement --seed small || fail "campaign"
hp player add hill blue --email ann@example.org --name Ann --key "$T/ann.pub" \
	--moderator || fail "player: $(cat "$T/err")"

STEP="outbox tmp/"
mkdir -p "$TMPD" "$D/outbox/new" "$D/outbox/cur"
: >"$TMPD/1700000000.M1P1Q1.old-empty"
echo partial >"$TMPD/1700000000.M2P1Q2.old-partial"
: >"$TMPD/1700000000.M3P1Q3.recent"
# A stage the outbox still names (the welcome, staged 3 days ago by a run
# that stopped before the rename): kept, and delivered.
WID=$(q "SELECT id FROM outbox WHERE kind = 'welcome'")
q "SELECT writefile('$TMPD/1700000000.M4P1Q4.staged', data) FROM outbox WHERE id = $WID" >/dev/null
q "UPDATE outbox SET stage = '1700000000.M4P1Q4.staged' WHERE id = $WID"
touch -d '40 hours ago' "$TMPD/1700000000.M1P1Q1.old-empty" "$TMPD/1700000000.M2P1Q2.old-partial"
touch -d '3 days ago' "$TMPD/1700000000.M4P1Q4.staged"
touch -d '30 hours ago' "$TMPD/1700000000.M3P1Q3.recent"
hp run --once || fail "run: $(cat "$T/err")"
grep -q "outbox tmp/: 2 files left by stopped runs removed" "$T/err" ||
	fail "not said: $(cat "$T/err")"
[ "$(ls "$TMPD")" = "1700000000.M3P1Q3.recent" ] || fail "tmp/ holds: $(ls "$TMPD")"
[ "$(q "SELECT state FROM outbox WHERE id = $WID")" = sent ] || fail "the staged welcome was not delivered"
MID=$(q "SELECT message_id FROM outbox WHERE id = $WID")
[ -f "$D/outbox/new/$MID" ] || fail "the staged welcome is not in new/: $(ls "$D/outbox/new")"

STEP="key touched"
sed -i 's/^poll_interval = .*/poll_interval = 1/; s/^log_level = .*/log_level = info/' "$CONF"
"$HEXPOST" --config "$CONF" run >"$T/dout" 2>"$T/derr" &
DPID=$!
# passes N: wait until the daemon has done N more passes.
passes() {
	local want=$(( $(grep -c "^mail out:" "$T/dout") + $1 )) i
	for i in $(seq 1 150); do
		[ "$(grep -c "^mail out:" "$T/dout")" -ge "$want" ] && return 0
		sleep 0.1
	done
	fail "the daemon did not make $1 passes"
}
passes 1
touch -d '+3 days' "$D/server.key"
passes 2
cp -p "$D/server.key" "$W/key.copy" && mv "$W/key.copy" "$D/server.key" || fail "copy back"
touch -d '-5 days' "$D/server.key"
passes 2
grep -q "changed: reloaded" "$T/derr" && fail "a false reload: $(grep changed "$T/derr")"
STEP="key rotated"
hp key rotate || fail "rotate: $(cat "$T/err")"
passes 2
grep -q "server key .* changed: reloaded" "$T/derr" || fail "the rotated key was not reloaded"
kill -TERM "$DPID"
wait "$DPID"
rc=$?
DPID=
[ "$rc" -eq 0 ] || fail "SIGTERM: exit $rc"
echo "small_faults: ok"
