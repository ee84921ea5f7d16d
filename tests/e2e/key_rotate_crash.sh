#!/bin/bash
# key_rotate_crash: `key rotate` run again after a crash late in the
# command makes no second rotation and sends no second notice (issue 21,
# item 6). Before the fix a crash after the files were installed (the
# command had done everything but say so) left nothing to finish, so the
# second run rotated again: a second statement and a second notice to every
# player. Now a rotation finished within a day is reported and nothing is
# done unless --again. The crashes are hexpost's test-only crash points
# (HEXPOST_TEST_CRASH_AFTER_ROTATE: abort once everything is done;
# HEXPOST_TEST_CRASH_BEFORE_INSTALL: abort after the commit, before the
# key files move).
# Usage: bash key_rotate_crash.sh /path/to/hexpost  (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start key_rotate_crash "${1:?usage: key_rotate_crash.sh /path/to/hexpost}" \
	minisign sqlite3
e2e_datadir
e2e_keys ann bob
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
q() { sqlite3 "$DB" "$1"; }
hp campaign new hill --ruleset fire-and-movement --seed rot || fail "campaign"
hp player add hill blue --email ann@example.org --name Ann --key "$T/ann.pub" \
	--moderator || fail "player: $(cat "$T/err")"
hp player add hill red --email bob@example.org --name Bob --key "$T/bob.pub" ||
	fail "player: $(cat "$T/err")"
notices() { q "SELECT count(*) FROM outbox WHERE CAST(data AS TEXT) LIKE '%signing key has changed%'"; }

STEP="crash after the rotation"
HEXPOST_TEST_CRASH_AFTER_ROTATE=1 hp key rotate && fail "the crash point did not fire"
[ "$(q "SELECT count(*) FROM key_rotations")" -eq 1 ] || fail "want 1 rotation"
N1=$(notices)
[ "$N1" -eq 2 ] || fail "want 2 notices, have $N1"
cp "$D/server.key" "$W/key.after"
STEP="run again"
hp key rotate || fail "key rotate again: $(cat "$T/err")"
grep -q "^key rotation 1 (server key [0-9A-F]\{16\} replaced by [0-9A-F]\{16\}) was finished at .*nothing done" "$T/out" ||
	fail "no clear message: $(cat "$T/out")"
grep -q "key rotate --again" "$T/out" || fail "the way to rotate again is not given: $(cat "$T/out")"
[ "$(q "SELECT count(*) FROM key_rotations")" -eq 1 ] || fail "rotated a second time"
[ "$(notices)" -eq "$N1" ] || fail "a second notice: $(notices)"
cmp -s "$D/server.key" "$W/key.after" || fail "the key changed"
[ ! -e "$D/server.key.2" ] || fail "a second backup"

STEP="crash before the install"
HEXPOST_TEST_CRASH_BEFORE_INSTALL=1 hp key rotate --again && fail "the crash point did not fire"
[ "$(q "SELECT count(*) FROM key_rotations")" -eq 2 ] || fail "want rotation 2 recorded"
[ -e "$D/server.key.new" ] || fail "no new key waiting"
hp key rotate || fail "finishing: $(cat "$T/err")"
grep -q "interrupted rotation, recorded before, now finished" "$T/out" ||
	fail "not resumed: $(cat "$T/out")"
[ "$(q "SELECT count(*) FROM key_rotations")" -eq 2 ] || fail "want 2 rotations"
[ "$(notices)" -eq $((N1 * 2)) ] || fail "want $((N1 * 2)) notices, have $(notices)"
hp key rotate || fail "key rotate a third time: $(cat "$T/err")"
grep -q "^key rotation 2 .*nothing done" "$T/out" || fail "not reported: $(cat "$T/out")"
[ "$(q "SELECT count(*) FROM key_rotations")" -eq 2 ] || fail "rotated a third time"

# A day later (hexpost's clock), a rotation is a rotation again.
STEP="a day later"
HEXPOST_NOW=$(( $(date +%s) + 90000 )) hp key rotate || fail "a day later: $(cat "$T/err")"
grep -q "^key rotation 3: " "$T/out" || fail "no third rotation: $(cat "$T/out")"
[ "$(notices)" -eq $((N1 * 3)) ] || fail "want $((N1 * 3)) notices"
echo "key_rotate_crash: ok"
