#!/bin/bash
# moderator_mail: moderator statements by signed mail (docs/AUDIT.md,
# "Moderator statements"), over the Maildir path with the real minisign.
# A fire-and-movement campaign, Blue a player with a key, a moderator key
# registered:
#  1. a statement signed by a player's key instead of the moderator's is
#     refused, the reply saying so;
#  2. `proceed ai` mailed as statement.txt and statement.txt.minisig, signed
#     by the moderator's key, is carried out: recorded, mailed to Blue with
#     its signature, the window filled by it (Blue's report says so), and
#     the campaign audits clean with the moderator key pinned
#     (`hexpost audit`, `audit --bundle`, contrib/hexpost-audit.py);
#  3. the same mail sent again is refused (the statement is not the next
#     one), the reply naming the line that differs;
#  4. a mailed command file for a statement verb (from Bea, the moderator
#     player) is refused with the statement to sign in the reply;
#  5. a mailed `replace` statement without the new player's details is
#     refused; with a command file beside it (email, name, key) the new
#     player is seated, their signed orders taken, and the campaign audits
#     clean.
# Usage: bash moderator_mail.sh /path/to/hexpost (HEXPOST_SOURCE: source)
set -u
. "$(dirname "$0")/lib-attack.sh"
. "$(dirname "$0")/lib-reports.sh"
attack_start moderator_mail "${1:?usage: moderator_mail.sh /path/to/hexpost}"
minisign -G -W -p "$T/mod.pub" -s "$T/mod.key" >/dev/null 2>&1 || fail "minisign -G mod"
MK="--moderator-key $T/mod.pub"
echo "stranger_replies = daily" >>"$CONF"

hp campaign new hill --ruleset fire-and-movement >/dev/null || fail "campaign new"
hp player add hill blue --email blue@example.org --name Bea \
	--key "$T/blue.pub" --moderator >/dev/null || fail "player add"
hp moderate hill moderator-key --key "$T/mod.pub" >/dev/null 2>"$T/err" ||
	fail "moderator-key: $(cat "$T/err")"

N=0
# mailstmt FILE SIG [EXTRA]: the moderator mails FILE as statement.txt with
# SIG as statement.txt.minisig (and EXTRA as command.txt).
mailstmt() {
	local f eml
	N=$((N + 1))
	eml=$T/m$N.eml
	{
		printf 'From: Mo <mod@example.org>\r\nTo: hexpost@localhost\r\n'
		printf 'Subject: statement %d\r\nMessage-ID: <s%d.%s@example.org>\r\n' "$N" "$N" "$$"
		printf 'Date: %s\r\nMIME-Version: 1.0\r\n' "$(LC_ALL=C date -R)"
		printf 'Content-Type: multipart/mixed; boundary="B"\r\n\r\n'
		printf -- '--B\r\nContent-Type: text/plain\r\n\r\nStatement.\r\n'
		for f in "statement.txt:$1" "statement.txt.minisig:$2" ${3:+"command.txt:$3"}; do
			printf -- '--B\r\nContent-Type: text/plain; name="%s"\r\n' "${f%%:*}"
			printf 'Content-Disposition: attachment; filename="%s"\r\n' "${f%%:*}"
			printf 'Content-Transfer-Encoding: base64\r\n\r\n'
			base64 -w 76 "${f#*:}" | sed 's/$/\r/'
		done
		printf -- '--B--\r\n'
	} >"$eml"
	mkdir -p "$D/inbox/new"
	cp "$eml" "$D/inbox/new/$(date +%s).M$N.stmt"
}
run() {	# run WANT: run --once, its summary has WANT
	hp run --once >"$T/out" 2>"$T/err" || fail "run: $(cat "$T/err")"
	grep -q "$1" "$T/out" || fail "want '$1': $(cat "$T/out")"
}
lastmail() {	# lastmail KIND RCPT
	sqlite3 "$DB" "SELECT CAST(data AS TEXT) FROM outbox WHERE kind = '$1'
	    AND rcpt = '$2' ORDER BY id DESC LIMIT 1"
}
stmts() {
	sqlite3 "$DB" "SELECT count(*) FROM moderator_statements"
}
clean() {	# clean NAME: all three verifiers pass with the key pinned
	hp audit hill $MK >"$T/out" 2>"$T/err" || fail "$1: audit: $(cat "$T/err")"
	rm -rf "$T/$1"
	hp audit export hill "$T/$1" >/dev/null 2>"$T/err" || fail "export: $(cat "$T/err")"
	"$HEXPOST" audit --bundle "$T/$1" $MK >"$T/out" 2>"$T/err" ||
		fail "$1: audit --bundle: $(cat "$T/err")"
	python3 "$PYAUDIT" $MK "$T/$1" >"$T/out" 2>"$T/err" ||
		fail "$1: hexpost-audit.py: $(cat "$T/err")"
	grep -qF "$2 moderator statements verified" "$T/out" ||
		fail "$1: not $2 statements: $(cat "$T/out")"
}

