#!/bin/bash
# fog_identity: hidden information stays hidden, through the real mail path
# (docs/ARCHITECTURE.md §4, G5; docs/AUDIT.md, "Sealed dice"). The test
# ruleset test-fog is played by mail by two players with keys made by the
# real minisign CLI (signed files delivered into the Maildir inbox, every
# mail hexpost sends taken from the Maildir outbox). For each hidden thing
# of Blue's (the scout's starting position, the hand of cards, a sealed
# roll, a hidden order) two games that differ only in that thing give Red
# byte-identical mail: every welcome, acknowledgement and report of every
# window (the Date: header, the wall clock, aside), with the map's picture
# (PNG) and the JSON export attached to each report, and the same picture
# data, PNG and JSON from 'hexpost picture' and 'hexpost export', while
# Blue's own mail does differ (the hidden thing is real). Then a game with real dice is
# played to the end: Red's mail during the game shows none of Blue's sealed
# rolls, and the finished game audits clean with 'hexpost audit', the
# bundle and contrib/hexpost-audit.py; a tampered sealed roll, or a bundle
# without the sealed seeds, fails both bundle audits.
# Usage: bash fog_identity.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=signed_mail.bash
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start fog_identity "${1:?usage: fog_identity.sh /path/to/hexpost}" \
	minisign sqlite3 perl base64 python3
NAME=fog

new_key blue "$T" && new_key red "$T" || fail "minisign -G"
# One server key for every game: a data directory made once, copied.
"$HEXPOST" init --datadir "$T/proto" >/dev/null 2>&1 || fail "init"

# play DIR SEED OPTIONS BLUE1 [SQL]: a two-turn game in DIR (a copy of the
# prototype data directory) with --seed SEED (or real dice if SEED is "-")
# and options OPTIONS; Blue's first-turn move is BLUE1; SQL, if given, runs
# on the database right after 'campaign new' (the sealed-roll variant
# replaces Blue's sealed seed there). Every mail to red and to blue is kept
# in DIR/red and DIR/blue, in order, Date: lines removed.
play() {
	local dir=$1 seed=$2 opts=$3 b1=$4 sql=${5:-} conf n=0 t s f rcpt
	cp -a "$T/proto" "$dir"
	conf=$dir/hexpost.conf
	sed -i "s|$T/proto|$dir|g" "$conf"
	mkdir -p "$dir/red" "$dir/blue" "$dir/w"
	if [ "$seed" = - ]; then
		"$HEXPOST" --config "$conf" campaign new "$NAME" --ruleset test-fog \
			--options "$opts" --allow-test-ruleset >/dev/null 2>&1
	else
		"$HEXPOST" --config "$conf" campaign new "$NAME" --ruleset test-fog \
			--options "$opts" --seed "$seed" --allow-test-ruleset \
			>/dev/null 2>&1
	fi || fail "campaign new in $dir"
	[ -z "$sql" ] || sqlite3 "$dir/hexpost.db" "$sql" || fail "sql"
	for s in blue red; do
		"$HEXPOST" --config "$conf" player add "$NAME" $s \
			--email $s@example.org --key "$T/$s.pub" >/dev/null 2>&1 ||
			fail "player add $s"
	done
	# Report mail carries the map's picture (by default) and, asked
	# for, the JSON export: both are compared with the rest.
	for s in blue red; do
		"$HEXPOST" --config "$conf" player set "$NAME" $s@example.org \
			json-mail on >/dev/null 2>&1 || fail "player set $s"
	done
	"$HEXPOST" --config "$conf" run --once >/dev/null 2>&1 || fail "run"
	for t in 1 2; do
		for s in blue red; do
			f=$dir/w/$s$t.txt
			{
				printf 'campaign: %s\nturn: %d\nwindow: orders\n' \
					"$NAME" $t
				printf 'side: %s\nnonce: %s-%d-nonce\n' $s $s $t
				if [ $s = blue ] && [ $t = 1 ]; then
					echo "move $b1"
				else
					echo "move C1"
				fi
			} >"$f"
			n=$((n + 1))
			signed_mail "$T/$s.key" "$f" "$s <$s@example.org>" \
				"fog$n@players.example" orders "$dir/w/m$n.eml" ||
				fail "minisign -S"
			deliver "$dir/inbox" "$dir/w/m$n.eml" "$n.fog.e2e"
			"$HEXPOST" --config "$conf" run --once >"$dir/w/out" \
				2>&1 || fail "run --once: $(cat "$dir/w/out")"
		done
	done
	grep -q "status *finished" <("$HEXPOST" --config "$conf" campaign \
		show "$NAME" 2>/dev/null) || fail "$dir: the game did not end"
	# Every mail, under its file name (its Message-ID).
	for f in $(ls "$dir/outbox/new"); do
		rcpt=$(sed -n 's/^To: \(.*\)@example.org$/\1/p' \
			"$dir/outbox/new/$f" | head -1)
		[ -n "$rcpt" ] || continue
		grep -v '^Date: ' "$dir/outbox/new/$f" >"$dir/$rcpt/$f"
	done
	# The picture's data, the PNG and the JSON export of each side now.
	for s in blue red; do
		"$HEXPOST" --config "$conf" picture "$NAME" --side $s --text \
			>"$dir/$s/picture.txt" 2>&1 || fail "picture --text"
		"$HEXPOST" --config "$conf" picture "$NAME" --side $s \
			>"$dir/$s/picture.png" 2>&1 || fail "picture"
		"$HEXPOST" --config "$conf" export "$NAME" --side $s --json \
			>"$dir/$s/export.json" 2>&1 || fail "export"
	done
}

