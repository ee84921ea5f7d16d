#!/bin/bash
# skirmish_mail: the WWII skirmish rules (seed 003) by signed mail, with
# their fog of war. Players' keys are made by the real minisign CLI; every
# order file is signed, delivered into the Maildir inbox and taken in by
# 'hexpost run --once'; every mail hexpost sends is taken from the outbox.
#  1. Hidden information: two games that differ only in where a hidden Blue
#     element stands (behind a row of stone buildings, out of every Red
#     sight) give Red byte-identical mail for three turns (welcome, acks,
#     reports; the Date: header aside), while Blue's mail differs. An order
#     naming that hidden element is refused with the same words as one
#     naming an element that does not exist.
#  2. The shipped crossroads battle played to its end with real dice:
#     Blue's player sends what 'hexpost orders suggest' proposes (the
#     built-in opponent from Blue's own view), Red is the built-in
#     opponent. Every turn is accepted and reported; the battle ends with a
#     result, everything revealed; 'hexpost audit' passes, and so do the
#     exported bundle's audits (hexpost and contrib/hexpost-audit.py).
# Usage: bash skirmish_mail.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=signed_mail.bash
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start skirmish_mail "${1:?usage: skirmish_mail.sh /path/to/hexpost}" \
	minisign sqlite3 perl base64 python3

new_key blue "$T" && new_key red "$T" || fail "minisign -G"
"$HEXPOST" init --datadir "$T/proto" >/dev/null 2>&1 || fail "init"

# The identity board: a row of stone buildings (row 4) hides the north
# from the south. Blue's b1 and Red's r1 face each other in the open in
# the south; Blue's bx stands hidden in the north at BX.
scenario() {
	cat <<EOF
ruleset: skirmish-ww2
name: identity
map: 6 8
legend: . open
legend: B stone
terrain: ......
terrain: ......
terrain: ......
terrain: BBBBBB
terrain: ......
terrain: ......
terrain: ......
terrain: ......
side: blue Blue
side: red Red
unit: b1 rifle blue A5
unit: bx rifle blue $1
unit: r1 rifle red F8
turns: 10
EOF
}

# play DIR BX: three turns of the identity board with bx at BX, both sides
# by signed mail (the same hand-written orders in every game). Every mail
# to red and to blue is kept in DIR/red and DIR/blue, Date: lines removed.
play() {
	local dir=$1 conf n=0 t s f rcpt
	cp -a "$T/proto" "$dir"
	conf=$dir/hexpost.conf
	sed -i "s|$T/proto|$dir|g" "$conf"
	mkdir -p "$dir/red" "$dir/blue" "$dir/w"
	scenario "$2" >"$dir/id.scn"
	"$HEXPOST" --config "$conf" campaign new id --ruleset skirmish-ww2 \
		--scenario "$dir/id.scn" --seed skm-id >/dev/null 2>&1 ||
		fail "campaign new in $dir"
	for s in blue red; do
		"$HEXPOST" --config "$conf" player add id $s \
			--email $s@example.org --key "$T/$s.pub" >/dev/null 2>&1 ||
			fail "player add $s"
	done
	"$HEXPOST" --config "$conf" run --once >/dev/null 2>&1 || fail "run"
	for t in 1 2 3; do
		for s in blue red; do
			f=$dir/w/$s$t.txt
			{
				printf 'campaign: id\nturn: %d\nwindow: orders\n' $t
				printf 'side: %s\nnonce: %s-%d-nonce\n' $s $s $t
				if [ $s = blue ]; then
					echo "b1 F fire r1"
					echo "bx F opfire"
				else
					echo "r1 F fire b1"
				fi
			} >"$f"
			n=$((n + 1))
			signed_mail "$T/$s.key" "$f" "$s <$s@example.org>" \
				"skm$n@players.example" orders "$dir/w/m$n.eml" ||
				fail "minisign -S"
			deliver "$dir/inbox" "$dir/w/m$n.eml" "$n.skm.e2e"
			"$HEXPOST" --config "$conf" run --once >"$dir/w/out" \
				2>&1 || fail "run --once: $(cat "$dir/w/out")"
			grep -q "1 accepted" "$dir/w/out" ||
				fail "$dir turn $t $s: $(cat "$dir/w/out")"
		done
	done
	for f in $(ls "$dir/outbox/new"); do
		rcpt=$(sed -n 's/^To: \(.*\)@example.org$/\1/p' \
			"$dir/outbox/new/$f" | head -1)
		[ -n "$rcpt" ] || continue
		grep -v '^Date: ' "$dir/outbox/new/$f" >"$dir/$rcpt/$f"
	done
}

STEP=identity
play "$T/g0" B2
play "$T/g1" E1
n=$(ls "$T/g0/red" | wc -l)
[ "$n" -ge 7 ] || fail "red got $n mails, want a welcome, acks and reports"
diff -r "$T/g0/red" "$T/g1/red" >"$T/diff" ||
	fail "red's mail differs with bx moved: $(head -40 "$T/diff")"
