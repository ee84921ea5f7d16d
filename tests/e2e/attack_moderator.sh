#!/bin/bash
# attack_moderator: moderator actions taken by the operator (issue 11:
# "a mail lost, then proceed", "players on the server's word"). A
# fire-and-movement campaign, Blue a player with a key, Red the built-in
# opponent, and a moderator key registered (moderate NAME moderator-key):
#  1. Blue's mail is "lost" (the operator deletes it from the inbox) and
#     the operator says `proceed ai`: refused without the moderator key's
#     signature of the statement, and refused with the server key's. The
#     moderator's own signature is accepted, the statement mailed to Blue
#     and the campaign audits clean with the moderator key pinned.
#  2. A patched server fills the window anyway (its moderator key taken
#     away for the moment, the statement signed by the server key put in
#     the record): `hexpost audit`, `hexpost audit --bundle` and
#     contrib/hexpost-audit.py fail ("is not signed by the moderator's
#     key"); with the key and the statement dropped from the record, only
#     an auditor who pinned the moderator key catches it, and both
#     verifiers do ("has no moderator key").
#  4. A campaign with no moderator key: the operator replaces Blue by a key
#     of its own. The shipped hexpost records it as an unsigned statement
#     (moderator/0001.txt with no .minisig in the bundle) and mails it to
#     Blue; all three verifiers fail ("unsigned moderator action: replace
#     of blue in window N; register a moderator key, or pass
#     --accept-unsigned-moderation") and pass, warning, with that flag. With
#     the statement deleted (a patched server), the key change is caught.
#     (And in a campaign with a key, an unsigned statement after a signed
#     one fails even with --accept-unsigned-moderation.)
#  (Also: the acknowledgement names the hash of the file accepted and the
#  report the hash of the file used, or that the moderator filled it.)
#  3. The operator seats a key of its own for Blue ("replace" refused
#     without the moderator's signature; a patched server does it anyway)
#     and signs Blue's next orders with it: all three verifiers fail ("no
#     statement signed by the moderator's key replaced it"). A replacement
#     the moderator signed audits clean.
# Usage: bash attack_moderator.sh /path/to/hexpost (HEXPOST_SOURCE: source)
set -u
. "$(dirname "$0")/lib-attack.sh"
. "$(dirname "$0")/lib-reports.sh"
attack_start attack_moderator "${1:?usage: attack_moderator.sh /path/to/hexpost}"
minisign -G -W -p "$T/mod.pub" -s "$T/mod.key" >/dev/null 2>&1 || fail "minisign -G mod"
MK="--moderator-key $T/mod.pub"
# keyid PUB: the key id as hexpost writes it (16 digits; minisign's comment
# drops leading zeros).
keyid() {
	printf '%16s' "$(sed -n 's/.*public key //p' "$1" | head -1)" | tr ' ' 0
}

hp campaign new hill --ruleset fire-and-movement --moderator-key "$T/mod.pub" \
	>"$T/out" 2>"$T/err" || fail "campaign new: $(cat "$T/err")"
grep -qF "Campaign hill: the moderator's key is" "$T/out" ||
	fail "campaign new --moderator-key: $(cat "$T/out")"
hp player add hill blue --email blue@example.org --name Bea \
	--key "$T/blue.pub" >/dev/null || fail "player add"
# Blue's welcome carries the moderator key registered at creation.
sqlite3 "$DB" "SELECT CAST(data AS TEXT) FROM outbox WHERE kind = 'welcome'" >"$T/welcome"
grep -qxF "$(sed -n 2p "$T/mod.pub")" "$T/welcome" ||
	fail "the welcome does not carry the moderator key: $(cat "$T/welcome")"
hp moderate hill moderator-key --key "$T/red.pub" >/dev/null 2>"$T/err" &&
	fail "a second moderator key was registered"
