#!/bin/bash
# many_campaigns: one player's key in 20 campaigns, the first of them
# finished, reaches every one by signed mail (issue 21, item 5: before, the
# 16 first campaigns of the key were looked at, finished ones among them, and
# a file for the 17th was refused as "for campaign 'g17', not 'g1'"). A file
# naming a campaign the key does not play in is refused with the real cause.
# Usage: bash many_campaigns.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
. "$SRC/tests/e2e/signed_mail.bash"
e2e_start many_campaigns "${1:?usage: many_campaigns.sh /path/to/hexpost}" \
	minisign sqlite3
e2e_datadir
e2e_keys ann
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }

for i in $(seq 1 20); do
	hp campaign new "g$i" --ruleset fire-and-movement --seed "many$i" ||
		fail "campaign g$i: $(cat "$T/err")"
	hp player add "g$i" blue --email ann@example.org --name Ann \
		--key "$T/ann.pub" || fail "player g$i: $(cat "$T/err")"
done
hp moderate g1 end || hp campaign end g1 2>/dev/null ||
	sqlite3 "$DB" "UPDATE campaigns SET status = 'finished' WHERE name = 'g1'"
hp run --once || fail "run: $(cat "$T/err")"

# send CAMPAIGN N: Ann's turn-1 orders for CAMPAIGN, mailed as message N.
send() {
	hp orders template g20 --side blue && head -n 4 "$T/out" >"$W/o$2.txt" ||
		fail "template $1"
	sed -i "s/^campaign: .*/campaign: $1/" "$W/o$2.txt"
	printf 'nonce: many-%s\n' "$2" >>"$W/o$2.txt"
	hp orders suggest g20 --side blue && sed '1,4d' "$T/out" >>"$W/o$2.txt" ||
		fail "suggest"
	signed_mail "$T/ann.key" "$W/o$2.txt" ann@example.org "m$2@example.org" \
		"orders $2" "$W/m$2.eml" || fail "sign"
	deliver "$D/inbox" "$W/m$2.eml" "m$2" || fail "deliver"
}

STEP="the 20th campaign"
send g20 1
hp run --once || fail "run: $(cat "$T/err")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM orders o JOIN windows w ON w.id = o.window_id JOIN campaigns c ON c.id = w.campaign_id WHERE c.name = 'g20' AND o.source = 'mail'")" -ge 1 ] ||
	fail "g20 got no orders: $(sqlite3 "$DB" "SELECT outcome, detail FROM messages ORDER BY rowid DESC LIMIT 1" 2>&1)"
grep -rl "campaign 'g20', not" "$D/outbox/new" >/dev/null 2>&1 &&
	fail "refused as for another campaign"

STEP="a campaign the key does not play in"
send nowhere 2
hp run --once || fail "run: $(cat "$T/err")"
f=$(grep -l "^Subject: Re: orders 2" "$D"/outbox/new/* 2>/dev/null | head -1)
[ -n "$f" ] || fail "no refusal naming the campaign"
decoded "$f" | tr '\n' ' ' | grep -q "for campaign 'nowhere', but key [0-9A-F]* plays in no campaign of that name (it plays in 20 campaigns, among them 'g2')" ||
	fail "refusal does not name the cause: $(decoded "$f")"
echo "many_campaigns: ok"
