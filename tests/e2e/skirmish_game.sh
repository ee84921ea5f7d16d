#!/bin/bash
# skirmish_game: play a whole skirmish-ww2 battle (scenario crossroads)
# with a fixed --seed, Blue's orders from 'orders suggest' submitted like a
# player's, Red played by the built-in opponent; concatenate the
# moderator's report of every turn (hidden elements, sealed spotting rolls
# and all) and compare with tests/golden/skirmish-seed-golden.txt. With
# HEXPOST_UPDATE_GOLDEN=1 the golden file is rewritten instead (read the
# diff before committing).
# Usage: bash skirmish_game.sh /path/to/hexpost   (env HEXPOST_SOURCE)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-golden.sh"
golden_start skirmish_game "${1:?usage: skirmish_game.sh /path/to/hexpost}"
NAME=crossroads

golden_new "$NAME" skirmish-ww2 003

# A bad order file is refused with line numbers and loses nothing.
hp orders template "$NAME" --side blue >"$T/template.txt"
grep -q "^b1 F$" "$T/template.txt" || fail "template has no 'b1 F'"
printf 'initiative never\nb9 A A1\n' >>"$T/template.txt"
if "$HEXPOST" --db "$T/game.db" orders submit "$NAME" "$T/template.txt" \
    >"$T/refused.txt" 2>&1; then
	fail "a bad order file was accepted"
fi
grep -q "line .*expected 'initiative first' or 'initiative second'" \
	"$T/refused.txt" || fail "no line-numbered error: $(cat "$T/refused.txt")"

golden_play "$NAME"
golden_reports "$NAME" >"$T/game.txt"
grep -q "Spotting roll for hidden" "$T/game.txt" || fail "no spotting"
grep -q "Everything is revealed" "$T/game.txt" || fail "no reveal at the end"
if grep -n ' $' "$T/game.txt" >&2; then
	fail "lines end in spaces"
fi
golden_check "$T/game.txt" "$SRC/tests/golden/skirmish-seed-golden.txt"
