#!/bin/bash
# decide_mail: a game of the engine's test ruleset test-decide played by
# signed mail (real minisign keys, Maildir inbox and outbox, 'hexpost run
# --once'), through resolutions that stop for two sides' different
# decisions and resume (issue 10, G1/G4). Checked: campaign new refuses a
# test ruleset without --allow-test-ruleset, and 'rules list' marks it; the
# first initiative is rolled before turn 1 in a window naming no side (G7);
# after both sides' orders the resolution stops and each side's report
# carries its own question and answer file (not the other's); the answers
# come by mail, except one that is missing at the deadline and is filled by
# the campaign's hold policy (the template's default answer); the game
# ends; 'hexpost audit', the bundle audit and contrib/hexpost-audit.py pass
# the finished game (test dice accepted), and a tampered answer file in the
# bundle fails both bundle verifiers.
# Usage: bash decide_mail.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=signed_mail.bash
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start decide_mail "${1:?usage: decide_mail.sh /path/to/hexpost}" \
	minisign sqlite3 perl base64 python3
NAME=duel
NOW=$(date +%s)

hp() {
	HEXPOST_NOW=$NOW "$HEXPOST" --config "$CONF" "$@"
}

# run_once: one pass; the outbox files it added are listed in $W/added.
run_once() {
	ls "$D/outbox/new" | sort >"$W/before"
	hp run --once >"$W/out" 2>"$W/err" || {
		cat "$W/out" "$W/err" >&2
		fail "run --once exited $?"
	}
	ls "$D/outbox/new" | sort | comm -13 "$W/before" - >"$W/added"
}

# added KIND WHO: the one KIND mail the last run added for WHO, decoded
# into $W/KIND.WHO.
added() {
	local f n=0 hit=
	for f in $(grep "^hexpost\.$1\." "$W/added"); do
		grep -qx "To: $2@example.org" "$D/outbox/new/$f" || continue
		n=$((n + 1))
		hit=$f
	done
	[ "$n" -eq 1 ] || fail "$n new $1 mails for $2, want 1: $(cat "$W/added")"
	decoded "$D/outbox/new/$hit" >"$W/$1.$2"
}

SEQ=0
send() {   # send WHO FILE: sign FILE with WHO's key, mail it, deliver it
	SEQ=$((SEQ + 1))
	signed_mail "$T/$1.key" "$2" "$1 <$1@example.org>" \
		"decide$SEQ@players.example" "orders" "$W/mail$SEQ.eml" ||
		fail "minisign -S"
	deliver "$D/inbox" "$W/mail$SEQ.eml" "$SEQ.decide.e2e"
}

# answer WHO BODY: WHO's file for the open window, from the template in
# its last report with the answer line replaced by BODY.
answer() {
	hp orders template "$NAME" --side "$1" >"$W/$1.tpl" || fail "template"
	grep -E '^(campaign|turn|window|side|nonce):' "$W/$1.tpl" >"$W/$1.txt"
	printf '%s\n' "$2" >>"$W/$1.txt"
}

e2e_datadir
e2e_keys north south
STEP=setup
"$HEXPOST" --config "$CONF" rules list | grep -q '^test-decide .* (test)$' ||
	fail "rules list does not mark test-decide as a test ruleset"
hp campaign new "$NAME" --ruleset test-decide --seed decide-mail \
	>/dev/null 2>"$W/err" && fail "a test ruleset without the flag"
grep -qF -- "--allow-test-ruleset" "$W/err" || fail "refusal: $(cat "$W/err")"
hp campaign new "$NAME" --ruleset test-decide --seed decide-mail \
	--allow-test-ruleset >/dev/null || fail "campaign new"
for s in north south; do
	hp player add "$NAME" $s --email $s@example.org --name $s \
		--key "$T/$s.pub" >/dev/null || fail "player add $s"
done
hp moderate "$NAME" set missing hold >/dev/null || fail "set missing hold"
sed -i -e 's/^deadline_hours = .*/deadline_hours = 24/' \
	-e 's/^remind_hours = .*/remind_hours = 0/' "$CONF"
# G7: the initiative was rolled when the campaign was created, before
# turn 1, in a window naming no side.
[ "$(sqlite3 "$DB" "SELECT turn, name, sides, state FROM windows ORDER BY
    id LIMIT 1")" = "0|deploy|0|resolved" ] || fail "no resolved turn-0 window"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM dice d JOIN windows w ON
    w.id = d.window_id WHERE w.turn = 0")" -ge 2 ] ||
	fail "no initiative dice before turn 1"
