#!/bin/bash
# mail_roundtrip: a campaign played all the way round through real mail
# servers on 127.0.0.1 (tests/e2e/lib-servers.sh): Dovecot serves hexpost's
# mailbox and the players' over IMAP (STARTTLS required, and IMAPS), the
# aiosmtpd server takes submissions (STARTTLS and AUTH required) and
# delivers into the Maildirs Dovecot serves. Certificates come from a test
# CA made here with openssl; hexpost verifies them (tls_ca_file).
#
# Players' order files are signed by the real minisign CLI, built into mail
# by contrib/hexpost-player and submitted with curl over SMTP (Blue) or put
# straight into a second IMAP folder hexpost reads (Red: two mailboxes).
# hexpost fetches them over IMAP, resolves the turn and sends the reports
# over SMTP; each player's mailbox, read back over IMAP with curl, holds
# the right report (the text `hexpost report` prints for that side). Also:
# a password in a file others can read is refused, certificate checks are
# on by default, passwords never reach the output, the envelope sender is
# empty for replies only, one SMTP connection carries a batch, the server
# marks come after intake, nothing is fetched or sent twice.
# Usage: bash mail_roundtrip.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
PLAYER=$SRC/contrib/hexpost-player
. "$SRC/tests/e2e/lib-e2e.sh"
. "$SRC/tests/e2e/lib-reports.sh"
. "$SRC/tests/e2e/lib-servers.sh"
e2e_start mail_roundtrip "${1:?usage: mail_roundtrip.sh /path/to/hexpost}" \
	minisign sqlite3 perl curl openssl
e2e_at_exit srv_stop_all

HP_PW=hexpost-pw-$RANDOM$RANDOM
SMTP_PW=smtp-pw-$RANDOM$RANDOM
srv_init "$T/srv"
srv_user hexpost@localhost "$HP_PW"
srv_user blue@example.org blue-pw
srv_user red@example.org red-pw
# hexpost submits as its own SMTP user (another password than IMAP's).
srv_user submit@localhost "$SMTP_PW"
srv_folder hexpost@localhost Orders
srv_tls
dovecot_start tls
smtp_start tls

e2e_datadir
cat >>"$CONF" <<EOF
from = hexpost@localhost
imap = imap://127.0.0.1:$IMAP_PORT/INBOX
imap = imaps://localhost:$IMAPS_PORT/Orders
imap_user = hexpost@localhost
imap_password = $HP_PW
outbox = smtp://127.0.0.1:$SMTP_PORT
smtp_user = submit@localhost
retry_base = 1
mail_timeout = 10
EOF
export HEXPOST_SMTP_PASSWORD=$SMTP_PW

