#!/bin/bash
# mail_intake: the corpus of hostile and broken mail. A data directory with a
# fire-and-movement campaign (players blue and red, minisign keys made by
# the real minisign CLI, plus a stranger's key nobody registered); for each
# case one message is delivered into the inbox Maildir, 'hexpost run --once'
# takes it in, and the test checks the outcome counters run prints, exactly
# which message appeared in the outbox (To:, Auto-Submitted, the reason in
# the body, the outbox row with an empty envelope sender), that the message
# file was moved to cur/ with flag S, and, for every refusal or ignored
# message, that no game table changed. Signatures are made with
# `minisign -S -s KEY -m FILE`; mail is built by contrib/hexpost-player or
# from the templates in tests/data/corpus/.
# Usage: bash mail_intake.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
CORPUS=$SRC/tests/data/corpus
PLAYER=$SRC/contrib/hexpost-player
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start mail_intake "${1:?usage: mail_intake.sh /path/to/hexpost}" \
	minisign sqlite3 perl base64

hp() {
	"$HEXPOST" --config "$CONF" "$@"
}

e2e_datadir
INBOX=$D/inbox
OUTBOX=$D/outbox

# Keys, made by the real minisign CLI (-W: no password).
e2e_keys blue red stranger
# The key id as hexpost writes it: 16 hex digits (minisign drops leading
# zeros in its comment).
keyid() {
	local id
	id=$(sed -n 's/^untrusted comment: minisign public key //p' "$T/$1.pub")
	[ -n "$id" ] && printf '%16s' "$id" | tr ' ' 0
}
BLUE_KEY=$(keyid blue)
RED_KEY=$(keyid red)
STRANGER_KEY=$(keyid stranger)
[ ${#BLUE_KEY} -eq 16 ] && [ ${#RED_KEY} -eq 16 ] &&
	[ ${#STRANGER_KEY} -eq 16 ] || fail "cannot read the key ids"

# --- helpers ---------------------------------------------------------------

SEQ=100
STEP=
MAILNAME=

# Every table but the records of mail in and out, as text (blobs quoted):
# what a refused or ignored message must leave exactly as it was.
snapshot() {
	local t
	for t in $(sqlite3 "$DB" "SELECT name FROM sqlite_master WHERE
	    type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN
	    ('messages', 'outbox') ORDER BY name"); do
		echo "== $t"
		sqlite3 -quote "$DB" "SELECT * FROM \"$t\" ORDER BY rowid"
	done
}

# begin NAME: start a case; remembers the state to compare against.
begin() {
	STEP=$1
	SEQ=$((SEQ + 1))
	snapshot >"$T/snap.before"
	grep -q "^== units$" "$T/snap.before" && grep -q "^== orders$" \
	    "$T/snap.before" || fail "cannot read the database"
	ls "$OUTBOX/new" | sort >"$T/outbox.before"
	OUT_MAX=$(sqlite3 "$DB" "SELECT coalesce(max(id), 0) FROM outbox")
	MSG_MAX=$(sqlite3 "$DB" "SELECT coalesce(max(id), 0) FROM messages")
	ORD_MAX=$(sqlite3 "$DB" "SELECT coalesce(max(id), 0) FROM orders")
}

# deliver FILE: into inbox/new/ as a Maildir delivery would (tmp/, then a
# rename), named so that messages are taken in the order delivered.
deliver() {
	MAILNAME="$SEQ.$STEP.$((${#DELIVERED[@]} + 1)).e2e"
	cp "$1" "$INBOX/tmp/$MAILNAME" || fail "deliver $1"
	mv "$INBOX/tmp/$MAILNAME" "$INBOX/new/$MAILNAME" || fail "deliver $1"
	DELIVERED+=("$MAILNAME")
}

# run_once COUNTERS: 'hexpost run --once' succeeds and its intake line is
# exactly COUNTERS ("A accepted, R refused, I ignored, D duplicate, F
# deferred"); every message delivered since is now in cur/ with flag S.
run_once() {
	local want="mail in: $1" name
	hp run --once >"$T/out" 2>"$T/err" || {
		cat "$T/out" "$T/err" >&2
		fail "run --once exited $?"
	}
	grep -qxF -- "$want" "$T/out" || {
		cat "$T/out" "$T/err" >&2
		fail "expected '$want'"
	}
	grep -q '^mail out: .* 0 to retry, 0 failed$' "$T/out" || {
		cat "$T/out" "$T/err" >&2
		fail "outbox delivery had failures"
	}
	for name in "${DELIVERED[@]}"; do
		[ ! -e "$INBOX/new/$name" ] || fail "$name is still in new/"
		[ -f "$INBOX/cur/$name:2,S" ] ||
			fail "$name is not in cur/ with flag S: $(ls "$INBOX/cur")"
	done
	[ -z "$(ls "$INBOX/new")" ] || fail "new/ is not empty: $(ls "$INBOX/new")"
	DELIVERED=()
	ls "$OUTBOX/new" | sort >"$T/outbox.after"
	comm -13 "$T/outbox.before" "$T/outbox.after" >"$T/outbox.added"
	comm -23 "$T/outbox.before" "$T/outbox.after" >"$T/outbox.gone"
	[ ! -s "$T/outbox.gone" ] || fail "outbox files vanished: $(cat "$T/outbox.gone")"
}
DELIVERED=()

unchanged() {
	snapshot >"$T/snap.after"
	diff -u "$T/snap.before" "$T/snap.after" >"$T/snap.diff" || {
		cat "$T/snap.diff" >&2
		fail "the game state changed"
	}
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM orders WHERE id > $ORD_MAX")" \
	    = 0 ] || fail "an order row was added"
}

# outbox_added N: exactly N new messages in outbox/new.
outbox_added() {
	local n
	n=$(wc -l <"$T/outbox.added")
	[ "$n" -eq "$1" ] || fail "$n new outbox messages, want $1: $(cat "$T/outbox.added")"
	n=$(sqlite3 "$DB" "SELECT count(*) FROM outbox WHERE id > $OUT_MAX")
	[ "$n" -eq "$1" ] || fail "$n new outbox rows, want $1"
}

# reply KIND RCPT PHRASE...: among the new outbox files there is exactly one
# reply of KIND (ack, refusal) to the current message: addressed To RCPT,
# "Auto-Submitted: auto-replied", answering its Message-ID, with every
# PHRASE in its body; its outbox row has kind KIND, rcpt RCPT and an empty
# envelope sender. REPLY is left naming the file.
reply() {
	local kind=$1 rcpt=$2 n row
	shift 2
	n=$(grep -c "^hexpost\.$kind\." "$T/outbox.added")
	[ "$n" -eq 1 ] || fail "$n new $kind messages in the outbox, want 1: $(cat "$T/outbox.added")"
	REPLY=$OUTBOX/new/$(grep "^hexpost\.$kind\." "$T/outbox.added")
	decoded "$REPLY" >"$T/reply"
	grep -qxF "To: $rcpt" "$T/reply" || {
		cat "$T/reply" >&2
		fail "the $kind is not addressed to $rcpt"
	}
	[ "$(grep -c '^To:' "$T/reply")" -eq 1 ] || fail "more than one To:"
	grep -qxF "Auto-Submitted: auto-replied" "$T/reply" ||
		fail "the $kind has no Auto-Submitted: auto-replied"
	if [ -n "${MSGID:-}" ]; then
		grep -qxF "In-Reply-To: <$MSGID>" "$T/reply" ||
			fail "the $kind does not answer <$MSGID>"
	fi
	for phrase in "$@"; do
		grep -qF -- "$phrase" "$T/reply" || {
			cat "$T/reply" >&2
			fail "the $kind lacks '$phrase'"
		}
	done
	row=$(sqlite3 "$DB" "SELECT kind || '|' || rcpt || '|' ||
	    quote(envelope_from) || '|' || state FROM outbox WHERE id > $OUT_MAX
	    AND kind = '$kind'")
	[ "$row" = "$kind|$rcpt|''|sent" ] ||
		fail "outbox row '$row', want '$kind|$rcpt|''|sent'"
}

# no_reply: nothing new in the outbox.
no_reply() {
	outbox_added 0
}

# recorded OUTCOME: the messages table gained exactly one row, OUTCOME.
recorded() {
	local rows
	rows=$(sqlite3 "$DB" "SELECT outcome FROM messages WHERE id > $MSG_MAX")
	[ "$rows" = "$1" ] || fail "messages recorded '$rows', want '$1'"
}

# b64 FILE OUT: the base64 of FILE in 76 columns.
b64() {
	base64 -w 76 "$1" >"$2"
}

# mail TEMPLATE OUT FROM SUBJECT [ORDERS SIG [MORE [MORESIG]]]:
# fill a corpus template; the files given are put in base64. Sets MSGID.
mail() {
	local tpl=$CORPUS/$1.eml.in out=$2 from=$3 subject=$4
	local f i=0
	local -a names=(ORDERS SIG MORE MORESIG) args=()
	[ -f "$tpl" ] || fail "no corpus template $tpl"
	MSGID=${MAIL_MSGID:-$STEP.$SEQ@players.example}
	args=(-e "s|@FROM@|$from|" -e "s|@SUBJECT@|$subject|"
		-e "s|@MSGID@|$MSGID|")
	shift 4
	for f in "$@"; do
		if [ "${f%.b64}" != "$f" ]; then
			cp "$f" "$W/${names[$i]}.b64"
		else
			b64 "$f" "$W/${names[$i]}.b64"
		fi
		args+=(-e "/^@${names[$i]}_B64@\$/{r $W/${names[$i]}.b64" -e "d}")
		i=$((i + 1))
	done
	sed "${args[@]}" "$tpl" >"$out" || fail "sed $tpl"
	grep -q '@[A-Z_][A-Z_0-9]*@' "$out" && fail "$out: placeholder left unfilled"
	return 0
}

# sign KEY FILE [TRUSTED]: FILE.minisig by the real minisign CLI.
sign() {
	local -a t=()
	[ $# -ge 3 ] && t=(-t "$3")
	rm -f "$2.minisig"
	minisign -S -s "$T/$1.key" -m "$2" "${t[@]}" >/dev/null 2>&1 ||
		fail "minisign -S $1 $2"
}

# player FROM KEY FILE: build a mail with contrib/hexpost-player into a
# scratch Maildir; the message's path is left in $PMAIL, its Message-ID in
# $MSGID.
player() {
	local md=$W/player.$SEQ.$RANDOM
	bash "$PLAYER" -t hexpost@localhost -f "$1" -k "$T/$2.key" \
		--maildir "$md" "$3" >/dev/null || fail "hexpost-player $3"
	PMAIL=$(ls "$md"/new/*)
	[ -f "$PMAIL" ] || fail "hexpost-player delivered nothing"
	MSGID=$(sed -n 's/^Message-ID: <\(.*\)>\r$/\1/p' "$PMAIL")
	[ -n "$MSGID" ] || fail "hexpost-player mail has no Message-ID"
}

# part MAIL NAME: the decoded attachment NAME of MAIL.
part() {
	awk -v name="$2" '
		{ sub(/\r$/, "") }
		index($0, "filename=\"" name "\"") { found = 1; next }
		found == 1 && $0 == "" { found = 2; next }
		found == 2 && /^--/ { exit }
		found == 2 { print }' "$1" | base64 -d
}

# --- the campaign starts: welcome messages go out --------------------------

begin setup
hp campaign new hill --ruleset fire-and-movement --seed mail-intake \
	>/dev/null || fail "campaign new hill"
hp player add hill blue --email blue@example.org --name Bea \
	--key "$T/blue.pub" >/dev/null || fail "player add blue"
hp player add hill red --email red@example.org --name Rex \
	--key "$T/red.pub" >/dev/null || fail "player add red"
# A second campaign in which neither key plays (its Blue has no key), so
# that it waits for Blue's orders.
hp campaign new other --ruleset fire-and-movement --seed mail-intake-2 \
	>/dev/null || fail "campaign new other"
hp player add other blue --email carol@example.org --name Carol \
	>/dev/null || fail "player add carol"
# A third where Red's key plays Red too, with standing orders.
hp campaign new ridge --ruleset fire-and-movement --options red-standing \
	--seed mail-intake-3 >/dev/null || fail "campaign new ridge"
hp player add ridge blue --email dave@example.org --name Dave \
	>/dev/null || fail "player add dave"
hp player add ridge red --email rex@ridge.example --name Rex \
	--key "$T/red.pub" >/dev/null || fail "player add red to ridge"
BLUE_ID=$(sqlite3 "$DB" "SELECT p.id FROM players p JOIN campaigns c ON
	c.id = p.campaign_id WHERE c.name = 'hill' AND p.name = 'Bea'")
RED_ID=$(sqlite3 "$DB" "SELECT p.id FROM players p JOIN campaigns c ON
	c.id = p.campaign_id WHERE c.name = 'hill' AND p.name = 'Rex'")
run_once "0 accepted, 0 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 5
grep -q '^hexpost\.welcome\.hill\.Bea\.[0-9]*@' "$T/outbox.added" ||
	fail "no welcome for Bea"

# Order files for turn 1, window 'blue'.
hp orders template hill --side blue >"$W/blue1.txt" || fail "template"
grep -q '^deploy 1 A0$' "$W/blue1.txt" || fail "unexpected template"
hp orders suggest hill --side red >/dev/null 2>&1 &&
	fail "red is asked for orders in window 'blue'?"
good_blue() {   # a valid turn-1 Blue file, signed by KEY
	cp "$W/blue1.txt" "$W/$1"
	sign "${2:-blue}" "$W/$1" "${3:-hexpost orders hill turn 1}"
}

# --- refusals and ignored mail in turn 1, window 'blue' -------------------

# Unsigned: orders.txt without orders.txt.minisig. Answered at From.
begin unsigned
good_blue unsigned.txt
mail unsigned "$W/m.eml" "Bea <blue@example.org>" "orders" "$W/unsigned.txt"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "Nothing in the game has changed." \
	"The order file is not signed: there is no orders.txt.minisig attached." \
	"orders.txt.minisig"
recorded rejected
unchanged

# Signed by a key nobody registered, from an address no player registered:
# not answered (backscatter, issue 12), but counted in the summary line.
begin unknown_key
good_blue stranger.txt stranger
mail signed "$W/m.eml" "Mallory <mallory@example.net>" "my orders" \
	"$W/stranger.txt" "$W/stranger.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred, 1 unanswered"
no_reply
recorded rejected
unchanged

# The same from a registered player's address: answered there.
begin unknown_key_registered
good_blue stranger2.txt stranger
mail signed "$W/m.eml" "Bea <blue@example.org>" "my orders" \
	"$W/stranger2.txt" "$W/stranger2.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "belongs to no player" \
	"signed by key $STRANGER_KEY" "register your minisign public key"
recorded rejected
unchanged

# Blue's file signed by Red's key (and sent From Blue): the signer is Red,
# so the answer goes to Red's registered address and names the sides.
begin other_player
good_blue byred.txt red
mail signed "$W/m.eml" "Bea <blue@example.org>" "orders" \
	"$W/byred.txt" "$W/byred.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal red@example.org "rejected whole" \
	"you play red, but this file gives orders for blue"
recorded rejected
unchanged

# Tampered: a byte of the file changed after signing. The From is forged:
# the answer goes to the registered address of the key's owner.
begin tampered_file
good_blue tampered.txt
sed -i 's/^deploy 3 C0$/deploy 3 C1/' "$W/tampered.txt"
grep -q '^deploy 3 C1$' "$W/tampered.txt" || fail "tampering failed"
mail signed "$W/m.eml" "Mallory <mallory@example.net>" "orders" \
	"$W/tampered.txt" "$W/tampered.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "does not verify with your key $BLUE_KEY" \
	"signature does not match the file"
recorded rejected
unchanged

# Tampered trusted comment: the file is intact, the signed comment is not.
begin tampered_comment
good_blue comment.txt blue "hexpost orders hill turn 1"
grep -q '^trusted comment: hexpost orders hill turn 1$' \
	"$W/comment.txt.minisig" || fail "no trusted comment"
sed -i 's/^trusted comment: hexpost orders hill turn 1$/trusted comment: hexpost orders hill turn 2/' \
	"$W/comment.txt.minisig"
mail signed "$W/m.eml" "Bea <blue@example.org>" "orders" \
	"$W/comment.txt" "$W/comment.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "trusted comment was tampered with"
recorded rejected
unchanged

# Orders for the other side, properly signed by Blue.
begin other_side
sed 's/^side: blue$/side: red/' "$W/blue1.txt" >"$W/forred.txt"
sign blue "$W/forred.txt"
mail signed "$W/m.eml" "Bea <blue@example.org>" "orders" \
	"$W/forred.txt" "$W/forred.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org \
	"you play blue, but this file gives orders for red"
recorded rejected
unchanged

# A file for another campaign, where the key plays no side: refused, and
# that campaign's orders untouched.
begin other_campaign
sed 's/^campaign: hill$/campaign: other/' "$W/blue1.txt" >"$W/foreign.txt"
sign blue "$W/foreign.txt"
mail signed "$W/m.eml" "Bea <blue@example.org>" "orders" \
	"$W/foreign.txt" "$W/foreign.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "The file is for campaign 'other'" "plays only in 'hill'"
recorded rejected
unchanged

# Two signed order files in one mail.
begin two_files
good_blue one.txt
good_blue two.txt
mail two_files "$W/m.eml" "Bea <blue@example.org>" "orders" \
	"$W/one.txt" "$W/one.txt.minisig" "$W/two.txt" "$W/two.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "more than one signed file" \
	"send one order file per mail"
recorded rejected
unchanged

# HTML only.
begin html_only
mail html_only "$W/m.eml" "Bea <blue@example.org>" "orders"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "only an HTML part" "plain-text"
recorded rejected
unchanged

# An empty message: headers only.
begin empty
mail empty "$W/m.eml" "Bea <blue@example.org>" "nothing"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "No signed order file is attached."
recorded rejected
unchanged

# Truncated base64: the order file's encoding is cut off mid-quantum.
begin truncated_base64
good_blue cut.txt
b64 "$W/cut.txt" "$W/cut.full.b64"
head -c $(($(tr -d '\n' <"$W/cut.full.b64" | wc -c) / 2 + 1)) \
	<"$W/cut.full.b64" >"$W/cut.b64"
echo >>"$W/cut.b64"
mail signed "$W/m.eml" "Bea <blue@example.org>" "orders" \
	"$W/cut.b64" "$W/cut.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "The message could not be read" \
	"the base64 of attachment orders.txt is cut short or corrupt"
recorded rejected
unchanged

# Malformed MIME: the parts are delimited by another boundary than the one
# declared.
begin bad_boundary
good_blue boundary.txt
mail bad_boundary "$W/m.eml" "Bea <blue@example.org>" "orders" \
	"$W/boundary.txt" "$W/boundary.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "The message could not be read" \
	"malformed MIME: the boundary of a multipart/mixed section never appears"
recorded rejected
unchanged

# Oversized: a good signed file and 2.2 MB of holiday photo.
begin oversized
good_blue big.txt
head -c 1650000 /dev/urandom >"$W/photo.jpg"
mail oversized "$W/m.eml" "Bea <blue@example.org>" "orders" \
	"$W/big.txt" "$W/big.txt.minisig" "$W/photo.jpg"
[ "$(wc -c <"$W/m.eml")" -gt $((2 * 1024 * 1024)) ] || fail "not oversized"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "The message could not be read" \
	"the message is 2.2 MB; the limit is 2 MB"
recorded rejected
unchanged

# Invalid UTF-8 in the (signed) order file.
begin invalid_utf8
{ head -n 5 "$W/blue1.txt"; printf '# caf\xe9 \xff\xfe\n'; tail -n +6 "$W/blue1.txt"; } >"$W/latin.txt"
BYTE=$(($(head -n 5 "$W/blue1.txt" | wc -c) + 6))
sign blue "$W/latin.txt"
mail signed "$W/m.eml" "Bea <blue@example.org>" "orders" \
	"$W/latin.txt" "$W/latin.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "rejected whole" \
	"order file is not valid UTF-8 (byte $BYTE)"
recorded rejected
unchanged

# NUL bytes in the (signed) order file.
begin nul_bytes
{ head -n 5 "$W/blue1.txt"; printf 'deploy 1 A0\0\0\n'; tail -n +6 "$W/blue1.txt"; } >"$W/nul.txt"
[ "$(tr -cd '\000' <"$W/nul.txt" | wc -c)" -eq 2 ] || fail "no NUL bytes"
sign blue "$W/nul.txt"
mail signed "$W/m.eml" "Bea <blue@example.org>" "orders" \
	"$W/nul.txt" "$W/nul.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "rejected whole" \
	"order file contains a NUL byte"
recorded rejected
unchanged

# A bounce: no answer, ever.
begin bounce
mail bounce "$W/m.eml" "" ""
deliver "$W/m.eml"
run_once "0 accepted, 0 refused, 1 ignored, 0 duplicate, 0 deferred"
no_reply
recorded ignored
unchanged

# A bounce whose MIME cannot be read (from postmaster, multipart/report,
# cut-off base64): still automatic mail, so no refusal goes back.
begin bounce_broken
mail bounce_broken "$W/m.eml" "" ""
deliver "$W/m.eml"
run_once "0 accepted, 0 refused, 1 ignored, 0 duplicate, 0 deferred"
no_reply
recorded ignored
unchanged

# An auto-reply.
begin autoreply
mail autoreply "$W/m.eml" "Bea <blue@example.org>" "orders"
deliver "$W/m.eml"
run_once "0 accepted, 0 refused, 1 ignored, 0 duplicate, 0 deferred"
no_reply
recorded ignored
unchanged

# A mailing-list message, even one carrying a good signed file.
begin mailing_list
good_blue list.txt
mail mailing_list "$W/m.eml" "Bea <blue@example.org>" "orders" \
	"$W/list.txt" "$W/list.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 0 refused, 1 ignored, 0 duplicate, 0 deferred"
no_reply
recorded ignored
unchanged

# Parse errors in the order lines: the answer names each line.
begin parse_error
{ head -n 4 "$W/blue1.txt"; printf 'deploy 1 A0\n# fine\ndeploy 2 Q9\ndeploy 3 C0\ncharge!\ndeploy pc 2\n'; } >"$W/bad.txt"
sign blue "$W/bad.txt"
mail signed "$W/parse_error.eml" "Bea <blue@example.org>" "orders" \
	"$W/bad.txt" "$W/bad.txt.minisig"
deliver "$W/parse_error.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "rejected whole" \
	'The problems ("line N" is line N of your order file):' "line 7:" "line 9:"
grep -q '^line [0-9]*:' "$T/reply" || fail "no line numbers"
grep '^line [0-9]*:' "$T/reply" | grep -qv '^line [79]:' &&
	fail "errors on other lines: $(grep '^line' "$T/reply")"
recorded rejected
unchanged

# The same message delivered twice: the second is a duplicate, unanswered.
begin duplicate
deliver "$W/parse_error.eml"
run_once "0 accepted, 0 refused, 0 ignored, 1 duplicate, 0 deferred"
no_reply
[ "$(sqlite3 "$DB" "SELECT count(*) FROM messages WHERE id > $MSG_MAX")" \
    = 0 ] || fail "a duplicate was recorded again"
unchanged

# A sender no answer can be addressed to: refused without an answer, and
# not left in new/ to fail again on every run.
begin unanswerable
good_blue unanswerable.txt
mail unsigned "$W/m.eml" "Nemo <a..b@players.example>" "orders" \
	"$W/unanswerable.txt"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred, 1 unanswered"
no_reply
recorded rejected
unchanged

# A Message-ID no answer can refer to (8-bit): the message is read all the
# same (here: refused for its missing signature, not for its Message-ID,
# issue 12), and the answer goes out without In-Reply-To.
begin bad_message_id
good_blue badid.txt
MAIL_MSGID=$(printf 'caf\303\251.%s@players.example' "$SEQ") \
	mail unsigned "$W/m.eml" "Bea <blue@example.org>" "orders" \
	"$W/badid.txt"
MSGID=
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "The order file is not signed"
grep -qF "bad Message-ID" "$T/reply" && fail "the refusal blames the Message-ID"
grep -q '^In-Reply-To:' "$T/reply" && fail "In-Reply-To an unusable id"
recorded rejected
unchanged

# --- accepted orders ---------------------------------------------------------

# A good signed file, through hexpost-player, with a forged From: the ack
# goes to Blue's registered address, lists the orders, and (every order
# being in) the window is resolved: a report to each player.
begin good
player "Mallory <mallory@example.net>" blue "$W/blue1.txt"
cp "$PMAIL" "$W/good.eml"
deliver "$W/good.eml"
run_once "1 accepted, 0 refused, 0 ignored, 0 duplicate, 0 deferred"
grep -qxF "resolved 1 window of hill" "$T/out" || fail "window not resolved"
outbox_added 3
reply ack blue@example.org "Your orders for hill, turn 1 window 'blue' (blue)" \
	"Signed by key $BLUE_KEY (Bea)" "deploy 1 A0" "deploy 2 B0" \
	"deploy 3 C0" "deploy pc 2"
grep -qF "replacing" "$T/reply" && fail "the first file replaced nothing"
grep -q '^hexpost\.report\.hill\.t1\.w1\.Bea@' "$T/outbox.added" &&
	grep -q '^hexpost\.report\.hill\.t1\.w1\.Rex@' "$T/outbox.added" ||
	fail "reports not queued: $(cat "$T/outbox.added")"
recorded accepted
[ "$(sqlite3 "$DB" "SELECT w.turn || ' ' || w.name || ' ' || o.side_idx ||
    ' ' || o.player_id || ' ' || o.source || ' ' || o.current FROM orders o
    JOIN windows w ON w.id = o.window_id WHERE o.id > $ORD_MAX")" \
    = "1 blue 0 $BLUE_ID mail 1" ] || fail "orders row not as expected"
part "$W/good.eml" orders.txt >"$W/turn1.txt"
part "$W/good.eml" orders.txt.minisig >"$W/turn1.txt.minisig"
minisign -V -p "$T/blue.pub" -m "$W/turn1.txt" >/dev/null 2>&1 ||
	fail "cannot extract the signed file from the mail"
# (Order files of 256 bytes or more are stored compressed: read as text,
# without changing the database, whose state is compared below.)
[ "$(python3 - "$DB" "$ORD_MAX" <<'PY'
import sqlite3, sys, zlib
b = sqlite3.connect(sys.argv[1]).execute(
    "SELECT raw FROM orders WHERE id > ?", (int(sys.argv[2]),)).fetchone()[0]
b = b.encode() if isinstance(b, str) else b
print((zlib.decompress(b[8:]) if b[:4] == b"\0HPZ" else b).decode(), end="")
PY
)" = \
    "$(cat "$W/turn1.txt")" ] || fail "stored file differs from the signed one"

# The good message again: a duplicate; no second ack, no second order row.
begin good_again
deliver "$W/good.eml"
run_once "0 accepted, 0 refused, 0 ignored, 1 duplicate, 0 deferred"
no_reply
unchanged

# Red's turn 1 window: Red's orders, signed by Red.
begin red
{ sed -n '1,4p' <(hp orders template hill --side red); hp orders suggest hill --side red | sed '1,4d'; } >"$W/red1.txt"
grep -q '^window: red$' "$W/red1.txt" || fail "red template: $(cat "$W/red1.txt")"
sign red "$W/red1.txt"
mail signed "$W/m.eml" "Rex <red@example.org>" "red orders" \
	"$W/red1.txt" "$W/red1.txt.minisig"
deliver "$W/m.eml"
run_once "1 accepted, 0 refused, 0 ignored, 0 duplicate, 0 deferred"
grep -qxF "resolved 1 window of hill" "$T/out" || fail "window not resolved"
outbox_added 3
reply ack red@example.org "turn 1 window 'red' (red)" "Signed by key $RED_KEY"
recorded accepted
[ "$(sqlite3 "$DB" "SELECT w.turn || ' ' || w.name || ' ' || o.side_idx ||
    ' ' || o.player_id || ' ' || o.source FROM orders o JOIN windows w ON
    w.id = o.window_id WHERE o.id > $ORD_MAX")" = "1 red 1 $RED_ID mail" ] ||
	fail "orders row not as expected"
hp campaign show hill >"$T/show" || fail "campaign show"
grep -qF "window   turn 2 'blue' (open), waiting for: blue" "$T/show" ||
	fail "turn 2 not open: $(cat "$T/show")"

# Replay: last turn's signed file, byte for byte, in a new mail.
begin replay
mail signed "$W/m.eml" "Bea <blue@example.org>" "orders again" \
	"$W/turn1.txt" "$W/turn1.txt.minisig"
deliver "$W/m.eml"
run_once "0 accepted, 1 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply refusal blue@example.org "was taken in before (the very same file)" \
	"write a new nonce: line"
recorded rejected
unchanged

# Two good files for the same window in one run: the second replaces the
# first, and says so.
begin replace
hp orders template hill --side blue >"$W/blue2a.txt" || fail "template"
hp orders suggest hill --side blue | sed '/^# the built-in/d' >"$W/blue2b.txt"
cmp -s "$W/blue2a.txt" "$W/blue2b.txt" && fail "the two files are alike"
player "Bea <blue@example.org>" blue "$W/blue2a.txt"
cp "$PMAIL" "$W/first.eml"
FIRST_ID=$MSGID
player "Bea <blue@example.org>" blue "$W/blue2b.txt"
cp "$PMAIL" "$W/second.eml"
SECOND_ID=$MSGID
deliver "$W/first.eml"
deliver "$W/second.eml"
run_once "2 accepted, 0 refused, 0 ignored, 0 duplicate, 0 deferred"
[ "$(grep -c '^hexpost\.ack\.' "$T/outbox.added")" -eq 2 ] ||
	fail "two acks expected: $(cat "$T/outbox.added")"
for f in $(grep '^hexpost\.ack\.' "$T/outbox.added"); do
	decoded "$OUTBOX/new/$f" >"$T/ack"
	grep -qxF "To: blue@example.org" "$T/ack" || fail "ack not to Blue"
	grep -qxF "Auto-Submitted: auto-replied" "$T/ack" || fail "no Auto-Submitted"
	if grep -qxF "In-Reply-To: <$FIRST_ID>" "$T/ack"; then
		grep -qF "replacing" "$T/ack" && fail "first ack says it replaced"
		FIRST_SEEN=1
	elif grep -qxF "In-Reply-To: <$SECOND_ID>" "$T/ack"; then
		grep -qF "accepted, replacing the file you sent before." "$T/ack" ||
			fail "second ack does not say it replaced the first: $(cat "$T/ack")"
		SECOND_SEEN=1
	else
		fail "ack answers neither message"
	fi
done
[ "${FIRST_SEEN:-}${SECOND_SEEN:-}" = 11 ] || fail "acks missing"
[ "$(sqlite3 "$DB" "SELECT group_concat(o.current, ',') FROM (SELECT current
    FROM orders WHERE id > $ORD_MAX ORDER BY id) o")" = "0,1" ] ||
	fail "the second file is not the current one"
[ "$(sqlite3 "$DB" "SELECT raw FROM orders WHERE id > $ORD_MAX AND
    current = 1")" = "$(part "$W/second.eml" orders.txt)" ] ||
	fail "the current file is not the second one"
grep -qxF "resolved 1 window of hill" "$T/out" || fail "window not resolved"

# Standing orders (campaign ridge, where Red's key also plays): the key's
# campaign is the one the file names, the ack goes to that campaign's
# address for the player, and it says the window still waits for Blue.
begin standing
printf 'campaign: ridge\nturn: 1\nwindow: standing\nside: red\npolicy nearest\n' >"$W/standing1.txt"
sign red "$W/standing1.txt"
mail signed "$W/m.eml" "Rex <red@example.org>" "standing orders" \
	"$W/standing1.txt" "$W/standing1.txt.minisig"
deliver "$W/m.eml"
run_once "1 accepted, 0 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply ack rex@ridge.example "Your orders for ridge, turn 1 window 'standing' (red)" \
	"policy nearest" "The window is still waiting for orders from: blue."
grep -qF "Every order is in" "$T/reply" && fail "the ack says every order is in"
grep -qF "replacing" "$T/reply" && fail "the first standing orders replaced nothing"
recorded accepted
[ "$(sqlite3 "$DB" "SELECT s.standing FROM sides s JOIN campaigns c ON
    c.id = s.campaign_id WHERE c.name = 'ridge' AND s.name = 'red'")" = \
    "$(cat "$W/standing1.txt")" ] || fail "standing orders not stored"

begin standing_again
printf 'campaign: ridge\nturn: 1\nwindow: standing\nside: red\npolicy hold\n' >"$W/standing2.txt"
sign red "$W/standing2.txt"
mail signed "$W/m.eml" "Rex <red@example.org>" "standing orders" \
	"$W/standing2.txt" "$W/standing2.txt.minisig"
deliver "$W/m.eml"
run_once "1 accepted, 0 refused, 0 ignored, 0 duplicate, 0 deferred"
outbox_added 1
reply ack rex@ridge.example "accepted, replacing the file you sent before." \
	"policy hold" "The window is still waiting for orders from: blue."
recorded accepted
[ "$(sqlite3 "$DB" "SELECT s.standing FROM sides s JOIN campaigns c ON
    c.id = s.campaign_id WHERE c.name = 'ridge' AND s.name = 'red'")" = \
    "$(cat "$W/standing2.txt")" ] || fail "standing orders not replaced"

# --- over the whole run -------------------------------------------------------

STEP=final
# Every answer to a player's mail went out with an empty envelope sender
# and Auto-Submitted: auto-replied; everything else with hexpost's own.
[ "$(sqlite3 "$DB" "SELECT count(*) FROM outbox WHERE kind IN ('ack',
    'refusal') AND envelope_from <> ''")" = 0 ] ||
	fail "a reply has an envelope sender"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM outbox WHERE kind NOT IN ('ack',
    'refusal') AND envelope_from = ''")" = 0 ] ||
	fail "a report or welcome has an empty envelope sender"
for f in "$OUTBOX"/new/hexpost.ack.* "$OUTBOX"/new/hexpost.refusal.*; do
	grep -qxF "Auto-Submitted: auto-replied" "$f" ||
		fail "$f has no Auto-Submitted: auto-replied"
done
[ "$(sqlite3 "$DB" "SELECT outcome || ' ' || count(*) FROM messages GROUP BY
    outcome ORDER BY outcome" | tr '\n' ' ')" = \
    "accepted 6 ignored 4 rejected 20 " ] ||
	fail "messages: $(sqlite3 "$DB" "SELECT outcome, count(*) FROM messages GROUP BY outcome")"
[ "$(ls "$OUTBOX/new" | grep -c '^hexpost\.refusal\.')" -eq 18 ] ||
	fail "refusals in the outbox: $(ls "$OUTBOX/new" | grep -c refusal)"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM outbox WHERE state <> 'sent'")" \
    = 0 ] || fail "undelivered outbox rows"
[ -z "$(ls "$INBOX/new")" ] || fail "messages left in new/"
exit 0
