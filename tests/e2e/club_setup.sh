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

# What the README and the man pages promise a club (issue 12): the order
# file's size limit, the loopback setup with STARTTLS off, stranger_replies.
STEP=docs
grep -q "64 KB an order file" "$SRC/README.md" || fail "README: no 64 KB limit"
grep -q "order file is at most 64 KB" "$SRC/man/hexpost.1" ||
	fail "hexpost.1: no 64 KB limit"
grep -qx "    imap_starttls = off .*" "$SRC/README.md" &&
	grep -qx "    smtp_starttls = off" "$SRC/README.md" ||
	fail "README: no loopback setup with STARTTLS off"
grep -q "^\.It Ic stranger_replies" "$SRC/man/hexpost.conf.5" ||
	fail "hexpost.conf.5: no stranger_replies"
# The documented key is accepted, and a wrong value refused with its line.
echo "stranger_replies = daily" >>"$D/hexpost.conf"
"$HEXPOST" --config "$D/hexpost.conf" campaign list >/dev/null 2>"$T/err" ||
	fail "stranger_replies = daily refused: $(cat "$T/err")"
echo "stranger_replies = sometimes" >>"$D/hexpost.conf"
"$HEXPOST" --config "$D/hexpost.conf" campaign list >/dev/null 2>"$T/err" &&
	fail "stranger_replies = sometimes accepted"
grep -q "hexpost.conf:[0-9]*: stranger_replies must be 'none' or 'daily'" \
	"$T/err" || fail "no line-numbered error: $(cat "$T/err")"
exit 0