# same_for WHO A B: WHO's mail in games A and B is byte-identical.
same_for() {
	diff -r "$T/$2/$1" "$T/$3/$1" >"$T/diff" ||
		fail "$1's mail differs between $2 and $3: $(head -40 "$T/diff")"
}
differs_for() {
	! diff -rq "$T/$2/$1" "$T/$3/$1" >/dev/null ||
		fail "$1's mail is the same in $2 and $3: the variant hid nothing"
}

BASE="blue-start=A0,blue-deck=abcdef"
STEP=base
play "$T/g0" fog-id "$BASE" B1
n=$(ls "$T/g0/red" | wc -l)
[ "$n" -ge 5 ] || fail "red got $n mails, want a welcome, acks and reports"
grep -q "Sealed set red:" "$T/g0/red/"*welcome* ||
	fail "red's welcome has no sealed set statement"
! grep -q "Sealed set blue:" "$T/g0/red/"*welcome* ||
	fail "red's welcome carries blue's sealed set"
grep -q "S:blue:" "$T/g0/blue/"*report* ||
	fail "blue's reports show no sealed roll of blue's"
! grep -q "S:blue:\|card for blue\|spotting for blue\|Blue scout" \
	"$T/g0/red/"* || fail "red's mail shows something of blue's hidden"
# Red's reports carry the picture and the JSON (so the comparisons below
# cover their bytes); the picture's data shows Red's scout, not Blue's.
grep -l 'filename=.*map-turn.*\.png' "$T/g0/red/"*report* >/dev/null ||
	fail "red's reports carry no picture"
grep -l 'filename=.*view-turn.*\.json' "$T/g0/red/"*report* >/dev/null ||
	fail "red's reports carry no JSON"
grep -q '^unit .*\[rs\]' "$T/g0/red/picture.txt" ||
	fail "red's picture has no red scout: $(cat "$T/g0/red/picture.txt")"
! grep -q '\[bs\]' "$T/g0/red/picture.txt" ||
	fail "red's picture shows blue's scout"

