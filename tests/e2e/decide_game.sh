#!/bin/bash
# decide_game: the golden seeded game of the engine's test ruleset
# test-decide (issue 10, G1/G3/G4/G7): north and south played from the
# command line with what 'orders suggest' proposes, north with standing
# orders from turn 2 on (they answer its question, so only south is asked
# then); every resolved window's moderator's report, in the order opened
# (the turn-0 initiative window, each turn's stopped 'orders' window and
# its 'decide' window), concatenated and compared with
# tests/golden/decide-seed-golden.txt (decide_mail.sh audits a signed game).
# With HEXPOST_UPDATE_GOLDEN=1 the golden file is rewritten instead.
# Usage: bash decide_game.sh /path/to/hexpost   (env HEXPOST_SOURCE)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-golden.sh"
. "$SRC/tests/e2e/lib-reports.sh"
golden_start decide_game "${1:?usage: decide_game.sh /path/to/hexpost}"
NAME=duel

hp init >/dev/null
hp campaign new "$NAME" --ruleset test-decide --seed 010 \
	--allow-test-ruleset >/dev/null
hp player add "$NAME" north --email north@example.org >/dev/null
hp player add "$NAME" south --email south@example.org >/dev/null
n=0
while ! hp campaign show "$NAME" | grep -qF "status   finished"; do
	n=$((n + 1))
	[ "$n" -le 20 ] || fail "no result after 20 windows"
	for s in north south; do
		"$HEXPOST" --db "$T/game.db" orders suggest "$NAME" --side $s \
			>"$T/$s.txt" 2>/dev/null || continue
		hp orders submit "$NAME" "$T/$s.txt" >/dev/null
	done
	if [ "$n" = 2 ]; then   # from turn 2 on: north's standing answer
		printf 'campaign: %s\nturn: 1\nwindow: standing\nside: north\nanswer withdraw\n' \
			"$NAME" >"$T/standing.txt"
		hp orders submit "$NAME" "$T/standing.txt" >/dev/null
	fi
	hp turn resolve "$NAME" >/dev/null
done
e2e_reports "$T/game.db" "SELECT r.window_id, r.side_idx FROM reports r JOIN windows w ON
    w.id = r.window_id WHERE r.side_idx = -1 ORDER BY w.id" >"$T/game.txt" ||
	fail "reports"
last=$(sqlite3 "$T/game.db" "SELECT count(*) FROM windows")   # for the message
# Only south is asked once north's standing orders answer for it.
[ "$(sqlite3 "$T/game.db" "SELECT group_concat(sides, ' ') FROM windows
    WHERE name = 'decide' ORDER BY id")" = "3 2 2" ] ||
	fail "decision windows: $(sqlite3 "$T/game.db" "SELECT turn, sides FROM
	    windows WHERE name = 'decide'")"
golden_check "$T/game.txt" "$SRC/tests/golden/decide-seed-golden.txt"
