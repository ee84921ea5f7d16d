#!/bin/bash
# club_mail: issue 19's mail parts through real servers (Dovecot over IMAP,
# the aiosmtpd SMTP server of lib-servers.sh), hexpost reading its INBOX
# over IMAP and sending over SMTP:
#  1. threads: the welcome, the acknowledgement and the report in Blue's
#     mailbox, read back over IMAP, form one thread (In-Reply-To and
#     References to the welcome, the welcome's subject on the report), and
#     carry List-Id and X-Hexpost-Campaign;
#  2. bounces: a Postfix-style DSN quoting the report, delivered to
#     hexpost's address through the SMTP server, is recorded against Blue;
#     the moderator is told in their mailbox; `hexpost outbox` and
#     `campaign show` list Blue as unreachable; nothing answers the mailer
#     daemon; a forged DSN (a report never sent) changes nothing;
#  3. the fast path: `hexpost run` (poll_interval 60) takes an order
#     appended to the IMAP mailbox in through IMAP IDLE and has the report
#     accepted by the SMTP server within 10 s; with a Maildir inbox, an
#     inotify watch does the same.
# Usage: bash club_mail.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=signed_mail.bash
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
. "$SRC/tests/e2e/lib-servers.sh"
e2e_start club_mail "${1:?usage: club_mail.sh /path/to/hexpost}" \
	minisign sqlite3 curl base64 awk
e2e_at_exit srv_stop_all
DPID=
e2e_at_exit '[ -n "$DPID" ] && kill "$DPID" 2>/dev/null; true'

PW=club-pw-$RANDOM
srv_init "$T/srv"
srv_user hexpost@localhost "$PW"
srv_user blue@example.org "$PW"
srv_user mod@example.org "$PW"
dovecot_start
smtp_start

e2e_datadir
cat >>"$CONF" <<EOF
from = hexpost@localhost
domain = club.example
imap = imap://127.0.0.1:$IMAP_PORT/INBOX
imap_user = hexpost@localhost
imap_starttls = off
outbox = smtp://127.0.0.1:$SMTP_PORT
smtp_starttls = off
mail_timeout = 10
EOF
export HEXPOST_IMAP_PASSWORD=$PW

hp() {
	"$HEXPOST" --config "$CONF" "$@"
}
run_once() {
	hp run --once >"$W/out" 2>"$W/err" ||
		fail "run --once: $(cat "$W/out" "$W/err")"
}
# imap_get USER UID [SECTION]: a message of USER's INBOX over IMAP, LF.
imap_get() {
	curl -s --url "imap://127.0.0.1:$IMAP_PORT/INBOX;UID=$2${3:+;SECTION=$3}" \
		--user "$1:$PW" | tr -d '\r'
}
# header FILE NAME: the field NAME of FILE's header, unfolded.
header() {
	awk -v n="$2" 'BEGIN { IGNORECASE = 1 } /^$/ { exit }
		/^[ \t]/ { if (on) v = v " " substr($0, 2); next }
		{ if (on) exit; on = tolower(substr($0, 1, length(n) + 1)) == tolower(n ":") }
		on { v = substr($0, length(n) + 3) }
		END { print v }' "$1"
}
# uids USER: the UIDs of USER's INBOX.
uids() {
	curl -s --url "imap://127.0.0.1:$IMAP_PORT/INBOX" --user "$1:$PW" \
		-X 'UID SEARCH ALL' | tr -d '\r' | sed -n 's/^\* SEARCH //p'
}

new_key blue "$T" || fail "minisign -G"
hp campaign new hill --ruleset fire-and-movement >/dev/null ||
	fail "campaign new"
hp player add hill blue --email blue@example.org --name Bea \
	--key "$T/blue.pub" >/dev/null || fail "player add blue"
hp player add hill red --email mod@example.org --name Mo --moderator \
	>/dev/null || fail "player add red"
run_once

