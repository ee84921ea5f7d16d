#!/bin/bash
# club: a club server with several campaigns on one data directory and one
# mailbox, with deadlines and moderators, played through signed mail and
# `hexpost run --once` with hexpost's clock set by HEXPOST_NOW (test only).
#   hill:  Blue Ann (the moderator), Red Bob
#   dale:  Blue Bob (the same key as in hill: his files are routed by the
#          campaign their header names), Red the built-in opponent
#   ridge: Blue Cy (its moderator), Red the built-in opponent; policy wait
# Deadlines 24 h after a window opens, reminders 6 h before, policy ai.
# Checked: routing by header; one reminder to exactly the players who owe
# orders; status and report requests; moderator commands by signed mail
# (extend, replace, resend, end) and the command line (set, proceed), a
# command file refused when replayed or sent by a player who is not the
# moderator; the ai policy at the deadline; the wait policy holding the
# window and telling the moderator.
# Usage: bash club.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

HEXPOST=${1:?usage: club.sh /path/to/hexpost}
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/signed_mail.bash"
T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-club.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
unset HEXPOST_TEMPLATES HEXPOST_DB HEXPOST_CONFIG HEXPOST_NOW

fail() {
	echo "club: FAIL${STEP:+ [$STEP]}: $*" >&2
	exit 1
}
D=$T/data
CONF=$D/hexpost.conf
DB=$D/hexpost.db
T0=1800000000     # 2027-01-15 08:00 UTC
N=0
STEP=

at() { echo $((T0 + $1 * 3600)); }
hp() { HEXPOST_NOW=${NOW:-$T0} "$HEXPOST" --config "$CONF" "$@"; }
q() { sqlite3 "$DB" "$1"; }

# run_at HOURS: run --once at T0 + HOURS; output in $T/out.
run_at() {
	NOW=$(at "$1") hp run --once >"$T/out" 2>"$T/err" ||
		fail "run --once at +$1 h: $(cat "$T/err")"
	grep -q '^mail out: .* 0 failed$' "$T/out" || fail "delivery failed"
}

# mail_file WHO KEYNAME FILE: a signed mail from WHO into the inbox.
mail_file() {
	N=$((N + 1))
	signed_mail "$T/$2.key" "$3" "$1" "club.$N@players.example" "club $N" \
		"$T/m$N.eml" || fail "signing"
	deliver "$D/inbox" "$T/m$N.eml" "m$N" || fail "deliver"
}

# command WHO KEYNAME CAMPAIGN COMMAND [EXTRA]: a signed command file.
command() {
	N=$((N + 1))
	printf 'campaign: %s\ncommand: %s\nnonce: club-%s\n%s' "$3" "$4" "$N" \
		"${5:-}" >"$T/c$N.txt"
	cp "$T/c$N.txt" "$T/last-command.txt"
	mail_file "$1" "$2" "$T/c$N.txt"
}

# count KIND RCPT: outbox rows of KIND to RCPT.
count() { q "SELECT count(*) FROM outbox WHERE kind = '$1' AND rcpt = '$2'"; }

# last KIND RCPT: the newest message of KIND to RCPT, decoded.
last() {
	q "SELECT data FROM outbox WHERE kind = '$1' AND rcpt = '$2' ORDER BY id DESC LIMIT 1" |
		perl -MMIME::QuotedPrint -0777 -ne 'my ($h, $b) = split /\n\n/, $_, 2;
		$b = decode_qp($b) if $h =~ /quoted-printable/i; print "$h\n\n$b"'
}

# has KIND RCPT PHRASE: the newest such message says PHRASE.
has() {
	last "$1" "$2" | grep -qF -- "$3" || {
		last "$1" "$2" >&2
		fail "the last $1 to $2 lacks '$3'"
	}
}

STEP=setup
"$HEXPOST" init --datadir "$D" >/dev/null || fail "init"
sed -i -e 's/^deadline_hours = .*/deadline_hours = 24/' \
	-e 's/^remind_hours = .*/remind_hours = 6/' "$CONF"
for k in ann bob cy dee; do
	new_key "$k" "$T" || fail "minisign -G $k"
done
hp campaign new hill --ruleset fire-and-movement --seed club-hill >/dev/null &&
	hp campaign new dale --ruleset fire-and-movement --seed club-dale >/dev/null &&
	hp campaign new ridge --ruleset fire-and-movement --seed club-ridge >/dev/null ||
	fail "campaign new"
