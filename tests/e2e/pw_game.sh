#!/bin/bash
# pw_game: play a whole portable-modern battle (river-crossing) with a fixed
# --seed, Blue's orders from 'orders suggest' submitted like a player's and
# Red played by the built-in opponent; concatenate the moderator's report of
# every turn, plus Blue's and Red's maps of the last turn (fog of war), and
# compare with tests/golden/pw-seed-golden.txt. With HEXPOST_UPDATE_GOLDEN=1
# the golden file is rewritten instead (read the diff before committing).
# Usage: bash pw_game.sh /path/to/hexpost   (env HEXPOST_SOURCE: source dir)
set -u

HEXPOST=${1:?usage: pw_game.sh /path/to/hexpost}
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
GOLDEN="$SRC/tests/golden/pw-seed-golden.txt"
SEED=002
NAME=crossing
T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-pw.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
unset HEXPOST_TEMPLATES HEXPOST_DB

fail() {
	echo "pw_game: FAIL: $*" >&2
	exit 1
}

hp() {
	"$HEXPOST" --db "$T/game.db" "$@" || fail "hexpost $* exited $?"
}

hp init >/dev/null
hp campaign new "$NAME" --ruleset portable-modern --seed "$SEED" >/dev/null
hp player add "$NAME" blue --email blue@example.org >/dev/null

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

last=0
for turn in $(seq 1 40); do
	hp orders suggest "$NAME" --side blue >"$T/orders.txt"
	hp orders submit "$NAME" "$T/orders.txt" >/dev/null
	hp turn resolve "$NAME" >/dev/null
	hp campaign show "$NAME" >"$T/show.txt"
	if grep -qF "status   finished" "$T/show.txt"; then
		last=$(awk '$1 == "turn" { print $2 }' "$T/show.txt")
		break
	fi
done
[ "$last" -gt 0 ] 2>/dev/null || fail "no result after 40 turns"

{
	for turn in $(seq 1 "$last"); do
		hp report "$NAME" --turn "$turn"
	done
	echo "=== Blue's map ==="
	hp map "$NAME" --side blue
	echo "=== Red's map ==="
	hp map "$NAME" --side red
} >"$T/game.txt"
grep -q "^RESULT: " "$T/game.txt" || fail "the last report has no RESULT"
# The maps (and their rosters) fit in 100 columns.
awk '/^=== Blue.s map ===$/ { m = 1 } m && length($0) > 100 { print; bad = 1 }
    END { exit bad }' "$T/game.txt" >&2 || fail "a map line is wider than 100"
# No line of any report or map ends in a space.
if grep -n ' $' "$T/game.txt" >&2; then
	fail "lines end in spaces"
fi

if [ "${HEXPOST_UPDATE_GOLDEN:-}" = 1 ]; then
	mkdir -p "$(dirname "$GOLDEN")"
	cp "$T/game.txt" "$GOLDEN" || fail "cannot write $GOLDEN"
	echo "pw_game: wrote $GOLDEN ($(wc -l <"$GOLDEN") lines, $last turns)"
	exit 0
fi
[ -f "$GOLDEN" ] || fail "no $GOLDEN (run with HEXPOST_UPDATE_GOLDEN=1)"
if ! diff -u "$GOLDEN" "$T/game.txt"; then
	fail "the game differs from $GOLDEN (if the change is intended," \
	    "rerun with HEXPOST_UPDATE_GOLDEN=1 and review the diff)"
fi
echo "pw_game: ok ($last turns)"
