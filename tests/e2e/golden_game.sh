#!/bin/bash
# golden_game: play a whole fire-and-movement game with a fixed --seed (Blue
# by 'orders suggest', Red by the built-in opponent), concatenate the
# moderator's report of every turn and compare it with
# tests/golden/fam-seed-golden.txt. With HEXPOST_UPDATE_GOLDEN=1 the golden
# file is rewritten instead (read the diff before committing it).
# Usage: bash golden_game.sh /path/to/hexpost   (env HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-golden.sh"
golden_start golden_game "${1:?usage: golden_game.sh /path/to/hexpost}"
NAME=hill

golden_new "$NAME" fire-and-movement 000
golden_play "$NAME"
golden_reports "$NAME" >"$T/game.txt"
golden_check "$T/game.txt" "$SRC/tests/golden/fam-seed-golden.txt"
