#!/bin/bash
# platoon_mail: a whole platoon battle (scenario outpost) played by signed
# mail, with real dice, then audited. A data directory from 'hexpost init
# --datadir'; Blue's player has a key made by the real minisign CLI and
# sends signed order files (what 'hexpost orders suggest' proposes, as a
# player would copy them); Red is the built-in opponent. Each turn one mail
# is delivered into the inbox and 'hexpost run --once' takes it in and
# resolves the turn. Checked: the welcome carries the order form; a bad
# file is refused with its line numbers and changes nothing; every
# acknowledgement lists the orders as understood; every report reaches Blue
# with the events, the dice, the map and the roster; the battle ends with a
# result; 'hexpost audit' of the finished campaign passes, and so does its
# exported bundle.
# Usage: bash platoon_mail.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=signed_mail.bash
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start platoon_mail "${1:?usage: platoon_mail.sh /path/to/hexpost}" \
	minisign sqlite3 perl base64
NAME=outpost
TURN=
. "$SRC/tests/e2e/lib-mailgame.sh"

e2e_datadir
new_key blue "$T" || fail "minisign -G"
hp campaign new "$NAME" --ruleset platoon --scenario outpost \
	>/dev/null || fail "campaign new"
hp player add "$NAME" blue --email blue@example.org --name Bea \
	--key "$T/blue.pub" >/dev/null || fail "player add blue"

# The welcome carries the first order form.
run_once
added welcome
grep -q "^#   order PLATOON advance" "$W/welcome" ||
	fail "the welcome has no order form: $(cat "$W/welcome")"

# A bad file: refused with the numbers of its bad lines; nothing changes.
SEQ=0
send() {   # send FILE: sign FILE with Blue's key, mail it, deliver it
	SEQ=$((SEQ + 1))
	signed_mail "$T/blue.key" "$1" "Bea <blue@example.org>" \
		"plt$SEQ@players.example" "orders" "$W/mail$SEQ.eml" ||
		fail "minisign -S"
	deliver "$D/inbox" "$W/mail$SEQ.eml" "$SEQ.plt.e2e"
}
hp orders template "$NAME" --side blue >"$W/bad.txt" || fail "template"
printf 'order b1 advance\nmove b1a Z99\norder b2 fly\n' >>"$W/bad.txt"
first=$(($(wc -l <"$W/bad.txt") - 1))
sqlite3 "$DB" "SELECT * FROM units ORDER BY rowid" >"$W/units.before"
send "$W/bad.txt"
run_once
grep -qxF "mail in: 0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred" \
	"$W/out" || fail "the bad file was not refused: $(cat "$W/out")"
added refusal
for want in "line $first: expected a hex of the map" \
    "line $((first + 1)): no order 'fly'"; do
	grep -qF "$want" "$W/refusal" || {
		cat "$W/refusal" >&2
		fail "the refusal lacks '$want'"
	}
done
sqlite3 "$DB" "SELECT * FROM units ORDER BY rowid" >"$W/units.after"
cmp -s "$W/units.before" "$W/units.after" || fail "a refusal changed the units"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM orders")" = 0 ] ||
	fail "a refused file left an order"

# The battle: one signed file a turn until the result.
result=
for TURN in $(seq 1 30); do
	STEP="turn $TURN"
	hp orders suggest "$NAME" --side blue >"$W/orders.txt" ||
		fail "orders suggest"
	send "$W/orders.txt"
	run_once
	grep -qxF "mail in: 1 accepted, 0 refused, 0 ignored, 0 duplicate, 0 deferred" \
		"$W/out" || fail "not accepted: $(cat "$W/out" "$W/err")"
	grep -qxF "resolved 1 window of $NAME" "$W/out" ||
		fail "not resolved: $(cat "$W/out")"
	# The ack lists the orders as understood: the normalised lines.
	added ack
	grep -qF "The orders as hexpost understood them:" "$W/ack" ||
		fail "the ack has no orders"
	grep -vE '^(#|campaign:|turn:|window:|side:|$)' "$W/orders.txt" |
	    while IFS= read -r line; do
		grep -qxF -- "$line" "$W/ack" || fail "the ack lacks '$line'"
	done || exit 1
	grep -qx 'defend weakest' "$W/ack" || fail "the ack has no defend line"
	# The report: events, the dice, the map and the roster.
	added report
	for want in "Report for Blue platoons (west)." "Initiative: blue rolls" \
	    "Dice rolled this window" "Terrain: , scrub" "  squad  plt"; do
		grep -qF "$want" "$W/report" ||
			fail "the report lacks '$want'"
	done
	# The header, unfolded (a long X-Hexpost-Topic is folded).
	if sed -n '1,/^$/p' "$W/report" | tr -d '\n' | tr '\t' ' ' |
	    grep -q 'X-Hexpost-Topic: .*game over: '; then
		result=$(sed -n 's/^RESULT: //p' "$W/report")
		break
	fi
done
[ -n "$result" ] || fail "no result after $TURN turns"
grep -qE '^(blue|red) wins: |^Draw: ' <<<"$result" || fail "result '$result'"
hp campaign show "$NAME" | grep -qF "status   finished" ||
	fail "the campaign is not finished"
# The audit of the finished campaign, and of its exported bundle.
hp audit "$NAME" >"$W/audit" 2>&1 || fail "audit: $(cat "$W/audit")"
grep -q "audit of $NAME: OK" "$W/audit" || fail "no OK: $(cat "$W/audit")"
hp audit export "$NAME" "$W/bundle" >/dev/null 2>"$W/err" ||
	fail "audit export: $(cat "$W/err")"
"$HEXPOST" audit --bundle "$W/bundle" >"$W/audit2" 2>&1 ||
	fail "audit --bundle: $(cat "$W/audit2")"
echo "platoon_mail: ok ($TURN turns: $result)"
