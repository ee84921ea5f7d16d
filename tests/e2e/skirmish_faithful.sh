#!/bin/bash
# skirmish_faithful: the faithful mode of skirmish-ww2 (campaign option
# 'faithful') through the CLI and the store, with a fixed --seed: Blue's
# player leaves out the 'initiative' line, so each turn Blue wins the
# initiative the resolution stops and a decision window 'initiative' asks
# Blue (its template says so); Blue answers 'initiative second'. After
# Red's move Blue is asked where its Opportunity Fire markers go (window
# 'opfire'; Blue answers what 'orders suggest' proposes). The battle (Red
# the built-in opponent, answering its own questions) is played to its end
# and 'hexpost audit' replays it, stops and resumptions included.
# Usage: bash skirmish_faithful.sh /path/to/hexpost   (env HEXPOST_SOURCE)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start skirmish_faithful \
	"${1:?usage: skirmish_faithful.sh /path/to/hexpost}"
NAME=faithful
e2e_datadir
hp() {
	"$HEXPOST" --config "$CONF" "$@" || fail "hexpost $* exited $?"
}

hp campaign new "$NAME" --ruleset skirmish-ww2 --options faithful \
	--seed "${SKM_SEED:-faithful-1}" >/dev/null
hp player add "$NAME" blue --email blue@example.org >/dev/null
asked=0
opfire=0
for step in $(seq 1 40); do
	hp campaign show "$NAME" >"$T/show.txt"
	grep -qF "status   finished" "$T/show.txt" && break
	hp orders template "$NAME" --side blue >"$T/tmpl.txt"
	if grep -q '^window: initiative' "$T/tmpl.txt"; then
		asked=$((asked + 1))
		grep -q "You won the initiative" "$T/tmpl.txt" ||
			fail "the decision template does not ask"
		sed 's/^initiative first$/initiative second/' "$T/tmpl.txt" \
			>"$T/orders.txt"
	elif grep -q '^window: opfire' "$T/tmpl.txt"; then
		opfire=$((opfire + 1))
		grep -q "^opfire [a-z0-9]* none$" "$T/tmpl.txt" ||
			fail "the opfire template lists no element"
		hp orders suggest "$NAME" --side blue >"$T/orders.txt"
	else
		# The MMG waits with opportunity fire.
		hp orders suggest "$NAME" --side blue |
			grep -v '^initiative ' |
			sed 's/^bmg F.*/bmg F opfire/' >"$T/orders.txt"
	fi
	hp orders submit "$NAME" "$T/orders.txt" >/dev/null
	hp turn resolve "$NAME" >/dev/null
done
grep -qF "status   finished" "$T/show.txt" || fail "no end after 40 windows"
[ "$asked" -ge 1 ] || fail "blue was never asked to choose"
[ "$opfire" -ge 1 ] || fail "blue was never asked for its markers"
last=$(awk '$1 == "turn" { print $2 }' "$T/show.txt")
for turn in $(seq 1 "$last"); do
	hp report "$NAME" --turn "$turn"
done >"$T/reports.txt"
grep -q "blue chooses to move second" "$T/reports.txt" ||
	fail "no answer in the reports"
grep -q "blue is asked where to place its Opportunity Fire markers" \
	"$T/reports.txt" || fail "no marker question in the reports"
"$HEXPOST" --config "$CONF" audit "$NAME" --accept-test-dice >"$T/audit" 2>&1 ||
	fail "audit: $(cat "$T/audit")"
grep -q "audit of $NAME: OK" "$T/audit" || fail "$(cat "$T/audit")"
echo "skirmish_faithful: ok ($asked initiative, $opfire opfire decisions)"
