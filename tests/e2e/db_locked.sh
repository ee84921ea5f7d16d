#!/bin/bash
# db_locked: a database held by another process past the busy timeout (10
# s) is a reason to try again later, not a software error (issue 21, item
# 7): `run --once` and `orders submit` exit 75 (EX_TEMPFAIL) and say the
# database is locked; before, they exited 70. Once the lock is gone the
# same commands succeed, and the campaign was not put in quarantine for it.
# Usage: bash db_locked.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start db_locked "${1:?usage: db_locked.sh /path/to/hexpost}" sqlite3 python3
e2e_datadir
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
hp campaign new hill --ruleset fire-and-movement --seed locked || fail "campaign"
hp orders template hill --side blue && head -n 4 "$T/out" >"$W/blue.txt" || fail "template"
hp orders suggest hill --side blue && sed '1,4d' "$T/out" >>"$W/blue.txt" || fail "suggest"
# Work for run --once: a window to resolve, mail to deliver.
hp orders submit hill "$W/blue.txt" || fail "submit: $(cat "$T/err")"

# A writer holding an exclusive transaction for 40 s (killed when done).
python3 -c '
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
c.execute("UPDATE campaigns SET options = options")
open(sys.argv[2], "w").close()
time.sleep(40)
' "$DB" "$W/held" &
LOCKER=$!
e2e_at_exit 'kill $LOCKER 2>/dev/null'
for i in $(seq 1 100); do [ -e "$W/held" ] && break; sleep 0.1; done
[ -e "$W/held" ] || fail "the lock was not taken"

STEP="run --once"
hp run --once
rc=$?
[ "$rc" -eq 75 ] || fail "run --once exited $rc, want 75: $(cat "$T/err")"
grep -q "locked by another process; try again later" "$T/err" ||
	fail "no clear message: $(cat "$T/err")"
STEP="orders submit"
hp orders submit hill "$W/blue.txt"
rc=$?
[ "$rc" -eq 75 ] || fail "orders submit exited $rc, want 75: $(cat "$T/err")"
kill $LOCKER; wait $LOCKER 2>/dev/null
STEP="lock gone"
# A lock is no fault of the campaign: it is not put in quarantine.
[ "$(sqlite3 "$DB" "SELECT count(*) FROM campaign_quarantine")" -eq 0 ] ||
	fail "the campaign was put in quarantine for a lock"
hp run --once || fail "run: $(cat "$T/err")"
grep -q "^resolved" "$T/out" || fail "not resolved: $(cat "$T/out")"
echo "db_locked: ok"
