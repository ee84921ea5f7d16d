#!/bin/bash
# pw_game: play a whole portable-modern battle (river-crossing) with a fixed
# --seed, Blue's orders from 'orders suggest' submitted like a player's and
# Red played by the built-in opponent; concatenate the moderator's report of
# every turn, plus Blue's and Red's maps of the last turn (fog of war), and
# compare with tests/golden/pw-seed-golden.txt. With HEXPOST_UPDATE_GOLDEN=1
# the golden file is rewritten instead (read the diff before committing).
# Usage: bash pw_game.sh /path/to/hexpost   (env HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-golden.sh"
golden_start pw_game "${1:?usage: pw_game.sh /path/to/hexpost}"
NAME=crossing

golden_new "$NAME" portable-modern 002

# A bad order file is refused with line numbers and loses nothing.
hp orders template "$NAME" --side blue >"$T/template.txt"
grep -q "^retreat cover" "$T/template.txt" || fail "template has no retreat"
printf 'b3 move Z9\nb3 fly\n' >>"$T/template.txt"
if "$HEXPOST" --db "$T/game.db" orders submit "$NAME" "$T/template.txt" \
    >"$T/refused.txt" 2>&1; then
	fail "a bad order file was accepted"
fi
grep -q "line .*expected a hex of the map" "$T/refused.txt" ||
	fail "no line-numbered error: $(cat "$T/refused.txt")"

golden_play "$NAME"

{
	golden_reports "$NAME"
	echo "=== Blue's map ==="
	hp map "$NAME" --side blue
	echo "=== Red's map ==="
	hp map "$NAME" --side red
} >"$T/game.txt"
# The maps (and their rosters) fit in 100 columns.
awk '/^=== Blue.s map ===$/ { m = 1 } m && length($0) > 100 { print; bad = 1 }
    END { exit bad }' "$T/game.txt" >&2 || fail "a map line is wider than 100"
# No line of any report or map ends in a space.
if grep -n ' $' "$T/game.txt" >&2; then
	fail "lines end in spaces"
fi

golden_check "$T/game.txt" "$SRC/tests/golden/pw-seed-golden.txt"
