#!/bin/bash
# platoon_each_game: the golden seeded game of the platoon ruleset in its
# faithful mode (campaign option reveal=each, docs/rules/platoon.md): the
# three-side scenario three-way, Blue played from the command line with
# what 'orders suggest' proposes (its order markers, then each reveal it is
# asked for), Red and Green by the built-in opponent. Every resolved
# window's moderator's report, in the order opened (each turn's markers
# window, stopped at the first question, and its 'reveal' windows),
# concatenated and compared with tests/golden/platoon-each-seed-golden.txt.
# Checked besides: every 'reveal' window names exactly one side, and the
# sides take turns (no side is asked twice running while another has
# markers: at least one change of side a turn). With HEXPOST_UPDATE_GOLDEN=1
# the golden file is rewritten instead (read the diff before committing).
# Usage: bash platoon_each_game.sh /path/to/hexpost   (env HEXPOST_SOURCE)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-golden.sh"
golden_start platoon_each_game "${1:?usage: platoon_each_game.sh /path/to/hexpost}"
NAME=each

hp init >/dev/null
hp campaign new "$NAME" --ruleset platoon --scenario three-way \
    --seed 001 --options reveal=each >/dev/null
hp player add "$NAME" blue --email blue@example.org >/dev/null
# The markers file refuses the lines that belong to a reveal.
hp orders template "$NAME" --side blue >"$T/template.txt"
grep -q "^# reveal=each: place your order markers" "$T/template.txt" ||
	fail "the template does not explain the markers"
printf 'move b1a B2\n' >>"$T/template.txt"
"$HEXPOST" --db "$T/game.db" orders submit "$NAME" "$T/template.txt" \
    >"$T/refused.txt" 2>&1 && fail "a move line among the markers"
grep -q "only places order markers" "$T/refused.txt" ||
	fail "refusal: $(cat "$T/refused.txt")"
n=0
while ! hp campaign show "$NAME" | grep -qF "status   finished"; do
	n=$((n + 1))
	[ "$n" -le 400 ] || fail "no result after 400 windows"
	if "$HEXPOST" --db "$T/game.db" orders suggest "$NAME" --side blue \
	    >"$T/blue.txt" 2>/dev/null; then
		hp orders submit "$NAME" "$T/blue.txt" >/dev/null
	fi
	hp turn resolve "$NAME" >/dev/null
done
sqlite3 "$T/game.db" "SELECT body FROM reports r JOIN windows w ON
    w.id = r.window_id WHERE r.side_idx = -1 ORDER BY w.id" >"$T/game.txt" ||
	fail "sqlite3"
last=$(sqlite3 "$T/game.db" "SELECT count(*) FROM windows")
[ "$(sqlite3 "$T/game.db" "SELECT count(*) FROM windows WHERE
    name = 'reveal' AND sides NOT IN (1, 2, 4)")" = 0 ] ||
	fail "a reveal window names more than one side"
[ "$(sqlite3 "$T/game.db" "SELECT count(DISTINCT sides) FROM windows
    WHERE name = 'reveal'")" = 3 ] || fail "not every side was asked"
grep -q "green reveals g" "$T/game.txt" || fail "green never revealed"
grep -q "blue is asked for its next reveal" "$T/game.txt" ||
	fail "blue was never asked"
if grep -n ' $' "$T/game.txt" >&2; then
	fail "lines end in spaces"
fi
golden_check "$T/game.txt" "$SRC/tests/golden/platoon-each-seed-golden.txt"
