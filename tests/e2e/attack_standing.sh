#!/bin/bash
# attack_standing: an older signed standing file put back in force (issue
# 11, lever 1: "which older signed standing file is in force"). A
# fire-and-movement campaign with option red-standing, Blue and Red players
# with keys; Red mails standing orders through contrib/hexpost-player,
# which gives each a "sequence:" header (docs/AUDIT.md, "Standing orders'
# sequence"):
#  1. Red's standing files of sequence 1 then 2 are taken in by mail and
#     each is in force in a window; the campaign audits clean.
#  2. Through hexpost itself the operator cannot put file 1 back: mailed
#     again (a file with sequence 1, signed by Red) it is refused with a
#     reply naming the line and the sequence in force, and `orders submit`
#     with Red's recorded signature is refused the same way.
#  3. A patched server puts file 1 (Red's genuine signed bytes) back in
#     force in the database and resolves the next window with it:
#     `hexpost audit`, `hexpost audit --bundle` and
#     contrib/hexpost-audit.py all fail, saying an older standing file was
#     put back in force (and Red's report names the file used).
# Usage: bash attack_standing.sh /path/to/hexpost (HEXPOST_SOURCE: source)
set -u
. "$(dirname "$0")/lib-attack.sh"
. "$(dirname "$0")/lib-reports.sh"
attack_start attack_standing "${1:?usage: attack_standing.sh /path/to/hexpost}"

hp campaign new ridge --ruleset fire-and-movement --options red-standing \
	>/dev/null || fail "campaign new"
hp player add ridge blue --email blue@example.org --name Bea \
	--key "$T/blue.pub" >/dev/null || fail "player add blue"
hp player add ridge red --email red@example.org --name Rex \
	--key "$T/red.pub" >/dev/null || fail "player add red"

# standing N BODY: Red mails standing orders BODY with sequence N.
standing() {
	printf 'campaign: ridge\nturn: 1\nwindow: standing\nside: red\n%s\n' \
		"$2" >"$T/st$1.txt"
	bash "$PLAYER" -t hexpost@localhost -f red@example.org -k "$T/red.key" \
		--sequence "$1" --maildir "$D/inbox" "$T/st$1.txt" >/dev/null ||
		fail "hexpost-player red $1"
}
# round WHAT: take in the inbox (Blue's orders for the open window and
# whatever Red sent); the window resolves.
round() {
	send ridge blue
	hp run --once >"$T/out" 2>"$T/err" || fail "run ($1): $(cat "$T/err")"
	grep -q "0 refused" "$T/out" || fail "refused ($1): $(cat "$T/out")"
}
stored() {	# the standing file in force for Red
	sqlite3 "$DB" "SELECT standing FROM sides WHERE idx = 1"
}
open_window() {
	sqlite3 "$DB" "SELECT id FROM windows WHERE state = 'open'"
}

# 1. Sequence 1, then 2, each in force in a window.
standing 1 "policy nearest"
round "red's sequence 1"
stored | grep -qx "sequence: 1" || fail "standing file 1 not in force: $(stored)"
sqlite3 "$DB" "SELECT writefile('$T/old.txt', CAST(standing AS BLOB)) FROM
    sides WHERE idx = 1" >/dev/null || fail "writefile old"
OLDH=$(b2sum -l 256 "$T/old.txt" | cut -d' ' -f1)
sqlite3 "$DB" "SELECT writefile('$T/old.txt.minisig', signature) FROM
    order_signatures WHERE lower(hex(hash)) = '$OLDH'" >/dev/null
[ -s "$T/old.txt.minisig" ] || fail "no signature recorded for Red's file 1"
round "file 1 in force"
standing 2 "policy best"
round "red's sequence 2"
stored | grep -qx "sequence: 2" || fail "standing file 2 not in force: $(stored)"
round "file 2 in force"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM orders WHERE source = 'standing'
    AND raw LIKE '%sequence: 2%'")" -ge 1 ] || fail "file 2 was in no window"
hp audit ridge >"$T/out" 2>"$T/err" || fail "clean campaign: $(cat "$T/err")"
hp audit export ridge "$T/b0" >/dev/null 2>"$T/err" || fail "export: $(cat "$T/err")"
"$HEXPOST" audit --bundle "$T/b0" >/dev/null 2>"$T/err" ||
	fail "clean bundle: $(cat "$T/err")"
python3 "$PYAUDIT" "$T/b0" >/dev/null 2>"$T/err" ||
	fail "clean bundle (Python): $(cat "$T/err")"

# 2. Put back through hexpost: refused by mail and on the command line.
standing 1 "policy nearest"
hp run --once >"$T/out" 2>"$T/err" || fail "run (mail again): $(cat "$T/err")"
grep -q "1 refused" "$T/out" || fail "sequence 1 mailed again was not refused: $(cat "$T/out")"
sqlite3 "$DB" "SELECT CAST(data AS TEXT) FROM outbox WHERE kind = 'refusal'
    AND rcpt LIKE '%red@example.org%'" >"$T/reply"
grep -qF "line 5: sequence 1 is not greater than 2, the sequence of red's standing orders in force" "$T/reply" ||
	fail "the refusal does not say why: $(cat "$T/reply")"
stored | grep -qx "sequence: 2" || fail "file 2 no longer in force"
hp orders submit ridge "$T/old.txt" --sig "$T/old.txt.minisig" >"$T/out" 2>"$T/err"
[ $? -eq 65 ] || fail "orders submit put file 1 back: $(cat "$T/out" "$T/err")"
grep -qF "line 5: sequence 1 is not greater than 2" "$T/err" ||
	fail "orders submit: no reason given: $(cat "$T/err")"

# 3. A patched server puts file 1 back in force (the standing file and the
# open window's snapshot) and resolves with it.
W=$(open_window)
[ -n "$W" ] || fail "no open window"
sqlite3 "$DB" "UPDATE sides SET standing = CAST(readfile('$T/old.txt') AS TEXT)
    WHERE idx = 1;
    UPDATE window_standing SET raw = CAST(readfile('$T/old.txt') AS TEXT),
    hash = X'$OLDH' WHERE window_id = $W AND side_idx = 1" || fail "put back"
round "file 1 put back"
[ "$(sqlite3 "$DB" "SELECT lower(hex(hash)) FROM orders WHERE window_id = $W
    AND side_idx = 1")" = "$OLDH" ] || fail "the window did not use file 1"
# Red sees it too: its report names the hash of the standing file used.
e2e_reports "$DB" "SELECT window_id, side_idx FROM reports WHERE window_id = $W AND side_idx = 1" >"$T/rep"
grep -qx "  red: $OLDH" "$T/rep" || fail "Red's report does not name file 1: $(cat "$T/rep")"
PHRASE="red's standing orders have sequence 1, but standing orders of sequence 2 were in force in turn"
caught_db ridge "$PHRASE"
grep -qF "an older standing file was put back in force" "$T/err" ||
	fail "hexpost audit does not say what was caught: $(cat "$T/err")"
hp audit export ridge "$T/bundle" >/dev/null 2>"$T/err" || fail "export: $(cat "$T/err")"
caught "$T/bundle" "$PHRASE"
caught "$T/bundle" "an older standing file was put back in force"
echo "attack_standing: ok"