# 1. Signed by Blue's key, not the moderator's.
W=$(sqlite3 "$DB" "SELECT id FROM windows WHERE state = 'open'")
hp moderate hill proceed ai --print-statement >"$T/s1.txt" 2>"$T/err" ||
	fail "print-statement: $(cat "$T/err")"
minisign -S -s "$T/blue.key" -m "$T/s1.txt" -x "$T/s1.blue.minisig" >/dev/null ||
	fail "minisign -S blue"
mailstmt "$T/s1.txt" "$T/s1.blue.minisig"
run "0 accepted, 1 refused"
lastmail refusal mod@example.org | grep -qF "not by campaign hill's moderator key" ||
	fail "no reply saying the key is wrong: $(lastmail refusal mod@example.org)"
[ "$(stmts)" = 0 ] || fail "a statement by the wrong key was recorded"

# 2. Signed by the moderator's key.
minisign -S -s "$T/mod.key" -m "$T/s1.txt" >/dev/null || fail "minisign -S mod"
mailstmt "$T/s1.txt" "$T/s1.txt.minisig"
run "1 accepted, 0 refused"
[ "$(stmts)" = 1 ] || fail "the statement was not recorded"
lastmail notice blue@example.org >"$T/mail"
grep -qF "The moderator's statement 1, signed by the moderator's key" "$T/mail" &&
	grep -qx "action: proceed ai" "$T/mail" ||
	fail "Blue got no mail with the statement: $(cat "$T/mail")"
lastmail command mod@example.org | grep -q . || fail "the moderator got no answer"
[ "$(sqlite3 "$DB" "SELECT source FROM orders WHERE window_id = $W")" = deadline-ai ] ||
	fail "proceed did not fill the window"
run "0 accepted"	# the window resolves
e2e_reports "$DB" "SELECT window_id, side_idx FROM reports WHERE window_id = $W AND side_idx = 0" >"$T/rep"
grep -qF "filled by the moderator's signed statement 1 ('proceed')" "$T/rep" ||
	fail "Blue's report does not say the moderator filled the side: $(cat "$T/rep")"
clean b1 1

# 3. The same statement again.
mailstmt "$T/s1.txt" "$T/s1.txt.minisig"
run "0 accepted, 1 refused"
lastmail refusal mod@example.org | grep -qF "line 3 of the statement differs from statement 2" ||
	fail "replay: no reason: $(lastmail refusal mod@example.org)"
[ "$(stmts)" = 1 ] || fail "a replayed statement was recorded"

# 4. A mailed command file for a statement verb: the reply holds the
# statement to sign.
printf 'campaign: hill\ncommand: extend 24\n' >"$T/ext.txt"
bash "$PLAYER" -t hexpost@localhost -f blue@example.org -k "$T/blue.key" \
	--maildir "$D/inbox" "$T/ext.txt" >/dev/null 2>&1 ||
	fail "hexpost-player command"
run "1 refused"
lastmail refusal blue@example.org >"$T/reply"
grep -qF "Mail the statement as statement.txt with its signature statement.txt.minisig" "$T/reply" &&
	grep -qF "action: extend 24" "$T/reply" ||
	fail "command file: no statement in the reply: $(cat "$T/reply")"
# 5. replace by mail: without, then with the new player's details.
hp moderate hill replace blue --email bob@example.org --name Bob \
	--key "$T/red.pub" --print-statement >"$T/s2.txt" 2>"$T/err" ||
	fail "print-statement replace: $(cat "$T/err")"
grep -q "^action: replace blue [0-9A-F]\{16\}$" "$T/s2.txt" || fail "statement: $(cat "$T/s2.txt")"
minisign -S -s "$T/mod.key" -m "$T/s2.txt" >/dev/null || fail "minisign -S mod"
mailstmt "$T/s2.txt" "$T/s2.txt.minisig"
run "0 accepted, 1 refused"
lastmail refusal mod@example.org | grep -qF "needs the new player's details" ||
	fail "replace without details: $(lastmail refusal mod@example.org)"
printf 'campaign: hill\ncommand: replace blue\nemail: bob@example.org\nname: Bob\nkey: %s\n' \
	"$(tail -1 "$T/red.pub")" >"$T/cmd.txt"
mailstmt "$T/s2.txt" "$T/s2.txt.minisig" "$T/cmd.txt"
run "1 accepted, 0 refused"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM players WHERE name = 'Bob' AND active = 1
    AND side_idx = 0")" = 1 ] || fail "Bob was not seated"
hp orders suggest hill --side blue >"$T/suggest.txt" || fail "suggest"
bash "$PLAYER" -t hexpost@localhost -f bob@example.org -k "$T/red.key" \
	--maildir "$D/inbox" "$T/suggest.txt" >/dev/null || fail "hexpost-player bob"
run "1 accepted, 0 refused"
clean b2 2

echo "moderator_mail: ok"