# --- 1. one thread per campaign and player --------------------------------
STEP=threads
SEQ=0
send() {   # send CAMPAIGN: $W/mail$SEQ.eml, Blue's next orders, signed
	SEQ=$((SEQ + 1))
	hp orders suggest "$1" --side blue >"$W/orders$SEQ.txt" ||
		fail "orders suggest"
	signed_mail "$T/blue.key" "$W/orders$SEQ.txt" "Bea <blue@example.org>" \
		"o$SEQ@players.example" "orders $SEQ" "$W/mail$SEQ.eml" ||
		fail "minisign -S"
}
send hill
srv_put hexpost@localhost "$W/mail1.eml"
run_once
grep -q "mail in: 1 accepted" "$W/out" || fail "not accepted: $(cat "$W/out")"
n=0
for u in $(uids blue@example.org); do
	imap_get blue@example.org "$u" HEADER >"$W/h$u"
	kind=$(header "$W/h$u" X-Hexpost-Kind)
	cp "$W/h$u" "$W/$kind"
	n=$((n + 1))
done
[ "$n" -eq 3 ] || fail "Blue's mailbox holds $n messages, want 3 (welcome, ack, report)"
for k in welcome ack report; do
	[ -s "$W/$k" ] || fail "no $k in Blue's mailbox"
	[ "$(header "$W/$k" List-Id)" = "hexpost hill <hill.hexpost.club.example>" ] ||
		fail "$k: List-Id '$(header "$W/$k" List-Id)'"
	[ "$(header "$W/$k" X-Hexpost-Campaign)" = hill ] || fail "$k: X-Hexpost-Campaign"
	[ "$(header "$W/$k" X-Hexpost-Player)" = Bea ] || fail "$k: X-Hexpost-Player"
done
ROOT=$(header "$W/welcome" Message-ID)
case $ROOT in "<hexpost.welcome.hill.Bea."*"@club.example>") ;;
	*) fail "the welcome's Message-ID is $ROOT" ;; esac
[ -z "$(header "$W/welcome" In-Reply-To)" ] || fail "the welcome replies to something"
SUBJECT=$(header "$W/welcome" Subject)
[ "$SUBJECT" = "[hexpost] hill: Bea" ] || fail "the welcome's subject is '$SUBJECT'"
[ "$(header "$W/report" Subject)" = "$SUBJECT" ] || fail "the report's subject differs"
[ "$(header "$W/report" In-Reply-To)" = "$ROOT" ] || fail "the report's In-Reply-To"
[ "$(header "$W/report" References)" = "$ROOT" ] || fail "the report's References"
case $(header "$W/report" X-Hexpost-Topic) in
	"[hexpost] hill: turn 1 "*report*) ;;
	*) fail "the report's X-Hexpost-Topic: $(header "$W/report" X-Hexpost-Topic)" ;; esac
[ "$(header "$W/ack" In-Reply-To)" = "<o1@players.example>" ] || fail "the ack's In-Reply-To"
[ "$(header "$W/ack" References)" = "$ROOT <o1@players.example>" ] ||
	fail "the ack's References: $(header "$W/ack" References)"
[ "$(header "$W/ack" Subject)" = "Re: orders 1" ] || fail "the ack's subject"

