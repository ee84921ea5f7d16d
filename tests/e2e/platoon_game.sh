#!/bin/bash
# platoon_game: play a whole three-side platoon battle (scenario three-way)
# with a fixed --seed, Blue's orders from 'orders suggest' submitted like a
# player's, Red and Green played by the built-in opponent; concatenate the
# moderator's report of every turn and compare with
# tests/golden/platoon-seed-golden.txt. With HEXPOST_UPDATE_GOLDEN=1 the
# golden file is rewritten instead (read the diff before committing).
# Usage: bash platoon_game.sh /path/to/hexpost   (env HEXPOST_SOURCE)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-golden.sh"
golden_start platoon_game "${1:?usage: platoon_game.sh /path/to/hexpost}"
NAME=threeway

hp init >/dev/null
hp campaign new "$NAME" --ruleset platoon --scenario three-way \
    --seed 001 >/dev/null
hp player add "$NAME" blue --email blue@example.org >/dev/null

# A bad order file is refused with line numbers and loses nothing.
hp orders template "$NAME" --side blue >"$T/template.txt"
grep -q "^defend even" "$T/template.txt" || fail "template has no defend"
printf 'order b charge\nmove b1 Z99\n' >>"$T/template.txt"
if "$HEXPOST" --db "$T/game.db" orders submit "$NAME" "$T/template.txt" \
    >"$T/refused.txt" 2>&1; then
	fail "a bad order file was accepted"
fi
grep -q "line .*no order 'charge'" "$T/refused.txt" ||
	fail "no line-numbered error: $(cat "$T/refused.txt")"

golden_play "$NAME"
golden_reports "$NAME" >"$T/game.txt"
grep -q "green reveals g" "$T/game.txt" || fail "green never acted"
if grep -n ' $' "$T/game.txt" >&2; then
	fail "lines end in spaces"
fi
golden_check "$T/game.txt" "$SRC/tests/golden/platoon-seed-golden.txt"