! diff -rq "$T/g0/blue" "$T/g1/blue" >/dev/null ||
	fail "blue's mail is the same in both games: the variant hid nothing"
# (As a word: a base64 signature may hold the letters "bx".)
! grep -qE '(^| )bx( |$|[(:,.])' "$T/g0/red/"* ||
	fail "red's mail names the hidden bx"
grep -qE '(^| )bx( |$|[(:,.])' "$T/g0/blue/"* ||
	fail "blue's mail never names its own bx"
# Red's order naming the hidden bx, or an element that does not exist,
# is refused with the same words.
conf=$T/g0/hexpost.conf
for id in bx zz; do
	printf 'campaign: id\nturn: 4\nwindow: orders\nside: red\nr1 F fire %s\n' \
		$id >"$T/w-$id.txt"
	"$HEXPOST" --config "$conf" orders submit id "$T/w-$id.txt" \
		--sig /dev/null >"$T/refused-$id" 2>&1 && fail "$id accepted"
done
grep -q "no enemy element 'bx' in sight" "$T/refused-bx" ||
	fail "bx: $(cat "$T/refused-bx")"
sed 's/zz/bx/g' "$T/refused-zz" | diff - "$T/refused-bx" >/dev/null ||
	fail "a hidden and a missing element are refused differently"

# The crossroads battle, Blue by mail, Red by the built-in opponent.
STEP=battle
e2e_datadir
NAME=crossroads
. "$SRC/tests/e2e/lib-mailgame.sh"
hp campaign new "$NAME" --ruleset skirmish-ww2 >/dev/null ||
	fail "campaign new"
hp player add "$NAME" blue --email blue@example.org --name Bea \
	--key "$T/blue.pub" >/dev/null || fail "player add blue"
run_once
added welcome
grep -q "^# One line an element: ELEMENT ORDER" "$W/welcome" ||
	fail "the welcome has no order form"
! grep -q "rmg\|rfo\|r3 " "$W/welcome" ||
	fail "the welcome shows Red's hidden elements"
SEQ=0
send() {
	SEQ=$((SEQ + 1))
	signed_mail "$T/blue.key" "$1" "Bea <blue@example.org>" \
		"skmb$SEQ@players.example" "orders" "$W/mail$SEQ.eml" ||
		fail "minisign -S"
	deliver "$D/inbox" "$W/mail$SEQ.eml" "$SEQ.skmb.e2e"
}
# A bad file: refused with its line numbers.
hp orders template "$NAME" --side blue >"$W/bad.txt" || fail "template"
printf 'initiative maybe\nzz F\n' >>"$W/bad.txt"
first=$(($(wc -l <"$W/bad.txt") - 1))
send "$W/bad.txt"
run_once
added refusal
grep -qF "line $first: expected 'initiative first' or 'initiative second'" \
	"$W/refusal" || fail "refusal: $(cat "$W/refusal")"
grep -qF "line $((first + 1)): no element 'zz' of yours in play" \
	"$W/refusal" || fail "refusal: $(cat "$W/refusal")"
result=
for TURN in $(seq 1 12); do
	STEP="turn $TURN"
	hp orders suggest "$NAME" --side blue >"$W/orders.txt" ||
		fail "orders suggest"
	send "$W/orders.txt"
	run_once
	grep -qxF "resolved 1 window of $NAME" "$W/out" ||
		fail "not resolved: $(cat "$W/out" "$W/err")"
	added ack
	added report
	for want in "Initiative: blue" "Terrain: , scrub" "  elem   side"; do
		grep -qF "$want" "$W/report" || fail "the report lacks '$want'"
	done
	if sed -n '1,/^$/p' "$W/report" | tr -d '\n' | tr '\t' ' ' |
	    grep -q 'X-Hexpost-Topic: .*game over: '; then
		result=$(sed -n 's/^RESULT: //p' "$W/report")
		grep -q "Everything is revealed" "$W/report" ||
			fail "the last report reveals nothing"
		break
	fi
done
[ -n "$result" ] || fail "no result after $TURN turns"
hp audit "$NAME" >"$W/audit" 2>&1 || fail "audit: $(cat "$W/audit")"
grep -q "audit of $NAME: OK" "$W/audit" || fail "no OK: $(cat "$W/audit")"
grep -q "sealed dice re-derived" "$W/audit" ||
	fail "the audit checked no sealed dice: $(cat "$W/audit")"
hp audit export "$NAME" "$W/bundle" >/dev/null 2>"$W/err" ||
	fail "audit export: $(cat "$W/err")"
"$HEXPOST" audit --bundle "$W/bundle" >"$W/audit2" 2>&1 ||
	fail "audit --bundle: $(cat "$W/audit2")"
python3 "$SRC/contrib/hexpost-audit.py" "$W/bundle" >"$W/audit3" 2>&1 ||
	fail "hexpost-audit.py: $(cat "$W/audit3")"
echo "skirmish_mail: ok ($TURN turns: $result)"