grep -qF "has a moderator key already" "$T/err" || fail "second key: $(cat "$T/err")"
send hill blue
hp run --once >"$T/out" 2>"$T/err" || fail "run: $(cat "$T/err")"
grep -q "1 accepted" "$T/out" || fail "Blue's orders not taken in: $(cat "$T/out")"
# The acknowledgement names the hash of the file accepted; Blue's report
# names the file the window used, the same one.
H=$(sqlite3 "$DB" "SELECT lower(hex(hash)) FROM orders WHERE source = 'mail'")
W1=$(sqlite3 "$DB" "SELECT window_id FROM orders WHERE source = 'mail'")
sqlite3 "$DB" "SELECT CAST(data AS TEXT) FROM outbox WHERE kind = 'ack'" >"$T/ack"
grep -qx "$H" "$T/ack" || fail "the ack does not name the hash $H: $(cat "$T/ack")"
e2e_reports "$DB" "SELECT window_id, side_idx FROM reports WHERE window_id = $W1 AND side_idx = 0" >"$T/rep"
grep -qx "  blue: $H" "$T/rep" && grep -qx "    the signed file sent by mail" "$T/rep" ||
	fail "Blue's report does not name the file used: $(cat "$T/rep")"

# refused PHRASE ARGS...: hexpost moderate hill ARGS exits 65 saying PHRASE.
refused() {
	local phrase=$1 rc
	shift
	hp moderate hill "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 65 ] || fail "moderate $* exited $rc: $(cat "$T/out" "$T/err")"
	grep -qF "$phrase" "$T/err" || fail "moderate $*: no '$phrase' in: $(cat "$T/err")"
}
# pinned BUNDLE PHRASE: both verifiers, given the moderator key, fail
# naming PHRASE (caught: without pinning it).
pinned() {
	"$HEXPOST" audit --bundle "$1" $MK >"$T/out" 2>"$T/err"
	[ $? -eq 65 ] && grep -qF -- "$2" "$T/err" ||
		fail "audit --bundle $MK: want '$2': $(cat "$T/out" "$T/err")"
	python3 "$PYAUDIT" $MK "$1" >"$T/out" 2>"$T/err"
	[ $? -eq 1 ] && grep -qF -- "$2" "$T/err" ||
		fail "hexpost-audit.py $MK: want '$2': $(cat "$T/out" "$T/err")"
}
clean() {	# clean NAME: all three verifiers pass with the key pinned
	rm -rf "$T/$1"
	hp audit hill $MK >"$T/out" 2>"$T/err" || fail "$1: audit: $(cat "$T/err")"
	grep -qF "moderator key" "$T/out" || fail "$1: audit names no moderator key: $(cat "$T/out")"
	hp audit export hill "$T/$1" >/dev/null 2>"$T/err" || fail "export: $(cat "$T/err")"
	"$HEXPOST" audit --bundle "$T/$1" $MK >"$T/out" 2>"$T/err" ||
		fail "$1: audit --bundle: $(cat "$T/err")"
	python3 "$PYAUDIT" $MK "$T/$1" >"$T/out" 2>"$T/err" ||
		fail "$1: hexpost-audit.py: $(cat "$T/err")"
}