# --- 2. a bounce through the SMTP server --------------------------------------
STEP=bounce
RUID=$(grep -l '^X-Hexpost-Kind: report' "$W"/h* | head -1 | sed 's/.*h//')
imap_get blue@example.org "$RUID" >"$W/report.eml"
# dsn ORIGINAL-FILE OUT: a Postfix bounce of ORIGINAL-FILE to Blue.
dsn() {
	{
		printf 'From: MAILER-DAEMON@mx.example.org (Mail Delivery System)\n'
		printf 'To: hexpost@localhost\nSubject: Undelivered Mail Returned to Sender\n'
		printf 'Auto-Submitted: auto-replied\nMessage-Id: <%s@mx.example.org>\n' "$RANDOM$RANDOM"
		printf 'MIME-Version: 1.0\nContent-Type: multipart/report; report-type=delivery-status;\n'
		printf '\tboundary="B1"\n\n--B1\nContent-Type: text/plain\n\n'
		printf '<blue@example.org>: host mx.example.org said: 550 5.1.1 User unknown\n\n'
		printf -- '--B1\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; mx.example.org\n\n'
		printf 'Final-Recipient: rfc822; blue@example.org\nAction: failed\nStatus: 5.1.1\n'
		printf 'Diagnostic-Code: smtp; 550 5.1.1 User unknown\n\n'
		printf -- '--B1\nContent-Type: message/rfc822\n\n'
		cat "$1"
		printf -- '\n--B1--\n'
	} >"$2"
}
# smtp_send FILE: to hexpost@localhost through the SMTP server, MAIL FROM:<>
# (as a mailer daemon sends; python's smtplib, as curl cannot send <>).
smtp_send() {
	/usr/bin/python3 -c 'import smtplib, sys
s = smtplib.SMTP("127.0.0.1", int(sys.argv[1]))
s.sendmail("", ["hexpost@localhost"], open(sys.argv[2]).read())
s.quit()' "$SMTP_PORT" "$1" || fail "the SMTP server refused $1"
}
dsn "$W/report.eml" "$W/dsn.eml"
smtp_send "$W/dsn.eml"
grep -q "^from=<\(<>\)\?> to=<hexpost@localhost>" "$T/srv/smtp.log" ||
	fail "the bounce did not go through the SMTP server: $(cat "$T/srv/smtp.log")"
run_once
grep -q "mail in: 0 accepted, 0 refused, 1 ignored" "$W/out" ||
	fail "the bounce was not ignored: $(cat "$W/out")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM bounces b JOIN players p ON p.id = b.player_id WHERE p.name = 'Bea' AND b.status = '5.1.1'")" = 1 ] ||
	fail "no bounce recorded for Bea: $(sqlite3 "$DB" 'SELECT * FROM bounces')"
hp outbox >"$W/outbox" || fail "outbox"
grep -q "^unreachable: hill/Bea <blue@example.org> since .* (1 bounce, last .*5.1.1 550 5.1.1 User unknown)" \
	"$W/outbox" || fail "hexpost outbox: $(cat "$W/outbox")"
hp campaign show hill >"$W/show" || fail "campaign show"
grep -q "^  unreachable: hill/Bea <blue@example.org> since " "$W/show" ||
	fail "campaign show: $(cat "$W/show")"
# The moderator was told, in their mailbox; the mailer daemon got nothing.
found=
for u in $(uids mod@example.org); do
	imap_get mod@example.org "$u" >"$W/m$u"
	grep -q '^X-Hexpost-Topic: \[hexpost\] hill: mail to Bea bounces' "$W/m$u" &&
		found=$u
done
[ -n "$found" ] || fail "the moderator was not told"
grep -q "Bea has been unreachable since " "$W/m$found" || fail "the notice says no since"
grep -qi "to=<mailer-daemon" "$T/srv/smtp.log" && fail "a bounce was answered"
# A forged bounce: it names a report hexpost never sent.
sed 's/^Message-ID: <hexpost\.report\.[^@]*@/Message-ID: <hexpost.report.hill.t9.w9.Bea@/I' \
	"$W/report.eml" >"$W/forged-original.eml"
dsn "$W/forged-original.eml" "$W/forged.eml"
smtp_send "$W/forged.eml"
run_once
[ "$(sqlite3 "$DB" "SELECT count(*) FROM bounces")" = 1 ] || fail "a forged bounce was recorded"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM messages WHERE detail LIKE 'forged bounce: names <hexpost.report.hill.t9.w9.Bea@%never sent'")" = 1 ] ||
	fail "the forged bounce is not logged as such"