run_once
added welcome north
grep -q '^attack 2$' "$W/welcome.north" || fail "no order form in the welcome"

stops=0
filled=0
for TURN in 1 2 3 4; do
	STEP="turn $TURN"
	for s in north south; do
		answer $s "attack $(( TURN % 3 + 1 ))"
		send $s "$W/$s.txt"
	done
	run_once
	grep -qxF "mail in: 2 accepted, 0 refused, 0 ignored, 0 duplicate, 0 deferred" \
		"$W/out" || fail "orders not accepted: $(cat "$W/out" "$W/err")"
	# The stop: each side's report asks it its own question.
	added report north
	added report south
	grep -qF "press: roll your attack dice again" "$W/report.north" ||
		fail "north's report has no question: $(cat "$W/report.north")"
	grep -qF "window: decide" "$W/report.north" ||
		fail "north's report has no answer file"
	grep -qF "reserve K (0-2)" "$W/report.north" &&
		fail "north's report carries south's question"
	grep -qF "reserve K (0-2)" "$W/report.south" ||
		fail "south's report has no question"
	grep -qF "press: roll your attack" "$W/report.south" &&
		fail "south's report carries north's question"
	stops=$((stops + 1))
	# North answers by mail; south answers only in turn 1, else misses
	# the deadline and the hold policy answers for it.
	answer north withdraw
	send north "$W/north.txt"
	if [ "$TURN" = 1 ]; then
		answer south "reserve 2"
		send south "$W/south.txt"
		run_once
		grep -qxF "resolved 1 window of $NAME" "$W/out" ||
			fail "the answers did not resume it: $(cat "$W/out")"
	else
		run_once
		grep -q "resolved" "$W/out" && fail "resolved without south"
		NOW=$((NOW + 25 * 3600))
		run_once
		grep -qxF "resolved 1 window of $NAME" "$W/out" ||
			fail "not resolved at the deadline: $(cat "$W/out" "$W/err")"
		filled=$((filled + 1))
	fi
	added report north
	grep -qF "North withdraws" "$W/report.north" ||
		fail "north's answer was not used: $(cat "$W/report.north")"
	if grep -q '^RESULT: ' "$W/report.north"; then
		break
	fi
done
STEP=end
grep -q '^RESULT: ' "$W/report.north" || fail "no result after $TURN turns"
[ "$filled" -ge 1 ] || fail "no answer was filled at the deadline"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM orders WHERE source =
    'deadline-hold'")" = "$filled" ] || fail "deadline-hold files"

# The audits of the finished game, through the stops.
hp audit "$NAME" --accept-test-dice >"$W/audit" 2>&1 ||
	fail "audit: $(cat "$W/audit")"
grep -qF "$stops resolutions stopped to ask and resumed" "$W/audit" ||
	fail "audit does not count the stops: $(cat "$W/audit")"
hp audit export "$NAME" "$T/bundle" >/dev/null || fail "export"
hp audit --bundle "$T/bundle" --accept-test-dice >"$W/audit" 2>&1 ||
	fail "audit --bundle: $(cat "$W/audit")"
python3 "$SRC/contrib/hexpost-audit.py" --accept-test-dice "$T/bundle" \
	>"$W/py" 2>&1 || fail "hexpost-audit.py: $(cat "$W/py")"
# A tampered answer file (north's first, signed, answer) fails both.
f=$(grep -l '^window: decide' "$T"/bundle/windows/*/orders/north.txt | head -1)
[ -n "$f" ] || fail "no answer file in the bundle"
sed -i 's/^withdraw$/press/' "$f"
hp audit --bundle "$T/bundle" --accept-test-dice >"$W/audit" 2>&1 &&
	fail "audit --bundle passed a tampered answer"
grep -qF "north's order file" "$W/audit" || fail "audit: $(cat "$W/audit")"
python3 "$SRC/contrib/hexpost-audit.py" --accept-test-dice "$T/bundle" \
	>"$W/py" 2>&1 && fail "hexpost-audit.py passed a tampered answer"
grep -qF "north's order file" "$W/py" || fail "py: $(cat "$W/py")"
echo "decide_mail: ok ($TURN turns, $stops stops, $filled answers filled at the deadline)"