OUTS=()
# hp ARGS: hexpost with the configuration; stdout in $T/out, stderr in
# $T/err (both kept for the password check at the end).
hp() {
	local rc n=${#OUTS[@]}
	"$HEXPOST" --config "$CONF" "$@" >"$T/out.$n" 2>"$T/err.$n"
	rc=$?
	cp "$T/out.$n" "$T/out"
	cp "$T/err.$n" "$T/err"
	OUTS+=("$T/out.$n" "$T/err.$n")
	return $rc
}

# --- configuration: the password file must be private ---------------------
chmod 644 "$CONF"
hp campaign list
[ $? -eq 78 ] || fail "a password in a mode 0644 file was accepted"
grep -q "chmod 600" "$T/err" || fail "no hint to chmod 600: $(cat "$T/err")"
chmod 600 "$CONF"

e2e_keys blue red
hp campaign new hill --ruleset fire-and-movement --seed roundtrip ||
	fail "campaign new: $(cat "$T/err")"
hp player add hill blue --email blue@example.org --name Bea --key "$T/blue.pub" ||
	fail "player add blue: $(cat "$T/err")"
hp player add hill red --email red@example.org --name Rex --key "$T/red.pub" ||
	fail "player add red: $(cat "$T/err")"

# --- certificates are checked: without the test CA nothing gets through ----
hp run --once
rc=$?
[ "$rc" -eq 75 ] || fail "run without the CA exited $rc, want 75: $(cat "$T/out" "$T/err")"
grep -qi "certificate" "$T/err" || fail "no certificate error: $(cat "$T/err")"
grep -q "^mail out: 0 delivered, 2 to retry" "$T/out" ||
	fail "welcomes went out without a trusted certificate: $(cat "$T/out")"
echo "tls_ca_file = $SRV_CA" >>"$CONF"
sleep 2   # the welcomes' retry (retry_base 1 s, doubled)

# imap_mailbox USER PASS FOLDER: "UID FLAGS" lines of the folder, over IMAPS.
imap_flags() {
	curl -sS --cacert "$SRV_CA" -u "$1:$2" \
		"imaps://127.0.0.1:$IMAPS_PORT/$3" -X 'FETCH 1:* (UID FLAGS)' |
		tr -d '\r' | sed -n 's/^\* [0-9]* FETCH (UID \([0-9]*\) FLAGS (\(.*\)))$/\1 \2/p'
}
# imap_get USER PASS FOLDER UID: one message, over IMAP with STARTTLS.
imap_get() {
	curl -sS --ssl-reqd --cacert "$SRV_CA" -u "$1:$2" \
		"imap://127.0.0.1:$IMAP_PORT/$3;UID=$4"
}
# mailbox_dump USER PASS: every message of the user's INBOX, QP-decoded,
# separated by lines "=== UID".
mailbox_dump() {
	local uid
	for uid in $(imap_flags "$1" "$2" INBOX | cut -d' ' -f1); do
		echo "=== $uid"
		imap_get "$1" "$2" INBOX "$uid" | tr -d '\r' | perl -MMIME::QuotedPrint -0777 -ne '
			my ($h, $b) = split /\n\n/, $_, 2;
			$b = decode_qp($b) if $h =~ /^Content-Transfer-Encoding:\s*quoted-printable/mi;
			print "$h\n\n$b\n";'
	done
}

# --- turn 1, Blue: signed mail submitted over SMTP ---------------------------
hp orders template hill --side blue && cp "$T/out" "$W/blue1.txt" || fail "template"
bash "$PLAYER" -t hexpost@localhost -f blue@example.org -k "$T/blue.key" \
	--maildir "$W/blue.md" "$W/blue1.txt" >/dev/null || fail "hexpost-player"
BLUE_MAIL=$(ls "$W/blue.md/new/"*)
curl -sS --ssl-reqd --cacert "$SRV_CA" -u blue@example.org:blue-pw \
	--mail-from blue@example.org --mail-rcpt hexpost@localhost \
	-T "$BLUE_MAIL" "smtp://127.0.0.1:$SMTP_PORT" || fail "blue's submission"
[ "$(srv_count hexpost@localhost)" -eq 1 ] || fail "blue's mail not in hexpost's INBOX"

hp -v run --once || fail "run exited $?: $(cat "$T/out" "$T/err")"
grep -qxF "mail in: 1 accepted, 0 refused, 0 ignored, 0 duplicate, 0 deferred" "$T/out" ||
	fail "intake: $(cat "$T/out" "$T/err")"
grep -qxF "imap: 1 fetched, 1 marked, 0 of 2 mailboxes failed" "$T/out" ||
	fail "imap: $(cat "$T/out" "$T/err")"
grep -qxF "resolved 1 window of hill" "$T/out" || fail "not resolved: $(cat "$T/out")"
# Two welcomes, the ack, two reports.
grep -qxF "mail out: 5 delivered, 0 to retry, 0 failed" "$T/out" ||
	fail "delivery: $(cat "$T/out" "$T/err")"
grep -q "5 messages over 1 connection$" "$T/err" ||
	fail "the batch did not share one SMTP connection: $(cat "$T/err")"
# Marked on the server, after intake; the spool is empty again.
[ "$(imap_flags hexpost@localhost "$HP_PW" INBOX)" = "1 \\Seen" ] ||
	fail "INBOX flags: $(imap_flags hexpost@localhost "$HP_PW" INBOX)"
[ -z "$(find "$D/inbox/new" "$D/inbox/cur" -type f)" ] || fail "spool not emptied"

# Envelopes: the ack with an empty sender, the rest with hexpost's.
grep -q "^from=<<>> to=<blue@example.org> id=<hexpost\.ack\." "$T/srv/smtp.log" ||
	fail "ack envelope: $(cat "$T/srv/smtp.log")"
[ "$(grep -c "^from=<hexpost@localhost> to=<[a-z]*@example.org> id=<hexpost\.\(report\|welcome\)\." "$T/srv/smtp.log")" -eq 4 ] ||
	fail "report and welcome envelopes: $(cat "$T/srv/smtp.log")"

# check_report USER PASS SIDE TURN WINDOW: the user's INBOX holds exactly
# one report for the turn's window, auto-generated, holding what 'hexpost
# report' prints for the side (the turn's last resolved window).
check_report() {
	local user=$1 pw=$2 side=$3 turn=$4 win=$5 n
	mailbox_dump "$user" "$pw" >"$T/box"
	perl -0777 -ne 'for (split /^=== \d+\n/m) { print "$_\0" if /^Message-ID: <hexpost\.report\.hill\.t'"$turn"'\.w'"$win"'\./mi }' \
		"$T/box" >"$T/reports"
	n=$(tr -cd '\0' <"$T/reports" | wc -c)
	[ "$n" -eq 1 ] || fail "$user has $n turn-$turn window-$win reports"
	tr -d '\0' <"$T/reports" >"$T/report.mail"
	grep -qxF "Auto-Submitted: auto-generated" "$T/report.mail" ||
		fail "$user's report is not Auto-Submitted: auto-generated"
	grep -qxF "To: $user" "$T/report.mail" || fail "report not to $user"
	# The report hexpost stored for that window and side (what
	# 'hexpost report' prints for the turn's last window).
	e2e_reports "$DB" "SELECT r.window_id, r.side_idx FROM reports r JOIN windows w ON
	    w.id = r.window_id JOIN sides s ON s.campaign_id = w.campaign_id
	    AND s.idx = r.side_idx WHERE w.turn = $turn AND w.number = $win
	    AND s.name = '$side'" | grep -v '^[[:space:]]*$' | head -n 40 >"$T/want"
	if [ "$win" -eq 1 ]; then
		hp report hill --turn "$turn" --side "$side" || fail "hexpost report"
		grep -v '^[[:space:]]*$' "$T/out" | head -n 40 | cmp -s - "$T/want" ||
			fail "the stored report is not what 'hexpost report' prints"
	fi
	[ -s "$T/want" ] || fail "empty report"
	while IFS= read -r line; do
		grep -qxF -- "$line" "$T/report.mail" || {
			cat "$T/report.mail" >&2
			fail "$user's turn-$turn report lacks: $line"
		}
	done <"$T/want"
}
check_report blue@example.org blue-pw blue 1 1
check_report red@example.org red-pw red 1 1
mailbox_dump blue@example.org blue-pw >"$T/box"
grep -q "^Message-ID: <hexpost\.ack\." "$T/box" || fail "blue got no ack"
grep -q "^Message-ID: <hexpost\.welcome\." "$T/box" || fail "blue got no welcome"

# --- turn 1, Red: straight into the second mailbox (IMAPS) ------------------
hp orders template hill --side red || fail "red template"
head -n 4 "$T/out" >"$W/red1.txt"
hp orders suggest hill --side red || fail "red suggest"
sed '1,4d' "$T/out" >>"$W/red1.txt"
grep -q '^window: red$' "$W/red1.txt" || fail "red template: $(cat "$W/red1.txt")"
bash "$PLAYER" -t hexpost@localhost -f red@example.org -k "$T/red.key" \
	--maildir "$W/red.md" "$W/red1.txt" >/dev/null || fail "hexpost-player red"
srv_put_folder hexpost@localhost Orders "$(ls "$W/red.md/new/"*)"
hp run --once || fail "run exited $?: $(cat "$T/out" "$T/err")"
grep -qxF "mail in: 1 accepted, 0 refused, 0 ignored, 0 duplicate, 0 deferred" "$T/out" ||
	fail "red intake: $(cat "$T/out" "$T/err")"
grep -qxF "imap: 1 fetched, 1 marked, 0 of 2 mailboxes failed" "$T/out" ||
	fail "imap: $(cat "$T/out" "$T/err")"
grep -qxF "mail out: 3 delivered, 0 to retry, 0 failed" "$T/out" ||
	fail "delivery: $(cat "$T/out" "$T/err")"
[ "$(imap_flags hexpost@localhost "$HP_PW" Orders)" = "1 \\Seen" ] ||
	fail "Orders flags: $(imap_flags hexpost@localhost "$HP_PW" Orders)"
grep -q "^from=<<>> to=<red@example.org> id=<hexpost\.ack\." "$T/srv/smtp.log" ||
	fail "red's ack envelope: $(cat "$T/srv/smtp.log")"
check_report red@example.org red-pw red 1 2

# --- nothing twice -----------------------------------------------------------
BEFORE=$(wc -l <"$T/srv/smtp.log")
hp run --once || fail "idle run exited $?"
grep -qxF "imap: 0 fetched, 0 marked, 0 of 2 mailboxes failed" "$T/out" ||
	fail "idle imap: $(cat "$T/out")"
grep -qxF "mail out: 0 delivered, 0 to retry, 0 failed" "$T/out" ||
	fail "idle delivery: $(cat "$T/out")"
[ "$(wc -l <"$T/srv/smtp.log")" -eq "$BEFORE" ] || fail "mail sent twice"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM messages")" -eq 2 ] || fail "messages recorded"
[ "$(sqlite3 "$DB" "SELECT last_uid FROM imap_mailboxes ORDER BY id" | tr '\n' ' ')" = "1 1 " ] ||
	fail "last UIDs: $(sqlite3 "$DB" "SELECT * FROM imap_mailboxes")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM imap_spool")" -eq 0 ] || fail "spool rows left"