grep -q "forged bounce" "$W/err" || fail "no warning about the forged bounce"

# --- 3. the fast path: IMAP IDLE ----------------------------------------------
STEP="imap idle"
# A campaign of Blue alone (in hill, Red's window is open now).
hp campaign new vale --ruleset fire-and-movement >/dev/null ||
	fail "campaign new vale"
hp player add vale blue --email blue@example.org --name Bea \
	--key "$T/blue.pub" >/dev/null || fail "player add vale"
sed -i 's/^poll_interval.*//' "$CONF"
printf 'poll_interval = 60\nlog_level = debug\n' >>"$CONF"
"$HEXPOST" --config "$CONF" run >"$W/dout" 2>"$W/derr" &
DPID=$!
# wait_for FILE TEXT SECONDS: until FILE holds TEXT.
wait_for() {
	local i
	for i in $(seq 1 $(($3 * 10))); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
wait_for "$W/dout" "mail out:" 20 || fail "the daemon made no first pass: $(cat "$W/derr")"
sleep 1
send vale
t0=$(date +%s%N)
curl -s --url "imap://127.0.0.1:$IMAP_PORT/INBOX" --user "hexpost@localhost:$PW" \
	-T "$W/mail2.eml" || fail "IMAP APPEND"
wait_for "$T/srv/smtp.log" "to=<blue@example.org> id=<hexpost.report.vale.t1." 10 ||
	fail "no report within 10 s (poll_interval 60): $(tail -5 "$W/derr")"
ms=$((($(date +%s%N) - t0) / 1000000))
grep -q "IMAP IDLE: new mail" "$W/derr" || fail "not woken by IDLE: $(tail -5 "$W/derr")"
kill "$DPID"
wait "$DPID" 2>/dev/null
DPID=

# --- 3b. the fast path: inotify on a Maildir inbox -----------------------------
STEP=inotify
D2=$T/data2
"$HEXPOST" init --datadir "$D2" >/dev/null 2>&1 || fail "init 2"
printf 'poll_interval = 60\nlog_level = debug\nfrom = hexpost@localhost\n' >>"$D2/hexpost.conf"
hp2() { "$HEXPOST" --config "$D2/hexpost.conf" "$@"; }
hp2 campaign new dale --ruleset fire-and-movement >/dev/null || fail "campaign new dale"
hp2 player add dale blue --email blue@example.org --name Bea --key "$T/blue.pub" \
	>/dev/null || fail "player add dale"
"$HEXPOST" --config "$D2/hexpost.conf" run >"$W/d2out" 2>"$W/d2err" &
DPID=$!
wait_for "$W/d2out" "mail out:" 20 || fail "no first pass: $(cat "$W/d2err")"
sleep 1
hp2 orders suggest dale --side blue >"$W/dale.txt" || fail "orders suggest dale"
signed_mail "$T/blue.key" "$W/dale.txt" "Bea <blue@example.org>" \
	"dale1@players.example" "orders" "$W/dale.eml" || fail "minisign -S"
t1=$(date +%s%N)
deliver "$D2/inbox" "$W/dale.eml" dale1.e2e
for i in $(seq 1 100); do
	ls "$D2/outbox/new" 2>/dev/null | grep -q '^hexpost\.report\.dale\.' && break
	sleep 0.1
done
ls "$D2/outbox/new" | grep -q '^hexpost\.report\.dale\.' ||
	fail "no report within 10 s (poll_interval 60): $(tail -5 "$W/d2err")"
ms2=$((($(date +%s%N) - t1) / 1000000))
grep -q "new mail in maildir:" "$W/d2err" || fail "not woken by inotify"
kill "$DPID"
wait "$DPID" 2>/dev/null
DPID=
echo "club_mail: ok (order to report: $ms ms by IMAP IDLE, $ms2 ms by inotify; poll_interval 60 s)"
