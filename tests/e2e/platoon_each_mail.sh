#!/bin/bash
# platoon_each_mail: a whole three-side platoon battle (scenario three-way)
# in the faithful mode (campaign option reveal=each) played by signed mail:
# Blue and Green are people with minisign keys (made by the real CLI) who
# send what 'hexpost orders suggest' proposes, Red is the built-in
# opponent; 'hexpost run --once' takes the mail in and resolves. Each turn
# every side's order-marker file comes first; the resolution then stops to
# ask one side at a time for its next reveal (docs/rules/platoon.md, "The
# faithful mode"), in a decision window of that side alone. Checked: the
# welcome explains the markers; a move line in a marker file is refused
# with its line; a reveal report asks only the side whose turn it is and
# carries its answer file; an answer the side does not owe is refused;
# Green misses its first reveal's deadline and the campaign's hold
# policy reveals its first marker for it; the battle ends with a result; 'hexpost
# audit' of the finished campaign (it counts the stops) and of its
# exported bundle pass.
# Usage: bash platoon_each_mail.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=signed_mail.bash
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start platoon_each_mail "${1:?usage: platoon_each_mail.sh /path/to/hexpost}" \
	minisign sqlite3 perl base64
NAME=each
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
		"each$SEQ@players.example" "orders" "$W/mail$SEQ.eml" ||
		fail "minisign -S"
	deliver "$D/inbox" "$W/mail$SEQ.eml" "$SEQ.each.e2e"
}

e2e_datadir
e2e_keys blue green
STEP=setup
hp campaign new "$NAME" --ruleset platoon --scenario three-way \
	--options reveal=each >/dev/null || fail "campaign new"
for s in blue green; do
	hp player add "$NAME" $s --email $s@example.org --name $s \
		--key "$T/$s.pub" >/dev/null || fail "player add $s"
done
hp moderate "$NAME" set missing hold >/dev/null || fail "set missing hold"
sed -i -e 's/^deadline_hours = .*/deadline_hours = 24/' \
	-e 's/^remind_hours = .*/remind_hours = 0/' "$CONF"
run_once
added welcome blue
grep -qF "# reveal=each: place your order markers" "$W/welcome.blue" ||
	fail "the welcome does not explain the markers"

# A marker file with a move line: refused with its line.
hp orders template "$NAME" --side blue >"$W/bad.txt" || fail "template"
printf 'move b1 E6\n' >>"$W/bad.txt"
bad=$(wc -l <"$W/bad.txt")
send blue "$W/bad.txt"
run_once
added refusal blue
grep -qF "line $bad: reveal=each: this file only places order markers" \
	"$W/refusal.blue" || fail "refusal: $(cat "$W/refusal.blue")"

asked=0
filled=0
nq=0
result=
for pass in $(seq 1 200); do
	STEP="pass $pass"
	hp campaign show "$NAME" >"$W/show"
	if grep -qF "status   finished" "$W/show"; then
		break
	fi
	for s in blue green; do
		hp orders suggest "$NAME" --side $s >"$W/$s.txt" 2>/dev/null ||
			continue
		w=$(sed -n 's/^window: //p' "$W/$s.txt")
		if [ "$w" = reveal ]; then
			asked=$((asked + 1))
			# The other person owes nothing: its answer is refused.
			other=$([ $s = blue ] && echo green || echo blue)
			if [ "$asked" = 2 ]; then
				sed -e "s/^side: $s/side: $other/" "$W/$s.txt" \
				    >"$W/wrong.txt"
				send $other "$W/wrong.txt"
				run_once
				grep -q "0 accepted, 1 refused" "$W/out" ||
					fail "an answer not owed: $(cat "$W/out")"
			fi
			# Green misses its first reveal's deadline.
			if [ $s = green ] && [ "$filled" = 0 ]; then
				NOW=$((NOW + 25 * 3600))
				run_once
				grep -q "resolved [0-9]* windows* of $NAME" "$W/out" ||
					fail "not filled at the deadline: $(cat "$W/out" "$W/err")"
				filled=1
				continue
			fi
		fi
		send $s "$W/$s.txt"
	done
	run_once
	# A pass may resolve several windows (Red answers at once). Each
	# report carries only its reader's question and answer file.
	for f in $(grep '^hexpost\.report\.' "$W/added"); do
		decoded "$D/outbox/new/$f" >"$W/r"
		for s in blue green; do
			other=$([ $s = blue ] && echo green || echo blue)
			grep -qx "To: $s@example.org" "$W/r" || continue
			grep -qx "side: $other" "$W/r" &&
				fail "$s's report carries $other's answer file"
			if grep -qx "window: reveal" "$W/r"; then
				grep -qF "your next reveal (reveal=each)" "$W/r" ||
					fail "$s is asked without the question"
				nq=$((nq + 1))
			fi
		done
		if grep -q '^RESULT: ' "$W/r"; then
			result=$(sed -n 's/^RESULT: //p' "$W/r")
		fi
	done
done
STEP=end
hp campaign show "$NAME" | grep -qF "status   finished" ||
	fail "the campaign is not finished"
[ -n "$result" ] || fail "no result in a report"
[ "$nq" -ge 2 ] || fail "only $nq reports asked a person for a reveal"
[ "$filled" = 1 ] || fail "green's missed reveal was not filled"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM orders WHERE source =
    'deadline-hold'")" = 1 ] || fail "no deadline-hold file"
stops=$(sqlite3 "$DB" "SELECT count(*) FROM windows WHERE name = 'reveal'")
[ "$stops" -ge 3 ] || fail "only $stops reveal windows"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM windows WHERE name = 'reveal'
    AND sides NOT IN (1, 2, 4)")" = 0 ] || fail "a reveal asks several sides"
hp audit "$NAME" >"$W/audit" 2>&1 || fail "audit: $(cat "$W/audit")"
grep -q "audit of $NAME: OK" "$W/audit" || fail "no OK: $(cat "$W/audit")"
grep -qF "$stops resolutions stopped to ask and resumed" "$W/audit" ||
	fail "audit does not count the stops: $(cat "$W/audit")"
hp audit export "$NAME" "$W/bundle" >/dev/null 2>"$W/err" ||
	fail "audit export: $(cat "$W/err")"
"$HEXPOST" audit --bundle "$W/bundle" >"$W/audit2" 2>&1 ||
	fail "audit --bundle: $(cat "$W/audit2")"
echo "platoon_each_mail: ok ($stops reveals, $result)"
