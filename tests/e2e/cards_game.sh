#!/bin/bash
# cards_game: the golden seeded game of cards-ap (seed 004, issue 15):
# both sides played from the command line with what 'orders suggest'
# proposes (the built-in opponent's round plans, its own view only), the
# turn-0 window naming no side (the first round's cards), each round's
# 'plan' window and the 'answer' windows opened only for a side whose stop
# fired or whose plan ran dry while the other still acted. Every resolved
# window's moderator's report, in the order opened, is compared with
# tests/golden/cards-seed-golden.txt. With HEXPOST_UPDATE_GOLDEN=1 the
# golden file is rewritten instead.
# Usage: bash cards_game.sh /path/to/hexpost   (env HEXPOST_SOURCE)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-golden.sh"
golden_start cards_game "${1:?usage: cards_game.sh /path/to/hexpost}"
NAME=crossroads

hp init >/dev/null
hp campaign new "$NAME" --ruleset cards-ap --seed 004 >/dev/null
hp player add "$NAME" blue --email blue@example.org >/dev/null
hp player add "$NAME" red --email red@example.org >/dev/null
n=0
while ! hp campaign show "$NAME" | grep -qF "status   finished"; do
	n=$((n + 1))
	[ "$n" -le 80 ] || fail "no result after 80 windows"
	for s in blue red; do
		"$HEXPOST" --db "$T/game.db" orders suggest "$NAME" --side $s \
			>"$T/$s.txt" 2>/dev/null || continue
		hp orders submit "$NAME" "$T/$s.txt" >/dev/null
	done
	hp turn resolve "$NAME" >/dev/null
done
sqlite3 "$T/game.db" "SELECT body FROM reports r JOIN windows w ON
    w.id = r.window_id WHERE r.side_idx = -1 ORDER BY w.id" >"$T/game.txt" ||
	fail "sqlite3"
last=$(sqlite3 "$T/game.db" "SELECT count(*) FROM windows")
# Answer windows name one side each, never both (a stop or a dry plan).
[ "$(sqlite3 "$T/game.db" "SELECT count(*) FROM windows WHERE name =
    'answer' AND sides NOT IN (1, 2)")" = 0 ] || fail "an answer window for both"
[ "$(sqlite3 "$T/game.db" "SELECT count(*) FROM windows WHERE name =
    'answer'")" -ge 1 ] || fail "no answer window"
# The measure of issue 15: mails per side per round of the scripted
# plans, printed by 'hexpost simulate', median at most 3.
"$HEXPOST" simulate --ruleset cards-ap --games 40 >"$T/sim.txt" ||
	fail "simulate"
med=$(sed -n 's/.*mails per side per round: median \([0-9]*\),.*/\1/p' \
	"$T/sim.txt")
[ -n "$med" ] && [ "$med" -le 3 ] || fail "simulate: $(cat "$T/sim.txt")"
golden_check "$T/game.txt" "$SRC/tests/golden/cards-seed-golden.txt"
