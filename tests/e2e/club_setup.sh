#!/bin/bash
# club_setup: setting up a club from the README alone (issue 12):
# 'hexpost init --datadir' creates missing parent folders, and 'hexpost run'
# warns while from and domain are still localhost (players cannot answer
# such an address), and stops warning once they are set.
# Usage: bash club_setup.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start club_setup "${1:?usage: club_setup.sh /path/to/hexpost}"

STEP=init
D=$T/srv/var/lib/hexpost
"$HEXPOST" init --datadir "$D" >"$T/out" 2>"$T/err" ||
	fail "init --datadir into missing parents: $(cat "$T/err")"
[ -f "$D/hexpost.conf" ] && [ -f "$D/hexpost.db" ] && [ -d "$D/inbox/new" ] ||
	fail "data directory incomplete"
# A component that is a file: a clear error, naming it.
: >"$T/file"
"$HEXPOST" init --datadir "$T/file/sub" >"$T/out" 2>"$T/err" &&
	fail "init under a file succeeded"
grep -qF "$T/file" "$T/err" || fail "the error does not name the path: $(cat "$T/err")"

STEP=localhost
"$HEXPOST" --config "$D/hexpost.conf" run --once >"$T/out" 2>"$T/err" ||
	fail "run --once: $(cat "$T/err")"
grep -qF "warning: from = hexpost@localhost" "$T/err" ||
	fail "no warning about from: $(cat "$T/err")"
grep -qF "warning: domain = localhost" "$T/err" ||
	fail "no warning about domain: $(cat "$T/err")"

STEP=set
sed -i -e 's/^from = .*/from = hexpost@club.example/' \
	-e 's/^domain = .*/domain = club.example/' "$D/hexpost.conf"
grep -qx 'from = hexpost@club.example' "$D/hexpost.conf" ||
	fail "no from line in the written configuration"
"$HEXPOST" --config "$D/hexpost.conf" run --once >"$T/out" 2>"$T/err" ||
	fail "run --once: $(cat "$T/err")"
grep -q "localhost" "$T/err" && fail "still warns: $(cat "$T/err")"
exit 0
