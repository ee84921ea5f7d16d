#!/bin/bash
# cards_mail: a game of cards-ap (seed 004, issue 15) played to its end by
# signed mail (real minisign keys, Maildir inbox and outbox, 'hexpost run
# --once'): each side sends a round plan (the plan 'orders suggest' gives,
# under the header of its own order form) and answers only when its report
# asks it (a stop fired or its plan ran dry); red misses its first answer,
# which the campaign's hold policy gives at the deadline (an answer with
# no action: the rest of its plan goes on). Checked: each report shows
# its side's own hand and never the other's; the turn-0 window drew the
# first cards before turn 1; the median of the mails per side per round is
# at most 3; 'hexpost audit', the bundle audit and contrib/hexpost-audit.py
# pass the finished game (test dice accepted), whose dice logs hold every
# card and token draw (sealed rolls revealed at the end).
# Usage: bash cards_mail.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=signed_mail.bash
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start cards_mail "${1:?usage: cards_mail.sh /path/to/hexpost}" \
	minisign sqlite3 perl base64 python3
NAME=crossroads

NOW=$(date +%s)

hp() {
	HEXPOST_NOW=$NOW "$HEXPOST" --config "$CONF" "$@"
}

run_once() {
	hp run --once >"$W/out" 2>"$W/err" || {
		cat "$W/out" "$W/err" >&2
		fail "run --once exited $?"
	}
}

SEQ=0
send() {   # send WHO FILE: sign FILE with WHO's key, mail it, deliver it
	SEQ=$((SEQ + 1))
	signed_mail "$T/$1.key" "$2" "$1 <$1@example.org>" \
		"cards$SEQ@players.example" "orders" "$W/mail$SEQ.eml" ||
		fail "minisign -S"
	deliver "$D/inbox" "$W/mail$SEQ.eml" "$SEQ.cards.e2e"
}

# plan WHO: WHO's file for the open window: its form's header and the
# plan 'orders suggest' proposes.
plan() {
	hp orders template "$NAME" --side "$1" >"$W/$1.tpl" || fail "template"
	grep -E '^(campaign|turn|window|side):' "$W/$1.tpl" >"$W/$1.txt"
	echo "nonce: $1-$SEQ-cards-mail" >>"$W/$1.txt"
	hp orders suggest "$NAME" --side "$1" | grep -vE \
		'^(campaign|turn|window|side|nonce):' >>"$W/$1.txt" ||
		fail "suggest"
}

e2e_datadir
e2e_keys blue red
STEP=setup
hp campaign new "$NAME" --ruleset cards-ap --seed cards-mail \
	--options rounds=3 >/dev/null ||
	fail "campaign new"
for s in blue red; do
	hp player add "$NAME" $s --email $s@example.org --name $s \
		--key "$T/$s.pub" >/dev/null || fail "player add $s"
done
[ "$(sqlite3 "$DB" "SELECT turn, name, sides, state FROM windows ORDER BY
    id LIMIT 1")" = "0|deploy|0|resolved" ] || fail "no resolved turn-0 window"
hp moderate "$NAME" set missing hold >/dev/null || fail "set missing hold"
sed -i -e 's/^deadline_hours = .*/deadline_hours = 24/' \
	-e 's/^remind_hours = .*/remind_hours = 0/' "$CONF"
run_once
hands=0
held=0
for n in $(seq 1 60); do
	STEP="window $n"
	hp campaign show "$NAME" >"$W/show"
	grep -qF "status   finished" "$W/show" && break
	who=$(sed -n 's/.*waiting for: //p' "$W/show")
	[ -n "$who" ] || fail "no open window: $(cat "$W/show")"
	window=$(sed -n "s/.*window *turn [0-9]* '\([a-z]*\)'.*/\1/p" "$W/show")
	for s in $who; do
		# Red misses its first answer: the hold policy answers at the
		# deadline (no action: the rest of its plan goes on).
		[ "$s" = red ] && [ "$window" = answer ] && [ "$held" = 0 ] &&
			continue
		plan "$s"
		send "$s" "$W/$s.txt"
	done
	rm -f "$D"/outbox/new/*
	run_once
	if [ "$window" = answer ] && [ "$held" = 0 ] &&
	    echo " $who " | grep -q " red "; then
		grep -q "resolved" "$W/out" && fail "resolved without red"
		NOW=$((NOW + 25 * 3600))
		run_once
		held=1
	fi
	grep -q "resolved 1 window of $NAME" "$W/out" ||
		fail "not resolved: $(cat "$W/out" "$W/err")"
	for f in "$D"/outbox/new/*; do
		grep -qx "To: blue@example.org" "$f" || continue
		decoded "$f" >"$W/blue.mail"
		grep -qF "Hand of red" "$W/blue.mail" &&
			fail "blue's mail shows red's hand"
		grep -qF "Hand of blue" "$W/blue.mail" && hands=$((hands + 1))
	done
	for f in "$D"/outbox/new/*; do
		grep -qx "To: red@example.org" "$f" || continue
		decoded "$f" >"$W/red.mail"
		grep -qF "Hand of blue" "$W/red.mail" &&
			fail "red's mail shows blue's hand"
	done
done
STEP=end
grep -qF "status   finished" "$W/show" || fail "no result after 60 windows"
[ "$hands" -ge 1 ] || fail "blue's mails show no hand"
[ "$held" = 1 ] || fail "red was never asked alone, no answer held"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM orders WHERE source =
    'deadline-hold'")" = 1 ] || fail "no deadline-hold answer"
# Mails per side per round: the windows naming each side, by turn.
med=$(sqlite3 "$DB" "SELECT turn, sides FROM windows WHERE turn > 0" |
	awk -F'|' '{ if ($2 % 2 == 1) b[$1]++; if (int($2 / 2) % 2 == 1) r[$1]++ }
	END { for (t in b) print b[t]; for (t in r) print r[t] }' | sort -n |
	awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
[ "$med" -le 3 ] || fail "median mails per side per round $med > 3"
# Every card and token draw is a sealed roll in the signed dice logs.
[ "$(sqlite3 "$DB" "SELECT count(*) FROM sealed_dice WHERE purpose LIKE
    'card for %'")" -ge 2 ] || fail "no card draws recorded"
hp audit "$NAME" --accept-test-dice >"$W/audit" 2>&1 ||
	fail "audit: $(cat "$W/audit")"
hp audit export "$NAME" "$T/bundle" >/dev/null || fail "export"
hp audit --bundle "$T/bundle" --accept-test-dice >"$W/audit" 2>&1 ||
	fail "audit --bundle: $(cat "$W/audit")"
grep -q "resolutions stopped to ask and resumed" "$W/audit" ||
	fail "the audit replayed no stop: $(cat "$W/audit")"
grep -q "sealed dice re-derived" "$W/audit" ||
	fail "the audit re-derived no sealed draw: $(cat "$W/audit")"
grep -rqF "card for blue" "$T/bundle" || fail "no card draw in the bundle"
grep -rqF "spent check of" "$T/bundle" || fail "no spent-check draw in the bundle"
grep -rqF "hit token for" "$T/bundle" || fail "no hit-token draw in the bundle"
python3 "$SRC/contrib/hexpost-audit.py" --accept-test-dice "$T/bundle" \
	>"$W/py" 2>&1 || fail "hexpost-audit.py: $(cat "$W/py")"
echo "cards_mail: ok ($n windows, median $med mails per side per round)"
