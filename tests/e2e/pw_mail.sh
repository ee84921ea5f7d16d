#!/bin/bash
# pw_mail: a portable-modern battle played by mail. A data directory from
# 'hexpost init --datadir' (Maildir inbox and outbox); Blue's player has a
# key made by the real minisign CLI and sends signed order files (Blue's
# orders are what 'hexpost orders suggest' proposes, as a player would
# copy them); Red is the built-in opponent. Each turn one mail is delivered
# into the inbox and 'hexpost run --once' takes it in and resolves the
# turn. Checked: the welcome carries the order form; a bad file is refused
# with its line numbers and changes nothing; every acknowledgement lists the
# orders as understood (the normalised lines); every turn's report reaches
# Blue with the events, the dice, the map and the roster, and shows none of
# Red's units that Blue cannot see (the moderator's map is the reference);
# the battle ends with a result in the last report's subject and body.
# Usage: bash pw_mail.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=signed_mail.bash
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start pw_mail "${1:?usage: pw_mail.sh /path/to/hexpost}" minisign \
	sqlite3 perl base64
NAME=crossing
TURN=

. "$SRC/tests/e2e/lib-mailgame.sh"

e2e_datadir
new_key blue "$T" || fail "minisign -G"
hp campaign new "$NAME" --ruleset portable-modern --seed pw-mail \
	>/dev/null || fail "campaign new"
hp player add "$NAME" blue --email blue@example.org --name Bea \
	--key "$T/blue.pub" >/dev/null || fail "player add blue"

# The welcome carries the first order form.
run_once
added welcome
grep -q "^# Activation dice this turn: " "$W/welcome" ||
	fail "the welcome has no order form: $(cat "$W/welcome")"

# A bad file: refused with the numbers of its bad lines; nothing changes.
SEQ=0
send() {   # send FILE: sign FILE with Blue's key, mail it, deliver it
	SEQ=$((SEQ + 1))
	signed_mail "$T/blue.key" "$1" "Bea <blue@example.org>" \
		"pw$SEQ@players.example" "orders" "$W/mail$SEQ.eml" ||
		fail "minisign -S"
	deliver "$D/inbox" "$W/mail$SEQ.eml" "$SEQ.pw.e2e"
}
hp orders template "$NAME" --side blue >"$W/bad.txt" || fail "template"
printf 'b3 move Z9\nb12 fly\nshoot b3 J6\n' >>"$W/bad.txt"
first=$(($(wc -l <"$W/bad.txt") - 2))
sqlite3 "$DB" "SELECT * FROM units ORDER BY rowid" >"$W/units.before"
send "$W/bad.txt"
run_once
grep -qxF "mail in: 0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred" \
	"$W/out" || fail "the bad file was not refused: $(cat "$W/out")"
added refusal
for want in "line $first: expected a hex of the map" \
    "line $((first + 1)): unknown action 'fly'" \
    "line $((first + 2)): b3 (Infantry) is not artillery"; do
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
hidden=0
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
	grep -qx 'retreat cover' "$W/ack" || fail "the ack has no retreat line"
	# The report: events, the dice, the map and the roster.
	added report
	for want in "Report for Blue (attacker)." "1. Artillery fire phase" \
	    "Dice rolled this window" "Terrain: W wood" "  id   type"; do
		grep -qF "$want" "$W/report" ||
			fail "the report lacks '$want'"
	done
	# Fog: no Red unit in Blue's roster that Blue's map does not show.
	hp map "$NAME" --side blue >"$W/bluemap" || fail "map blue"
	hp map "$NAME" >"$W/modmap" || fail "map"
	for r in $(awk '$1 ~ /^r[0-9]+$/ { print $1 }' "$W/modmap"); do
		if ! grep -q "^  $r " "$W/bluemap"; then
			hidden=$((hidden + 1))
			! grep -q "^  $r " "$W/report" ||
				fail "Blue's report shows $r, hidden from Blue"
		fi
	done
	# The header, unfolded (a long X-Hexpost-Topic is folded).
	if sed -n '1,/^$/p' "$W/report" | tr -d '\n' | tr '\t' ' ' |
	    grep -q 'X-Hexpost-Topic: [^:]*: turn .*game over: '; then
		result=$(sed -n 's/^RESULT: //p' "$W/report")
		break
	fi
done
[ -n "$result" ] || fail "no result after $TURN turns"
[ "$hidden" -gt 0 ] || fail "Blue never had a Red unit out of sight"
grep -qE '^(blue|red) wins: |^Draw: ' <<<"$result" || fail "result '$result'"
hp campaign show "$NAME" | grep -qF "status   finished" ||
	fail "the campaign is not finished"
echo "pw_mail: ok ($TURN turns, $hidden hidden Red units over the turns: $result)"
