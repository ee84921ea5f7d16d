#!/bin/bash
# golden_game: play a whole fire-and-movement game with a fixed --seed (Blue
# by 'orders suggest', Red by the built-in opponent), concatenate the
# moderator's report of every turn and compare it with
# tests/golden/fam-seed-golden.txt. With HEXPOST_UPDATE_GOLDEN=1 the golden
# file is rewritten instead (read the diff before committing it).
# Usage: bash golden_game.sh /path/to/hexpost   (env HEXPOST_SOURCE: source dir)
set -u

HEXPOST=${1:?usage: golden_game.sh /path/to/hexpost}
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
GOLDEN="$SRC/tests/golden/fam-seed-golden.txt"
SEED=000
NAME=hill
T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-golden.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
unset HEXPOST_TEMPLATES HEXPOST_DB

fail() {
	echo "golden_game: FAIL: $*" >&2
	exit 1
}

hp() {
	"$HEXPOST" --db "$T/game.db" "$@" || fail "hexpost $* exited $?"
}

hp init >/dev/null
hp campaign new "$NAME" --ruleset fire-and-movement --seed "$SEED" >/dev/null
hp player add "$NAME" blue --email blue@example.org >/dev/null

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

for turn in $(seq 1 "$last"); do
	hp report "$NAME" --turn "$turn"
done >"$T/game.txt"
grep -q "^RESULT: " "$T/game.txt" || fail "the last report has no RESULT"

if [ "${HEXPOST_UPDATE_GOLDEN:-}" = 1 ]; then
	mkdir -p "$(dirname "$GOLDEN")"
	cp "$T/game.txt" "$GOLDEN" || fail "cannot write $GOLDEN"
	echo "golden_game: wrote $GOLDEN ($(wc -l <"$GOLDEN") lines," \
	    "$last turns)"
	exit 0
fi
[ -f "$GOLDEN" ] || fail "no $GOLDEN (run with HEXPOST_UPDATE_GOLDEN=1)"
if ! diff -u "$GOLDEN" "$T/game.txt"; then
	fail "the game differs from $GOLDEN (if the change is intended," \
	    "rerun with HEXPOST_UPDATE_GOLDEN=1 and review the diff)"
fi
echo "golden_game: ok ($last turns)"
