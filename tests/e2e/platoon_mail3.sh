#!/bin/bash
# platoon_mail3: a whole three-side platoon battle (scenario three-way) in
# the default mode (one order list a side a turn) played by signed mail by
# three people, every one with a minisign key made by the real CLI, each
# sending what 'hexpost orders suggest' proposes; 'hexpost run --once'
# takes the mail in and resolves the turn once the three files are in.
# Checked: a turn is not resolved while a side's file is missing; each
# side's report reaches it with the initiative and the result at the end;
# 'hexpost audit' of the finished campaign and of its bundle pass.
# (platoon_mail.sh: the two-side scenario, a person against the built-in
# opponent; platoon_each_mail.sh: this scenario in the faithful mode, two
# people and the opponent.)
# Usage: bash platoon_mail3.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=signed_mail.bash
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start platoon_mail3 "${1:?usage: platoon_mail3.sh /path/to/hexpost}" \
	minisign sqlite3 perl base64
NAME=three

hp() {
	"$HEXPOST" --config "$CONF" "$@"
}

run_once() {
	ls "$D/outbox/new" | sort >"$W/before"
	hp run --once >"$W/out" 2>"$W/err" || {
		cat "$W/out" "$W/err" >&2
		fail "run --once exited $?"
	}
	ls "$D/outbox/new" | sort | comm -13 "$W/before" - >"$W/added"
}

SEQ=0
send() {   # send WHO FILE: sign FILE with WHO's key, mail it, deliver it
	SEQ=$((SEQ + 1))
	signed_mail "$T/$1.key" "$2" "$1 <$1@example.org>" \
		"three$SEQ@players.example" "orders" "$W/mail$SEQ.eml" ||
		fail "minisign -S"
	deliver "$D/inbox" "$W/mail$SEQ.eml" "$SEQ.three.e2e"
}

e2e_datadir
e2e_keys blue red green
STEP=setup
hp campaign new "$NAME" --ruleset platoon --scenario three-way \
	>/dev/null || fail "campaign new"
for s in blue red green; do
	hp player add "$NAME" $s --email $s@example.org --name $s \
		--key "$T/$s.pub" >/dev/null || fail "player add $s"
done
run_once
result=
for TURN in $(seq 1 30); do
	STEP="turn $TURN"
	for s in blue red green; do
		hp orders suggest "$NAME" --side $s >"$W/$s.txt" ||
			fail "orders suggest $s"
	done
	send blue "$W/blue.txt"
	send red "$W/red.txt"
	run_once
	grep -q "resolved" "$W/out" && fail "resolved without green's orders"
	send green "$W/green.txt"
	run_once
	grep -qxF "resolved 1 window of $NAME" "$W/out" ||
		fail "not resolved: $(cat "$W/out" "$W/err")"
	for s in blue red green; do
		f=$(grep '^hexpost\.report\.' "$W/added" | while read -r m; do
			grep -qx "To: $s@example.org" "$D/outbox/new/$m" &&
			    echo "$m"; done)
		[ "$(echo "$f" | grep -c .)" = 1 ] || fail "$s: reports '$f'"
		decoded "$D/outbox/new/$f" >"$W/report.$s"
		grep -qF "Initiative: $s rolls" "$W/report.$s" ||
			fail "$s's report has no initiative"
	done
	if grep -q '^RESULT: ' "$W/report.blue"; then
		result=$(sed -n 's/^RESULT: //p' "$W/report.blue")
		break
	fi
done
STEP=end
[ -n "$result" ] || fail "no result after $TURN turns"
grep -q "^RESULT: $result" "$W/report.green" || fail "green has no result"
hp campaign show "$NAME" | grep -qF "status   finished" ||
	fail "the campaign is not finished"
hp audit "$NAME" >"$W/audit" 2>&1 || fail "audit: $(cat "$W/audit")"
grep -q "audit of $NAME: OK" "$W/audit" || fail "no OK: $(cat "$W/audit")"
hp audit export "$NAME" "$W/bundle" >/dev/null 2>"$W/err" ||
	fail "audit export: $(cat "$W/err")"
"$HEXPOST" audit --bundle "$W/bundle" >"$W/audit2" 2>&1 ||
	fail "audit --bundle: $(cat "$W/audit2")"
echo "platoon_mail3: ok ($TURN turns: $result)"