# variant WHAT DIR OPTIONS BLUE1 [SQL]: game DIR differs from g0 only in
# WHAT (one of Blue's hidden things): Red's mail is the same, Blue's not.
variant() {
	STEP=$1
	play "$T/$2" fog-id "$3" "$4" "${5:-}"
	same_for red g0 "$2"
	differs_for blue g0 "$2"
}
variant "hidden unit position" g1 "blue-start=D0,blue-deck=abcdef" B1
variant "hand of cards" g2 "blue-start=A0,blue-deck=uvwxyz" B1
variant "sealed roll" g3 "$BASE" B1 \
	"UPDATE sealed_sets SET seed = randomblob(32) WHERE set_mask = 1"
variant "hidden order" g4 "$BASE" D2

# A game with real dice, audited at its end.
STEP="audit"
play "$T/r" - "$BASE" B1
conf=$T/r/hexpost.conf
"$HEXPOST" --config "$conf" audit "$NAME" >"$T/audit" 2>&1 ||
	fail "hexpost audit: $(cat "$T/audit")"
grep -q "3 sealed set statements signed .* 12 sealed dice re-derived" \
	"$T/audit" || fail "the audit checked no sealed dice: $(cat "$T/audit")"
# Red was never shown a sealed roll of Blue's: none of its values, seed or
# key is in Red's mail.
for v in $(sqlite3 "$T/r/hexpost.db" "SELECT hex(seed) FROM sealed_sets \
    WHERE set_mask = 1"); do
	! grep -qi "$v" "$T/r/red/"* || fail "red's mail has blue's sealed seed"
done
! grep -q "S:blue:" "$T/r/red/"* || fail "red's mail lists a blue sealed roll"
"$HEXPOST" --config "$conf" audit export "$NAME" "$T/bundle" >/dev/null 2>&1 ||
	fail "audit export"
"$HEXPOST" audit --bundle "$T/bundle" >"$T/audit" 2>&1 ||
	fail "hexpost audit --bundle: $(cat "$T/audit")"
python3 "$SRC/contrib/hexpost-audit.py" "$T/bundle" >"$T/audit" 2>&1 ||
	fail "hexpost-audit.py: $(cat "$T/audit")"
grep -q "3 sealed sets checked .* 12 sealed dice re-derived" "$T/audit" ||
	fail "hexpost-audit.py checked no sealed dice: $(cat "$T/audit")"
# Tampering with one sealed roll fails both bundle audits.
cp -a "$T/bundle" "$T/bad"
f=$T/bad/windows/0001/sealed-rolls.txt
perl -0pi -e 's/^(roll: 1 2 6 6 )(\d)/$1 . ($2 == 6 ? 1 : $2 + 1)/me' "$f"
cmp -s "$f" "$T/bundle/windows/0001/sealed-rolls.txt" && fail "no tamper"
! "$HEXPOST" audit --bundle "$T/bad" >"$T/audit" 2>&1 ||
	fail "hexpost audit passed a tampered sealed roll"
grep -q "sealed roll .* differs" "$T/audit" || fail "$(cat "$T/audit")"
! python3 "$SRC/contrib/hexpost-audit.py" "$T/bad" >"$T/audit" 2>&1 ||
	fail "hexpost-audit.py passed a tampered sealed roll"
grep -q "sealed roll #2 of set 1" "$T/audit" || fail "$(cat "$T/audit")"
# Without the sealed seeds (a bundle of a game not ended) both refuse.
rm -rf "$T/bad" && cp -a "$T/bundle" "$T/bad" && rm "$T/bad/sealed/1.seed"
! "$HEXPOST" audit --bundle "$T/bad" >/dev/null 2>&1 ||
	fail "hexpost audit passed a bundle without a sealed seed"
! python3 "$SRC/contrib/hexpost-audit.py" "$T/bad" >/dev/null 2>&1 ||
	fail "hexpost-audit.py passed a bundle without a sealed seed"
echo "fog_identity: OK"