hp player add hill blue --email ann@example.org --name Ann --key "$T/ann.pub" --moderator >/dev/null &&
	hp player add hill red --email bob@example.org --name Bob --key "$T/bob.pub" >/dev/null &&
	hp player add dale blue --email bob@example.org --name Bob --key "$T/bob.pub" >/dev/null &&
	hp player add ridge blue --email cy@example.org --name Cy --key "$T/cy.pub" --moderator >/dev/null ||
	fail "player add"
hp moderate ridge set missing wait >"$T/out" || fail "moderate set"
grep -qxF "Campaign ridge: missing = wait." "$T/out" || fail "set: $(cat "$T/out")"

STEP=routing
# Bob's one key plays in hill and dale: the file's header picks dale.
hp orders suggest dale --side blue >"$T/dale1.txt" || fail "suggest"
mail_file "Bob <bob@example.org>" bob "$T/dale1.txt"
run_at 1
grep -qx "mail in: 1 accepted, 0 refused, 0 ignored, 0 duplicate, 0 deferred" "$T/out" ||
	fail "$(cat "$T/out")"
grep -q "^resolved [0-9]* windows\? of dale$" "$T/out" || fail "dale not resolved"
[ "$(q "SELECT c.name FROM orders o JOIN windows w ON w.id = o.window_id JOIN campaigns c ON c.id = w.campaign_id WHERE o.source = 'mail'")" = dale ] ||
	fail "the orders went elsewhere"
has ack bob@example.org "Your orders for dale, turn 1 window 'blue' (blue)"

STEP=reminders
run_at 17
[ "$(q "SELECT count(*) FROM outbox WHERE kind = 'reminder'")" = 0 ] ||
	fail "reminded too early"
run_at 18
grep -qx "deadline of hill: reminded" "$T/out" && grep -qx "deadline of ridge: reminded" "$T/out" ||
	fail "no reminders: $(cat "$T/out")"
[ "$(count reminder ann@example.org)" = 1 ] && [ "$(count reminder cy@example.org)" = 1 ] ||
	fail "reminders to Ann and Cy"
[ "$(count reminder bob@example.org)" = 0 ] || fail "Bob owes nothing yet at 18 h"
has reminder ann@example.org "They are due by 2027-01-16 08:00 UTC"
has reminder ann@example.org "the built-in opponent plays your side"
has reminder cy@example.org "the moderator decides"
has reminder ann@example.org "window: blue"
run_at 19
grep -qx "deadline of dale: reminded" "$T/out" || fail "dale (opened at 1 h) not reminded at 19 h"
[ "$(count reminder bob@example.org)" = 1 ] || fail "Bob not reminded"
run_at 20
[ "$(q "SELECT count(*) FROM outbox WHERE kind = 'reminder'")" = 3 ] || fail "reminded twice"

STEP=status
command "Bob <bob@example.org>" bob hill status
run_at 20
grep -q "^mail in: 1 accepted" "$T/out" || fail "status request: $(cat "$T/out")"
has command bob@example.org "Still waiting for: blue."
has command bob@example.org "Deadline: 2027-01-16 08:00 UTC."
[ "$(q "SELECT outcome FROM messages ORDER BY id DESC LIMIT 1")" = request ] ||
	fail "the request is not recorded"

STEP=rights
command "Bob <bob@example.org>" bob hill pause
run_at 20
has refusal bob@example.org "only the moderator of hill may 'pause'"
[ "$(q "SELECT count(*) FROM campaign_settings WHERE paused = 1")" = 0 ] || fail "paused"

STEP=extend
command "Ann <ann@example.org>" ann hill "extend 12"
cp "$T/last-command.txt" "$T/extend.txt"
run_at 21
has command ann@example.org "The deadline of turn 1 window 'blue' is now 2027-01-16 20:00 UTC."
has notice bob@example.org "is now 2027-01-16 20:00 UTC"
# The same signed command file in a new mail: refused, nothing extended.
mail_file "Ann <ann@example.org>" ann "$T/extend.txt"
run_at 21
has refusal ann@example.org "was used before"
[ "$(q "SELECT extended FROM window_clock c JOIN windows w ON w.id = c.window_id JOIN campaigns k ON k.id = w.campaign_id WHERE k.name = 'hill' AND w.state = 'open'")" = 43200 ] ||
	fail "extended twice"