# --- move instead of \Seen -----------------------------------------------------
srv_folder hexpost@localhost Done
echo "imap_after = move Done" >>"$CONF"
hp orders template hill --side blue && cp "$T/out" "$W/blue2.txt" || fail "template 2"
bash "$PLAYER" -t hexpost@localhost -f blue@example.org -k "$T/blue.key" \
	--maildir "$W/blue2.md" "$W/blue2.txt" >/dev/null || fail "hexpost-player 2"
srv_put hexpost@localhost "$(ls "$W/blue2.md/new/"*)"
hp run --once || fail "run exited $?: $(cat "$T/out" "$T/err")"
grep -qxF "mail in: 1 accepted, 0 refused, 0 ignored, 0 duplicate, 0 deferred" "$T/out" ||
	fail "turn 2 intake: $(cat "$T/out" "$T/err")"
[ "$(imap_flags hexpost@localhost "$HP_PW" INBOX | wc -l)" -eq 1 ] ||
	fail "the message was not moved out of INBOX"
[ "$(imap_flags hexpost@localhost "$HP_PW" Done | wc -l)" -eq 1 ] ||
	fail "the message is not in Done"

# --- no password anywhere in what hexpost printed ---------------------------
for f in "${OUTS[@]}"; do
	grep -qF -e "$HP_PW" -e "$SMTP_PW" "$f" && fail "a password appears in $f"
done
exit 0
