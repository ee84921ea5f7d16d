#!/bin/bash
# cards_identity: hidden information of cards-ap (seed 004, issue 15)
# stays hidden, through the real mail path. Games of two rounds (a copy of
# the shipped scenario in which nobody draws cards a round, so the sealed
# set of Red holds only the hit tokens Red draws) are played by signed
# mail with fixed plans; each variant differs from the base game in one
# thing hidden from Blue: the values of the hit tokens Red draws (Red's
# sealed seed replaced), and a line of Red's plan that never acts (the
# same nonce, so the same dice). Blue's mail must be byte-identical to
# the base game's, Red's must differ (so the variant did change something).
# Usage: bash cards_identity.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=signed_mail.bash
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start cards_identity "${1:?usage: cards_identity.sh /path/to/hexpost}" \
	minisign sqlite3 perl base64
NAME=cr

new_key blue "$T" && new_key red "$T" || fail "minisign -G"
"$HEXPOST" init --datadir "$T/proto" >/dev/null 2>&1 || fail "init"
sed -e 's/^var: draw\.blue .*/var: draw.blue 0/' \
    -e 's/^var: draw\.red .*/var: draw.red 0/' \
    "$SRC/scenarios/cards-ap/crossroads.scn" >"$T/nodraw.scn"

BLUE='dry pass
move b1 toward F4
move b2 toward F4
move b3 toward F4
move b4 toward F4
move b1 toward F4
move b2 toward F4
move b3 toward F4
move b4 toward F4'
RED='dry pass
fire r1 best caps 1
fire r2 best caps 1
fire r3 best
fire r4 best
fire r1 best
fire r2 best'

# play DIR EXTRA [SQL]: a two-round game in DIR; EXTRA is appended to Red's
# plans; SQL runs on the database right after 'campaign new'. Every mail
# to red and to blue is kept in DIR/red and DIR/blue, Date: lines removed.
play() {
	local dir=$1 extra=$2 sql=${3:-} conf n=0 t s f rcpt
	cp -a "$T/proto" "$dir"
	conf=$dir/hexpost.conf
	sed -i "s|$T/proto|$dir|g" "$conf"
	mkdir -p "$dir/red" "$dir/blue" "$dir/w"
	"$HEXPOST" --config "$conf" campaign new "$NAME" --ruleset cards-ap \
		--scenario "$T/nodraw.scn" --options rounds=2 --seed cards-id \
		>/dev/null 2>&1 || fail "campaign new in $dir"
	[ -z "$sql" ] || sqlite3 "$dir/hexpost.db" "$sql" || fail "sql"
	for s in blue red; do
		"$HEXPOST" --config "$conf" player add "$NAME" $s \
			--email $s@example.org --key "$T/$s.pub" >/dev/null 2>&1 ||
			fail "player add $s"
	done
	"$HEXPOST" --config "$conf" run --once >/dev/null 2>&1 || fail "run"
	for t in 1 2; do
		for s in blue red; do
			f=$dir/w/$s$t.txt
			{
				printf 'campaign: %s\nturn: %d\nwindow: plan\n' \
					"$NAME" $t
				printf 'side: %s\nnonce: %s-%d-nonce\n' $s $s $t
				if [ $s = blue ]; then
					echo "$BLUE"
				else
					echo "$RED"
					[ -z "$extra" ] || echo "$extra"
				fi
			} >"$f"
			n=$((n + 1))
			signed_mail "$T/$s.key" "$f" "$s <$s@example.org>" \
				"cid$n@players.example" orders "$dir/w/m$n.eml" ||
				fail "minisign -S"
			deliver "$dir/inbox" "$dir/w/m$n.eml" "$n.cid.e2e"
			"$HEXPOST" --config "$conf" run --once >"$dir/w/out" \
				2>&1 || fail "run --once: $(cat "$dir/w/out")"
		done
	done
	grep -q "status *finished" <("$HEXPOST" --config "$conf" campaign \
		show "$NAME" 2>/dev/null) || fail "$dir: the game did not end"
	for f in $(ls "$dir/outbox/new"); do
		rcpt=$(sed -n 's/^To: \(.*\)@example.org$/\1/p' \
			"$dir/outbox/new/$f" | head -1)
		[ -n "$rcpt" ] || continue
		grep -v '^Date: ' "$dir/outbox/new/$f" >"$dir/$rcpt/$f"
	done
}

same_for() {
	diff -r "$T/$2/$1" "$T/$3/$1" >"$T/diff" ||
		fail "$1's mail differs between $2 and $3: $(head -40 "$T/diff")"
}
differs_for() {
	! diff -rq "$T/$2/$1" "$T/$3/$1" >/dev/null ||
		fail "$1's mail is the same in $2 and $3: the variant hid nothing"
}

STEP=base
play "$T/g0" ""
grep -rqa "draws a hit token" "$T/g0/blue" ||
	fail "no hit token was drawn in the base game"
STEP="hit-token values"
play "$T/g1" "" "UPDATE sealed_sets SET seed = randomblob(32) WHERE set_mask = 2"
same_for blue g0 g1
differs_for red g0 g1
STEP="hidden plan line"
play "$T/g2" "if occupied A1 then pass"
same_for blue g0 g2
differs_for red g0 g2
echo "cards_identity: OK"