# 1. Blue mails orders; the operator "loses" them and says proceed.
W=$(sqlite3 "$DB" "SELECT id FROM windows WHERE state = 'open'")
send hill blue
rm -f "$D"/inbox/new/* "$D"/inbox/cur/*
refused "has a moderator key: 'proceed ai' is a statement signed by it" proceed ai
hp moderate hill proceed ai --print-statement >"$T/s.txt" 2>"$T/err" ||
	fail "print-statement: $(cat "$T/err")"
grep -qx "action: proceed ai" "$T/s.txt" || fail "statement: $(cat "$T/s.txt")"
minisign -S -s "$D/server.key" -m "$T/s.txt" -x "$T/s.server.minisig" >/dev/null ||
	fail "minisign -S server"
refused "is not the campaign's moderator key's" proceed ai --sig "$T/s.server.minisig"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM orders WHERE window_id = $W")" = 0 ] ||
	fail "a refused proceed filled the window"
cp -r "$D" "$T/before"	# for part 2
minisign -S -s "$T/mod.key" -m "$T/s.txt" >/dev/null || fail "minisign -S mod"
hp moderate hill proceed ai --sig "$T/s.txt.minisig" >"$T/out" 2>"$T/err" ||
	fail "signed proceed: $(cat "$T/err")"
sqlite3 "$DB" "SELECT CAST(data AS TEXT) FROM outbox WHERE kind = 'notice'
    AND rcpt = 'blue@example.org' ORDER BY id DESC LIMIT 1" >"$T/mail"
grep -qF "The moderator's statement 1, signed by the moderator's key" "$T/mail" &&
	grep -qx "action: proceed ai" "$T/mail" ||
	fail "Blue got no mail with the statement: $(cat "$T/mail")"
hp run --once >/dev/null 2>"$T/err" || fail "run: $(cat "$T/err")"
e2e_reports "$DB" "SELECT window_id, side_idx FROM reports WHERE window_id = $W AND side_idx = 0" >"$T/rep"
grep -qF "filled by the moderator's signed statement 1 ('proceed')" "$T/rep" ||
	fail "Blue's report does not say the moderator filled the side: $(cat "$T/rep")"
clean b1
grep -qF "1 moderator statements verified" "$T/out" || fail "not counted: $(cat "$T/out")"

# 2. A patched server: the key taken away, proceed unsigned, then a
# statement signed by the server key put in the record.
rm -rf "$D"
mv "$T/before" "$D"
KEY=$(sqlite3 "$DB" "SELECT moderator_pubkey FROM campaigns")
sqlite3 "$DB" "UPDATE campaigns SET moderator_pubkey = NULL" || fail "sqlite"
hp moderate hill proceed ai >/dev/null 2>"$T/err" || fail "unsigned proceed: $(cat "$T/err")"
# The patched server leaves no trace of it (hexpost records it unsigned).
sqlite3 "$DB" "DELETE FROM moderator_statements" || fail "sqlite"
cp -r "$D" "$T/nokey"	# the same without the forged statement, below
sqlite3 "$DB" "UPDATE campaigns SET moderator_pubkey = CAST(readfile('$T/mod.pub') AS TEXT);
    INSERT INTO moderator_statements (campaign_id, seq, statement, signature,
    created) VALUES (1, 1, CAST(readfile('$T/s.txt') AS TEXT),
    CAST(readfile('$T/s.server.minisig') AS TEXT), 0)" || fail "forge"
hp run --once >/dev/null 2>"$T/err" || fail "run: $(cat "$T/err")"
PHRASE="moderator statement 1 is not signed by the moderator's key"
caught_db hill "$PHRASE"
rm -rf "$T/b2"
hp audit export hill "$T/b2" >/dev/null 2>"$T/err" || fail "export: $(cat "$T/err")"
caught "$T/b2" "$PHRASE"
pinned "$T/b2" "$PHRASE"
# The key and the statement dropped: the fill looks like a deadline's.
rm -rf "$D"
mv "$T/nokey" "$D"
hp run --once >/dev/null 2>"$T/err" || fail "run: $(cat "$T/err")"
hp audit hill >"$T/out" 2>"$T/err" || fail "unpinned audit: $(cat "$T/err")"
grep -qF "NOTE: no moderator key" "$T/out" || fail "no note: $(cat "$T/out")"
grep -qF "filled at a deadline" "$T/out" || fail "fill not noted: $(cat "$T/out")"
PHRASE="has no moderator key: its moderator actions"
hp audit hill $MK >/dev/null 2>"$T/err"
[ $? -eq 65 ] && grep -qF "$PHRASE" "$T/err" || fail "pinned db audit: $(cat "$T/err")"
rm -rf "$T/b3"
hp audit export hill "$T/b3" >/dev/null 2>"$T/err" || fail "export: $(cat "$T/err")"
pinned "$T/b3" "$PHRASE"
sqlite3 "$DB" "UPDATE campaigns SET moderator_pubkey = '$KEY'" || fail "restore"

# 3. The operator's own key seated for Blue ($T/red.* stands for it).
cp -r "$D" "$T/before"
RED=$(sed -n 2p "$T/red.pub")
refused "has a moderator key: 'replace blue" replace blue --email op@example.org --key "$T/red.pub"
sqlite3 "$DB" "UPDATE campaigns SET moderator_pubkey = NULL" || fail "sqlite"
hp moderate hill replace blue --email op@example.org --name Op --key "$T/red.pub" \
	>/dev/null 2>"$T/err" || fail "unsigned replace: $(cat "$T/err")"
sqlite3 "$DB" "UPDATE campaigns SET moderator_pubkey = '$KEY';
    DELETE FROM moderator_statements" || fail "restore"
hp orders suggest hill --side blue >"$T/suggest.txt" || fail "suggest"
bash "$PLAYER" -t hexpost@localhost -f op@example.org -k "$T/red.key" \
	--maildir "$D/inbox" "$T/suggest.txt" >/dev/null || fail "hexpost-player op"
hp run --once >"$T/out" 2>"$T/err" || fail "run: $(cat "$T/err")"
grep -q "1 accepted" "$T/out" || fail "Op's orders not taken in: $(cat "$T/out")"
PHRASE="but blue's key was $(keyid "$T/blue.pub") and no statement signed by the moderator's key replaced it"
caught_db hill "$PHRASE"
rm -rf "$T/b4"
hp audit export hill "$T/b4" >/dev/null 2>"$T/err" || fail "export: $(cat "$T/err")"
caught "$T/b4" "$PHRASE"
pinned "$T/b4" "$PHRASE"
# The same replacement signed by the moderator: clean.
rm -rf "$D"
mv "$T/before" "$D"
hp moderate hill replace blue --email op@example.org --name Op --key "$T/red.pub" \
	--print-statement >"$T/r.txt" 2>"$T/err" || fail "print: $(cat "$T/err")"
grep -qx "action: replace blue $(keyid "$T/red.pub")" "$T/r.txt" ||
	fail "replace statement: $(cat "$T/r.txt")"
minisign -S -s "$T/mod.key" -m "$T/r.txt" >/dev/null || fail "minisign -S mod"
hp moderate hill replace blue --email op@example.org --name Op --key "$T/red.pub" \
	--sig "$T/r.txt.minisig" >/dev/null 2>"$T/err" || fail "signed replace: $(cat "$T/err")"
bash "$PLAYER" -t hexpost@localhost -f op@example.org -k "$T/red.key" \
	--maildir "$D/inbox" "$T/suggest.txt" >/dev/null || fail "hexpost-player op"
hp run --once >"$T/out" 2>"$T/err" || fail "run: $(cat "$T/err")"
grep -q "1 accepted" "$T/out" || fail "Op's orders not taken in: $(cat "$T/out")"
clean b5
grep -qF "1 moderator statements verified" "$T/out" || fail "not counted: $(cat "$T/out")"
# An unsigned statement after a signed one fails, whatever the auditor
# accepts: once registered, the key signs every statement.
sed 's/^sequence: 1$/sequence: 2/' "$T/b5/moderator/0001.txt" >"$T/b5/moderator/0002.txt"
PHRASE="moderator statement 2 is unsigned, after statement 1 signed by the moderator's key"
"$HEXPOST" audit --bundle "$T/b5" --accept-unsigned-moderation >"$T/out" 2>"$T/err"
[ $? -eq 65 ] && grep -qF "$PHRASE" "$T/err" || fail "unsigned after signed: $(cat "$T/out" "$T/err")"
python3 "$PYAUDIT" --accept-unsigned-moderation "$T/b5" >"$T/out" 2>"$T/err"
[ $? -eq 1 ] && grep -qF "$PHRASE" "$T/err" || fail "unsigned after signed (py): $(cat "$T/out" "$T/err")"

# 4. A campaign with no moderator key (a fresh data directory): the
# operator replaces Blue by a key of its own with the shipped hexpost. It
# is recorded as an unsigned statement and mailed to Blue; all three
# verifiers fail naming it unless the auditor accepts unsigned moderation.
D=$T/data2
CONF=$D/hexpost.conf
DB=$D/hexpost.db
"$HEXPOST" init --datadir "$D" >/dev/null 2>"$T/err" || fail "init: $(cat "$T/err")"
hp campaign new vale --ruleset fire-and-movement >"$T/out" 2>"$T/err" ||
	fail "campaign new vale: $(cat "$T/err")"
grep -qF "no moderator key: replace, proceed, end and extensions will be unsigned" "$T/out" ||
	fail "campaign new says nothing of the moderator key: $(cat "$T/out")"
hp player add vale blue --email blue@example.org --name Bea \
	--key "$T/blue.pub" >/dev/null || fail "player add"
send vale blue
hp run --once >"$T/out" 2>"$T/err" || fail "run: $(cat "$T/err")"
grep -q "1 accepted" "$T/out" || fail "Blue's orders not taken in: $(cat "$T/out")"
hp moderate vale extend 2 --sig "$T/s.server.minisig" >"$T/out" 2>"$T/err" &&
	fail "a signature was taken without a moderator key"
grep -qF "has no moderator key, so no signature can be checked" "$T/err" ||
	fail "--sig without a key: $(cat "$T/err")"
N=$(sqlite3 "$DB" "SELECT count(*) FROM windows WHERE id <= (SELECT max(id)
    FROM windows WHERE state = 'open')")
hp moderate vale replace blue --email op@example.org --name Op --key "$T/red.pub" \
	>"$T/out" 2>"$T/err" || fail "keyless replace: $(cat "$T/err")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM moderator_statements WHERE signature = ''
    AND statement LIKE '%window: $N%action: replace blue %'")" = 1 ] ||
	fail "no unsigned statement recorded: $(sqlite3 "$DB" "SELECT * FROM moderator_statements")"
sqlite3 "$DB" "SELECT CAST(data AS TEXT) FROM outbox WHERE kind = 'notice'
    AND rcpt = 'blue@example.org' ORDER BY id DESC LIMIT 1" >"$T/mail"
grep -qF "The moderator's statement 1, NOT signed" "$T/mail" &&
	grep -q "^action: replace blue " "$T/mail" ||
	fail "Blue got no mail with the unsigned statement: $(cat "$T/mail")"
hp orders suggest vale --side blue >"$T/suggest.txt" || fail "suggest"
bash "$PLAYER" -t hexpost@localhost -f op@example.org -k "$T/red.key" \
	--maildir "$D/inbox" "$T/suggest.txt" >/dev/null || fail "hexpost-player op"
hp run --once >"$T/out" 2>"$T/err" || fail "run: $(cat "$T/err")"
grep -q "1 accepted" "$T/out" || fail "Op's orders not taken in: $(cat "$T/out")"
PHRASE="unsigned moderator action: replace of blue in window $N; register a moderator key, or pass --accept-unsigned-moderation"
caught_db vale "$PHRASE"
rm -rf "$T/b6"
hp audit export vale "$T/b6" >/dev/null 2>"$T/err" || fail "export: $(cat "$T/err")"
[ -f "$T/b6/moderator/0001.txt" ] && [ ! -e "$T/b6/moderator/0001.txt.minisig" ] ||
	fail "the bundle does not hold the unsigned statement: $(ls -R "$T/b6/moderator")"
caught "$T/b6" "$PHRASE"
# accepted BUNDLE: all three pass with --accept-unsigned-moderation, warning.
accepted() {
	local W="unsigned moderator action (replace, proceed, end, extensions) on the server's word"
	hp audit vale --accept-unsigned-moderation >"$T/out" 2>"$T/err" ||
		fail "accepted audit: $(cat "$T/err")"
	grep -qF "WARNING: 1 $W" "$T/out" || fail "no warning: $(cat "$T/out")"
	"$HEXPOST" audit --bundle "$1" --accept-unsigned-moderation >"$T/out" 2>"$T/err" ||
		fail "accepted audit --bundle: $(cat "$T/err")"
	grep -qF "WARNING: 1 $W" "$T/out" || fail "no warning: $(cat "$T/out")"
	python3 "$PYAUDIT" --accept-unsigned-moderation "$1" >"$T/out" 2>"$T/err" ||
		fail "accepted hexpost-audit.py: $(cat "$T/err")"
	grep -qF "WARNING: 1 $W" "$T/out" || fail "no warning: $(cat "$T/out")"
}
accepted "$T/b6"
# A patched server leaves no statement: the key change itself is caught.
sqlite3 "$DB" "DELETE FROM moderator_statements" || fail "sqlite"
PHRASE="unsigned moderator action: replace of blue in window $N (blue's order file in"
caught_db vale "$PHRASE"
rm -rf "$T/b7"
hp audit export vale "$T/b7" >/dev/null 2>"$T/err" || fail "export: $(cat "$T/err")"
caught "$T/b7" "$PHRASE"
"$HEXPOST" audit --bundle "$T/b7" --accept-unsigned-moderation >/dev/null 2>"$T/err" ||
	fail "accepted audit --bundle b7: $(cat "$T/err")"
python3 "$PYAUDIT" --accept-unsigned-moderation "$T/b7" >/dev/null 2>"$T/err" ||
	fail "accepted hexpost-audit.py b7: $(cat "$T/err")"
echo "attack_moderator: ok"