STEP=deadline-wait
run_at 24
grep -qx "deadline of ridge: held" "$T/out" || fail "ridge not held: $(cat "$T/out")"
grep -q "of hill\|of dale" "$T/out" && fail "hill or dale touched at 24 h: $(cat "$T/out")"
has notice cy@example.org "The campaign's policy is to wait for you."
run_at 30
[ "$(count notice cy@example.org)" = 1 ] || fail "the moderator told twice"
[ "$(q "SELECT count(*) FROM orders o JOIN windows w ON w.id = o.window_id JOIN campaigns c ON c.id = w.campaign_id WHERE c.name = 'ridge'")" = 0 ] ||
	fail "ridge got orders"

STEP=deadline-ai
# dale's turn-2 window opened at 1 h: its deadline was 25 h.
[ "$(q "SELECT count(*) FROM orders o JOIN windows w ON w.id = o.window_id JOIN campaigns c ON c.id = w.campaign_id WHERE c.name = 'dale' AND o.source = 'deadline-ai' AND w.turn = 2")" = 1 ] ||
	fail "dale's missing orders not played by the opponent"
# (one per turn-2 window: whether Red answers in a window of its own
# depends on the dice)
[ "$(q "SELECT count(*) FROM outbox WHERE kind = 'report' AND rcpt = 'bob@example.org' AND message_id LIKE 'hexpost.report.dale.t2.%'")" -ge 1 ] ||
	fail "no turn-2 report of dale"

STEP=proceed
NOW=$(at 31) hp moderate ridge proceed hold >"$T/out" || fail "proceed"
grep -qF "blue sent no orders" "$T/out" || fail "proceed: $(cat "$T/out")"
run_at 31
grep -qx "resolved 1 window of ridge" "$T/out" || grep -q "resolved [0-9]* windows of ridge" "$T/out" ||
	fail "ridge not resolved after proceed: $(cat "$T/out")"

STEP=replace
command "Ann <ann@example.org>" ann hill "replace red" "email: dee@example.org
name: Dee
key: $(sed -n 2p "$T/dee.pub")
"
run_at 32
has command ann@example.org "Bob (bob@example.org) no longer plays red."
has command ann@example.org "Dee (dee@example.org, key"
[ "$(count welcome dee@example.org)" = 1 ] || fail "no welcome for Dee"

STEP=hill-ai
run_at 45
grep -qx "deadline of hill: filled" "$T/out" || fail "hill: $(cat "$T/out")"
grep -q "resolved [0-9]* windows\? of hill" "$T/out" || fail "hill not resolved"
[ "$(count report dee@example.org)" = 1 ] || fail "no report for Dee"
[ "$(count report ann@example.org)" = 1 ] || fail "no report for Ann"
# Bob's key no longer plays hill's red: his red orders are refused.
hp orders suggest hill --side red >"$T/red.txt" 2>/dev/null ||
	printf 'campaign: hill\nturn: 1\nwindow: red\nside: red\nhold\n' >"$T/red.txt"
mail_file "Bob <bob@example.org>" bob "$T/red.txt"
run_at 45
grep -q "^mail in: 0 accepted, 1 refused" "$T/out" || fail "Bob's orders for hill: $(cat "$T/out")"

STEP=resend-report-end
command "Ann <ann@example.org>" ann hill resend
command "Bob <bob@example.org>" bob dale report
command "Ann <ann@example.org>" ann hill "end agreed draw"
run_at 46
grep -q "^mail in: 3 accepted" "$T/out" || fail "$(cat "$T/out")"
[ "$(count report dee@example.org)" = 2 ] && [ "$(count report ann@example.org)" = 2 ] ||
	fail "reports not sent again"
has command bob@example.org "Report for Blue"
[ "$(q "SELECT status || ': ' || result FROM campaigns WHERE name = 'hill'")" = \
    "finished: ended by the moderator: agreed draw" ] || fail "hill not ended"
has notice dee@example.org "has ended: ended by the moderator: agreed draw"
hp campaign list | grep -q "^dale .* active" || fail "dale should go on"

STEP=final
[ "$(q "SELECT count(*) FROM outbox WHERE state <> 'sent'")" = 0 ] || fail "undelivered"
[ "$(q "SELECT count(*) FROM outbox WHERE kind IN ('command', 'refusal') AND envelope_from <> ''")" = 0 ] ||
	fail "an answer with an envelope sender"
[ "$(q "SELECT count(*) FROM outbox WHERE kind IN ('reminder', 'notice') AND envelope_from = ''")" = 0 ] ||
	fail "a notice without an envelope sender"
[ "$(q "SELECT count(*) FROM commands WHERE nonce IS NULL")" = 2 ] ||
	fail "command-line commands not recorded"
exit 0
