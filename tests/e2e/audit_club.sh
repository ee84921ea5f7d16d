#!/bin/bash
# audit_club: the dice audit over a club's life on one data directory, with
# hexpost's clock set by HEXPOST_NOW (test only) and every signature made by
# the real minisign CLI:
#   ford  fire-and-movement, Blue Ann and Red Bob by signed mail; Bob is
#         replaced mid-campaign by Dee with a new key (`moderate replace`);
#         pause, resume and extend; one of Ann's windows is filled at its
#         deadline by the ai policy (source deadline-ai); played to the end.
#   mill  fire-and-movement, Blue Ann, Red the built-in opponent; policy
#         hold: a missed window holds (deadline-hold); ended by the
#         moderator (`moderate end`). ford and mill have no moderator key:
#         their replace, extend and end are unsigned moderator actions, so
#         every audit of them fails naming the first unless given
#         --accept-unsigned-moderation.
#   pwc   portable-modern, Blue Cy by signed mail, Red the built-in
#         opponent; played to the end.
#   rot   the daemon (`hexpost run`) resolves a window; `hexpost key
#         rotate` makes a new server key with a rotation statement (checked
#         with the stock `minisign -V` and the old key; a notice tells Ann);
#         the daemon, seeing the key file change, resolves the next window with the new key,
#         and the campaign audits clean trusting the original key or the new
#         one (hexpost, bundle, Python verifier). Then a key swapped by hand
#         (no statement): the audit fails whichever key it trusts, and
#         `key rotate` refuses to start from it.
# Every campaign here is a --seed test campaign: every audit of it fails
# ("is a TEST campaign") unless given --accept-test-dice, and then warns.
# For ford, mill and pwc: `hexpost audit` passes and says what it checked;
# the exported bundle passes `hexpost audit --bundle`, the Python verifier
# and the stock `minisign -V` for every dice log; tampered copies (a replaced
# player's key, the key history in a bundle, a deadline file, the end's
# record, a die) fail with a clear message. The welcome mail of a
# replacement player carries the server key and the open window's
# commitment.
# Usage: bash audit_club.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

HEXPOST=${1:?usage: audit_club.sh /path/to/hexpost}
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-reports.sh"
PYAUDIT=$SRC/contrib/hexpost-audit.py
T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-audit-club.XXXXXX") || exit 1
DPID=
cleanup() {
	[ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
unset HEXPOST_TEMPLATES HEXPOST_DB HEXPOST_CONFIG HEXPOST_NOW

STEP=
fail() {
	echo "audit_club: FAIL${STEP:+ [$STEP]}: $*" >&2
	exit 1
}
for tool in minisign sqlite3 python3 perl; do
	command -v "$tool" >/dev/null || fail "$tool is not installed"
done

D=$T/data
CONF=$D/hexpost.conf
DB=$D/hexpost.db
NOW=1800000000    # 2027-01-15 08:00 UTC
N=0
hp() { HEXPOST_NOW=$NOW "$HEXPOST" --config "$CONF" "$@"; }
q() { sqlite3 "$DB" "$1"; }

# run HOURS: advance the clock by HOURS and run --once; output in $T/out.
run() {
	NOW=$((NOW + $1 * 3600))
	hp run --once >"$T/out" 2>"$T/err" || fail "run --once: $(cat "$T/err")"
}

# send CAMPAIGN SIDE KEY FROM: the built-in opponent's suggestion for SIDE,
# signed with KEY, mailed into the inbox.
send() {
	N=$((N + 1))
	hp orders suggest "$1" --side "$2" >"$T/o$N.txt" || fail "suggest $1 $2"
	signed_mail "$T/$3.key" "$T/o$N.txt" "$4" "ac.$N@players.example" \
		"orders $N" "$T/m$N.eml" || fail "signing"
	deliver "$D/inbox" "$T/m$N.eml" "m$N" || fail "deliver"
}

# waiting CAMPAIGN: the side the open window waits for ("" if finished).
waiting() {
	hp campaign show "$1" >"$T/show" || fail "campaign show $1"
	grep -q "status   finished" "$T/show" && return 0
	sed -n 's/.*waiting for: \([a-z]*\).*/\1/p' "$T/show"
}

# play CAMPAIGN BLUE RED: send whatever the open window waits for (BLUE and
# RED are "KEY EMAIL" or "-" for the built-in opponent) until the end.
play() {
	local i side who
	for i in $(seq 1 80); do
		side=$(waiting "$1")
		[ -n "$side" ] || return 0
		if [ "$side" = blue ]; then who=$2; else who=$3; fi
		[ "$who" != - ] || fail "$1 waits for the built-in opponent"
		send "$1" "$side" ${who% *} "${who#* }"
		run 1
		grep -q "^mail in: 1 accepted" "$T/out" ||
			fail "$1: orders of $side not accepted: $(cat "$T/out")"
	done
	fail "$1 did not end in 80 windows"
}

# MODOK: --accept-unsigned-moderation for a campaign whose moderator acted
# without a moderator key (MODACT: the start of the first such action).
MODOK=
MODACT=
# audit_ok CAMPAIGN PHRASE...: the audit passes, saying each PHRASE; the
# bundle passes hexpost, the Python verifier and minisign -V.
audit_ok() {
	local c=$1 w
	shift
	# A --seed campaign: every audit fails without --accept-test-dice,
	# and says so loudly with it.
	hp audit "$c" >"$T/out" 2>"$T/err" && fail "audit $c passed test dice"
	grep -qF "is a TEST campaign" "$T/err" || fail "audit $c: $(cat "$T/err")"
	hp audit --accept-test-dice $MODOK "$c" >"$T/out" 2>"$T/err" || fail "audit $c: $(cat "$T/err")"
	grep -q "^audit of $c: OK" "$T/out" || fail "audit $c: $(cat "$T/out")"
	grep -q "^WARNING: $c is a TEST campaign" "$T/out" || fail "no warning: $(cat "$T/out")"
	for p in "$@"; do
		grep -qF -- "$p" "$T/out" || fail "audit $c lacks '$p': $(cat "$T/out")"
	done
	rm -rf "$T/b-$c"
	hp audit export "$c" "$T/b-$c" >/dev/null 2>"$T/err" ||
		fail "export $c: $(cat "$T/err")"
	"$HEXPOST" audit --accept-test-dice $MODOK --bundle "$T/b-$c" >"$T/out" 2>"$T/err" ||
		fail "audit --bundle $c: $(cat "$T/err")"
	"$HEXPOST" audit --bundle "$T/b-$c" >"$T/out" 2>"$T/err" &&
		fail "audit --bundle $c passed test dice"
	grep -qF "is a TEST campaign" "$T/err" || fail "audit --bundle $c: $(cat "$T/err")"
	python3 "$PYAUDIT" "$T/b-$c" >"$T/out" 2>"$T/err"
	[ $? -eq 1 ] && grep -qF "is a TEST campaign" "$T/err" ||
		fail "hexpost-audit.py passed test dice: $(cat "$T/out" "$T/err")"
	python3 "$PYAUDIT" --accept-test-dice $MODOK "$T/b-$c" >"$T/out" 2>"$T/err" ||
		fail "hexpost-audit.py $c: $(cat "$T/err")"
	grep -q "^hexpost-audit: OK" "$T/out" || fail "$(cat "$T/out")"
	grep -q "^hexpost-audit: WARNING: a TEST campaign" "$T/out" || fail "$(cat "$T/out")"
	# Unsigned moderator actions (no moderator key): every audit fails
	# naming the first unless they are accepted, and warns when they are.
	if [ -n "$MODOK" ]; then
		grep -qF "WARNING: " "$T/out" || fail "$c: no unsigned warning: $(cat "$T/out")"
		hp audit --accept-test-dice "$c" >"$T/out" 2>"$T/err" &&
			fail "audit $c passed unsigned moderation"
		grep -qF "unsigned moderator action: $MODACT" "$T/err" || fail "audit $c: $(cat "$T/err")"
		"$HEXPOST" audit --accept-test-dice --bundle "$T/b-$c" >"$T/out" 2>"$T/err" &&
			fail "audit --bundle $c passed unsigned moderation"
		grep -qF "unsigned moderator action: $MODACT" "$T/err" || fail "audit --bundle $c: $(cat "$T/err")"
		python3 "$PYAUDIT" --accept-test-dice "$T/b-$c" >"$T/out" 2>"$T/err"
		[ $? -eq 1 ] && grep -qF "unsigned moderator action: $MODACT" "$T/err" ||
			fail "hexpost-audit.py $c: $(cat "$T/out" "$T/err")"
	fi
	for w in "$T/b-$c"/windows/*/; do
		[ -f "$w/dice-log.txt" ] || continue
		minisign -V -p "$D/server.pub" -m "$w/dice-log.txt" >"$T/out" 2>&1 ||
			fail "minisign -V $c $w: $(cat "$T/out")"
	done
}

# tamper CAMPAIGN PHRASE SQL: on a copy of the database, SQL makes the
# audit fail (exit 65) with PHRASE in its message.
tamper() {
	rm -f "$T/t.db"
	sqlite3 "$DB" ".backup '$T/t.db'" || fail "backup"
	sqlite3 "$T/t.db" "$3" || fail "sql: $3"
	"$HEXPOST" --db "$T/t.db" audit --accept-test-dice $MODOK "$1" --pubkey "$D/server.pub" \
		>"$T/out" 2>"$T/err"
	local rc=$?
	[ $rc -eq 65 ] || fail "tampered $1: audit exited $rc, want 65: $(cat "$T/out" "$T/err")"
	grep -qF "audit FAILED" "$T/err" && grep -qF -- "$2" "$T/err" ||
		fail "tampered $1: expected '$2' in: $(cat "$T/err")"
}

# btamper CAMPAIGN PHRASE PYPHRASE CMD: on a copy of the bundle, CMD (run
# in it) makes `hexpost audit --accept-test-dice --bundle` fail with PHRASE and, unless
# PYPHRASE is "-", the Python verifier with PYPHRASE.
btamper() {
	rm -rf "$T/b2"
	cp -r "$T/b-$1" "$T/b2"
	(cd "$T/b2" && eval "$4") || fail "tamper command: $4"
	"$HEXPOST" audit --accept-test-dice $MODOK --bundle "$T/b2" >"$T/out" 2>"$T/err"
	[ $? -eq 65 ] && grep -qF -- "$2" "$T/err" ||
		fail "tampered bundle of $1: $(cat "$T/out" "$T/err")"
	[ "$3" = - ] && return 0
	python3 "$PYAUDIT" --accept-test-dice $MODOK "$T/b2" >"$T/out" 2>"$T/err"
	[ $? -eq 1 ] && grep -qF -- "$3" "$T/err" ||
		fail "tampered bundle of $1, Python: $(cat "$T/out" "$T/err")"
}

STEP=setup
"$HEXPOST" init --datadir "$D" >/dev/null || fail "init"
sed -i -e 's/^deadline_hours = .*/deadline_hours = 24/' \
	-e 's/^remind_hours = .*/remind_hours = 0/' \
	-e 's/^missing = .*/missing = ai/' "$CONF"
for k in ann bob dee cy; do
	new_key "$k" "$T" || fail "minisign -G $k"
done

STEP=ford
hp campaign new ford --ruleset fire-and-movement --seed club-ford >/dev/null ||
	fail "campaign new ford"
hp player add ford blue --email ann@example.org --name Ann --key "$T/ann.pub" >/dev/null &&
	hp player add ford red --email bob@example.org --name Bob --key "$T/bob.pub" >/dev/null ||
	fail "player add"
# Bob signs at least one file that enters a dice key before he goes.
for i in $(seq 1 10); do
	side=$(waiting ford)
	if [ "$side" = blue ]; then send ford blue ann "Ann <ann@example.org>"
	else send ford red bob "Bob <bob@example.org>"; fi
	run 1
	grep -q "^mail in: 1 accepted" "$T/out" || fail "$(cat "$T/out")"
	[ "$side" = red ] && break
done
[ "$(q "SELECT count(*) FROM orders o JOIN players p ON p.id = o.player_id WHERE p.name = 'Bob' AND o.current = 1")" -ge 1 ] ||
	fail "Bob has no file in a dice key"

STEP=replace
hp moderate ford replace red --email dee@example.org --name Dee --key "$T/dee.pub" >"$T/out" ||
	fail "replace: $(cat "$T/out")"
grep -qF "Bob (bob@example.org) no longer plays red." "$T/out" || fail "$(cat "$T/out")"
C=$(q "SELECT lower(hex(w.commitment)) FROM windows w JOIN campaigns c ON c.id = w.campaign_id WHERE c.name = 'ford' AND w.state = 'open'")
[ ${#C} -eq 64 ] || fail "no open window's commitment"
q "SELECT data FROM outbox WHERE kind = 'welcome' AND rcpt = 'dee@example.org'" |
	perl -MMIME::QuotedPrint -0777 -ne 'my ($h, $b) = split /\n\n/, $_, 2;
	$b = decode_qp($b) if $h =~ /quoted-printable/i; print $b' >"$T/welcome"
grep -qF "$C" "$T/welcome" || fail "Dee's welcome lacks the open window's commitment"
grep -qF "$(sed -n 2p "$D/server.pub")" "$T/welcome" || fail "Dee's welcome lacks the server key"
# Bob's key no longer plays ford.
[ "$(waiting ford)" = red ] || send ford blue ann "Ann <ann@example.org>"
[ "$(waiting ford)" = red ] || run 1
[ "$(waiting ford)" = red ] || fail "ford does not wait for red"
send ford red bob "Bob <bob@example.org>"
run 1
grep -q "^mail in: 0 accepted, 1 refused" "$T/out" || fail "Bob's file after his replacement: $(cat "$T/out")"

STEP=pause-extend
hp moderate ford pause >/dev/null && hp moderate ford resume >/dev/null &&
	hp moderate ford extend 2 >/dev/null || fail "pause, resume, extend"
send ford red dee "Dee <dee@example.org>"
run 1
grep -q "^mail in: 1 accepted" "$T/out" || fail "Dee's orders: $(cat "$T/out")"

STEP=deadline-ai
side=$(waiting ford)
[ "$side" = blue ] || send ford red dee "Dee <dee@example.org>"
[ "$side" = blue ] || run 1
[ "$(waiting ford)" = blue ] || fail "ford does not wait for blue"
run 30
grep -qx "deadline of ford: filled" "$T/out" || fail "ford's deadline: $(cat "$T/out")"
[ "$(q "SELECT count(*) FROM orders WHERE source = 'deadline-ai'")" = 1 ] ||
	fail "no deadline-ai file"
e2e_unpack "$DB"
q "SELECT text FROM dice_logs" | grep -q "^order: blue deadline-ai " ||
	fail "the dice log does not say deadline-ai"
play ford "ann Ann <ann@example.org>" "dee Dee <dee@example.org>"
MODOK=--accept-unsigned-moderation	# ford has no moderator key
MODACT="replace of red in window "
audit_ok ford "order files written at a deadline" \
	"by players replaced since, checked against the key they had then"

STEP="ford tampered"
tamper ford "not the key registered for that player" \
	"UPDATE players SET pubkey = (SELECT pubkey FROM players WHERE name = 'Dee') WHERE name LIKE 'Bob (replaced%'"
tamper ford "order file is signed by Dee, who plays blue" \
	"UPDATE players SET pubkey = (SELECT pubkey FROM players WHERE name LIKE 'Bob (replaced%') WHERE name = 'Dee';
	 UPDATE order_signatures SET player_id = (SELECT id FROM players WHERE name = 'Dee') WHERE player_id = (SELECT id FROM players WHERE name LIKE 'Bob (replaced%');
	 UPDATE orders SET player_id = NULL WHERE player_id = (SELECT id FROM players WHERE name LIKE 'Bob (replaced%');
	 UPDATE players SET side_idx = 0 WHERE name = 'Dee'"
tamper ford "does not hash to the hash recorded" \
	"UPDATE orders SET raw = raw || ' ' WHERE source = 'deadline-ai'"
tamper ford "which is none of mail, cli" \
	"UPDATE orders SET source = 'deadline-x' WHERE source = 'deadline-ai'"
BOBID=$(q "SELECT key_id FROM players WHERE name LIKE 'Bob (replaced%'")
grep -q "^player: red $BOBID Bob (replaced" "$T/b-ford/players.txt" ||
	fail "the bundle's players.txt lacks Bob's key: $(cat "$T/b-ford/players.txt")"
btamper ford "not the key registered for that player" "which is no player's of that side" \
	"sed -i '/ $BOBID /d' players.txt"

STEP=mill
hp campaign new mill --ruleset fire-and-movement --seed club-mill >/dev/null ||
	fail "campaign new mill"
hp player add mill blue --email ann@example.org --name Ann --key "$T/ann.pub" >/dev/null ||
	fail "player add mill"
hp moderate mill set missing hold >/dev/null || fail "set missing hold"
send mill blue ann "Ann <ann@example.org>"
run 1
grep -q "^resolved .* of mill" "$T/out" || fail "mill: $(cat "$T/out")"
[ "$(waiting mill)" = blue ] || fail "mill does not wait for blue"
run 30
grep -qx "deadline of mill: filled" "$T/out" || fail "mill's deadline: $(cat "$T/out")"
[ "$(q "SELECT count(*) FROM orders WHERE source = 'deadline-hold'")" = 1 ] ||
	fail "no deadline-hold file: $(q "SELECT source FROM orders")"
send mill blue ann "Ann <ann@example.org>"
run 1
hp moderate mill pause >/dev/null && hp moderate mill resume >/dev/null &&
	hp moderate mill extend 3 >/dev/null || fail "pause, resume, extend"
hp moderate mill end agreed draw >/dev/null || fail "end"
[ "$(q "SELECT status || ': ' || result FROM campaigns WHERE name = 'mill'")" = \
    "finished: ended by the moderator: agreed draw" ] || fail "mill not ended"
MODACT="extend 3 in window "
audit_ok mill "order files written at a deadline" \
	"ended by the moderator's 'end' on record"
grep -qx "end: agreed draw" "$T/b-mill/campaign.txt" || fail "no end: in the bundle"

STEP="mill tampered"
tamper mill "but the end on record is none" \
	"DELETE FROM commands WHERE command LIKE 'end%'"
tamper mill "no moderator's 'end' is on record" \
	"DELETE FROM commands WHERE command LIKE 'end%';
	 DELETE FROM moderator_statements WHERE statement LIKE '%action: end %'"
tamper mill "2 'end' commands are on record" \
	"INSERT INTO commands (campaign_id, command, at) SELECT campaign_id, command, at + 1 FROM commands WHERE command LIKE 'end%'"
tamper mill "ends the game ('agreed draw')" \
	"UPDATE commands SET command = 'end a win for red' WHERE command LIKE 'end%'"
tamper mill "the stored state of mill differs" \
	"UPDATE commands SET command = 'end a win for red' WHERE command LIKE 'end%';
	 UPDATE moderator_statements SET statement = replace(statement, 'end agreed draw', 'end a win for red')"
e2e_unpack "$DB"
W=$(q "SELECT window_id FROM orders WHERE source = 'deadline-hold'")
tamper mill "does not hash to the hash recorded" \
	"UPDATE orders SET raw = raw || 'hold' || char(10) WHERE window_id = $W AND source = 'deadline-hold'"
btamper mill "no moderator's 'end' is on record" - \
	"sed -i '/^end: /d' campaign.txt && rm moderator/0002.txt"
WD=$(printf '%04d' "$(q "SELECT count(*) FROM windows WHERE id <= $W AND campaign_id = (SELECT campaign_id FROM windows WHERE id = $W)")")
btamper mill "does not hash" "does not hash" \
	"printf 'fire 1 B2\n' >>windows/$WD/orders/blue.txt"

STEP=pwc
MODOK=
hp campaign new pwc --ruleset portable-modern --seed club-pwc >/dev/null ||
	fail "campaign new pwc"
hp player add pwc blue --email cy@example.org --name Cy --key "$T/cy.pub" >/dev/null ||
	fail "player add pwc"
play pwc "cy Cy <cy@example.org>" -
audit_ok pwc "signed by their players"
grep -Eq "[1-9][0-9]* windows resolved" <(hp audit --accept-test-dice pwc) || fail "pwc: no window"

STEP="pwc tampered"
e2e_unpack "$DB"
W=$(q "SELECT l.window_id FROM dice_logs l JOIN campaigns c ON c.id = l.campaign_id WHERE c.name = 'pwc' AND l.text LIKE '%roll: 2 %' ORDER BY l.window_id LIMIT 1")
[ -n "$W" ] || fail "no pwc window with two rolls"
tamper pwc "the stored dice table" \
	"UPDATE dice SET result = result % sides + 1 WHERE window_id = $W AND seq = 1"
tamper pwc "the stored state of pwc differs" \
	"UPDATE units SET strength = strength + 1 WHERE idx = 0 AND campaign_id = (SELECT id FROM campaigns WHERE name = 'pwc')"
WD=$(printf '%04d' "$(q "SELECT count(*) FROM windows WHERE id <= $W AND campaign_id = (SELECT campaign_id FROM windows WHERE id = $W)")")
btamper pwc "does not match its server signature" "does not match its server signature" \
	"perl -0pi -e 's/^(roll: 1 (\\d+) -?\\d+ )(\\d+)/\$1.(\$3 % \$2 + 1)/me' windows/$WD/dice-log.txt"
cp -r "$T/b-pwc" "$T/b3"
perl -0pi -e 's/^(roll: 1 (\d+) -?\d+ )(\d+)/$1.($3 % $2 + 1)/me' "$T/b3/windows/$WD/dice-log.txt"
minisign -V -p "$D/server.pub" -m "$T/b3/windows/$WD/dice-log.txt" >/dev/null 2>&1 &&
	fail "minisign -V passed a tampered dice log"

STEP=daemon
# rot: the daemon signs with the key the configuration names; `hexpost key
# rotate` makes a new one, and the daemon, seeing the key file change, signs the next
# window with it. An auditor who kept only the original key follows the
# rotation statement; a key swapped by hand, without a statement, fails.
hp campaign new rot --ruleset fire-and-movement --seed club-rot >/dev/null &&
	hp player add rot blue --email ann@example.org --name Ann --key "$T/ann.pub" >/dev/null ||
	fail "campaign rot"
sed -i 's/^poll_interval = .*/poll_interval = 1/' "$CONF"
send rot blue ann "Ann <ann@example.org>"
HEXPOST_NOW=$NOW "$HEXPOST" --config "$CONF" run >"$T/dout" 2>"$T/derr" &
DPID=$!
nlogs() { q "SELECT count(*) FROM dice_logs l JOIN campaigns c ON c.id = l.campaign_id WHERE c.name = 'rot'"; }
# resolved_after N: wait until rot has more than N dice logs.
resolved_after() {
	local i
	for i in $(seq 1 100); do [ "$(nlogs)" -gt "$1" ] && return 0; sleep 0.1; done
	fail "the daemon did not resolve: $(cat "$T/derr")"
}
# sighup: the daemon rereads its configuration and key.
sighup() {
	local n i
	n=$(grep -c "reread" "$T/derr")
	kill -HUP "$DPID"
	for i in $(seq 1 100); do
		[ "$(grep -c "reread" "$T/derr")" -gt "$n" ] && return 0
		sleep 0.1
	done
	fail "no reload: $(cat "$T/derr")"
}
# log_file WINDOW-ID: that window's dice log and signature in $T/l.txt.
log_file() {
	rm -f "$T/l.txt" "$T/l.txt.minisig"
	e2e_unpack "$DB"
	q "SELECT writefile('$T/l.txt', text), writefile('$T/l.txt.minisig', signature) FROM dice_logs WHERE window_id = $1" >/dev/null
}
resolved_after 0
cp "$D/server.pub" "$T/original.pub"
OLDID=$(python3 -c 'import base64, sys
b = base64.b64decode(open(sys.argv[1]).read().split("\n")[1])
print(b[2:10][::-1].hex().upper())' "$D/server.pub")
[ ${#OLDID} -eq 16 ] || fail "old key id: '$OLDID'"

STEP="key rotate"
hp key rotate >"$T/out" 2>"$T/err" || fail "key rotate: $(cat "$T/err")"
grep -q "^key rotation 1: server key $OLDID replaced by [0-9A-F]\{16\}$" "$T/out" ||
	fail "key rotate says: $(cat "$T/out")"
grep -qF "1 notice queued" "$T/out" || fail "key rotate notices: $(cat "$T/out")"
cmp -s "$D/server.pub.1" "$T/original.pub" || fail "server.pub.1 is not the old key"
[ "$(stat -c %a "$D/server.key.1")" = 600 ] || fail "server.key.1 is not mode 600"
[ "$(stat -c %a "$D/server.key")" = 600 ] || fail "the new server.key is not mode 600"
cmp -s "$D/server.pub" "$T/original.pub" && fail "server.pub did not change"
[ ! -e "$D/server.key.new" ] && [ ! -e "$D/server.pub.new" ] || fail "new key files left over"
rm -f "$T/rot.txt" "$T/rot.txt.minisig" "$T/rot.new.minisig"
q "SELECT writefile('$T/rot.txt', statement), writefile('$T/rot.txt.minisig', signature), writefile('$T/rot.new.minisig', countersignature) FROM key_rotations WHERE seq = 1" >/dev/null
head -1 "$T/rot.txt" | grep -qx "hexpost key rotation v1" || fail "statement: $(cat "$T/rot.txt")"
minisign -V -p "$T/original.pub" -m "$T/rot.txt" >"$T/out" 2>&1 ||
	fail "minisign -V of the statement with the old key: $(cat "$T/out")"
minisign -V -p "$D/server.pub" -x "$T/rot.new.minisig" -m "$T/rot.txt" >"$T/out" 2>&1 ||
	fail "minisign -V of the countersignature with the new key: $(cat "$T/out")"
minisign -V -p "$D/server.pub" -m "$T/rot.txt" >/dev/null 2>&1 &&
	fail "the statement verifies with the new key as its main signature"
# Ann, the one active player (ford and pwc have ended, mill was ended), is
# told, with the new key and the statement.
[ "$(q "SELECT count(*) FROM outbox WHERE kind = 'notice' AND message_id LIKE '%notice.1.%'")" = 1 ] ||
	fail "notices: $(q "SELECT rcpt, message_id FROM outbox WHERE kind = 'notice'")"
q "SELECT CAST(data AS TEXT) FROM outbox WHERE message_id LIKE '%notice.1.rot.%'" >"$T/notice"
grep -q "^To: ann@example.org" "$T/notice" || fail "the notice is not to Ann"
grep -qF "$(sed -n 2p "$D/server.pub")" "$T/notice" || fail "the notice lacks the new key"
grep -qF "$(sed -n 3p "$T/rot.txt")" "$T/notice" || fail "the notice lacks the statement"

STEP="daemon after rotate"
hp audit --accept-test-dice rot --pubkey "$T/original.pub" >/dev/null 2>"$T/err" ||
	fail "audit before the daemon reloads: $(cat "$T/err")"
# The daemon sees the key file change at its next pass: no SIGHUP needed.
for i in $(seq 1 100); do
	grep -q "server key .* changed: reloaded" "$T/derr" && break
	sleep 0.1
done
grep -q "server key .* changed: reloaded" "$T/derr" ||
	fail "the daemon did not reload the rotated key: $(cat "$T/derr")"
L1=$(nlogs)
[ "$(waiting rot)" = blue ] || fail "rot does not wait for blue"
send rot blue ann "Ann <ann@example.org>"
resolved_after "$L1"
FIRST=$(q "SELECT min(l.window_id) FROM dice_logs l JOIN campaigns c ON c.id = l.campaign_id WHERE c.name = 'rot'")
LAST=$(q "SELECT max(l.window_id) FROM dice_logs l JOIN campaigns c ON c.id = l.campaign_id WHERE c.name = 'rot'")
log_file "$FIRST"
minisign -V -p "$T/original.pub" -m "$T/l.txt" >/dev/null 2>&1 ||
	fail "the first window's dice log is not signed by the original key"
log_file "$LAST"
minisign -V -p "$D/server.pub" -m "$T/l.txt" >/dev/null 2>&1 ||
	fail "the window after the rotation is not signed by the new key"
[ "$(q "SELECT count(*) FROM dice_logs WHERE signature IS NULL")" = 0 ] ||
	fail "an unsigned dice log"

STEP="audit across the rotation"
# The original key alone, the new key (the configuration's), the bundle.
hp audit --accept-test-dice rot --pubkey "$T/original.pub" >"$T/out" 2>"$T/err" ||
	fail "audit of rot with the original key: $(cat "$T/out" "$T/err")"
grep -q "1 key rotation statements verified .*signed by 2 server keys" "$T/out" ||
	fail "audit of rot: $(cat "$T/out")"
hp audit --accept-test-dice rot >"$T/out" 2>"$T/err" ||
	fail "audit of rot with the new key: $(cat "$T/out" "$T/err")"
rm -rf "$T/b-rot"
hp audit export rot "$T/b-rot" >/dev/null 2>"$T/err" || fail "export rot: $(cat "$T/err")"
cmp -s "$T/b-rot/server.pub" "$D/server.pub" || fail "the bundle's server.pub is not the new key"
for trust in "" "--pubkey $T/original.pub"; do
	"$HEXPOST" audit --accept-test-dice --bundle "$T/b-rot" $trust >"$T/out" 2>"$T/err" ||
		fail "audit --bundle rot $trust: $(cat "$T/err")"
	python3 "$PYAUDIT" --accept-test-dice $trust "$T/b-rot" >"$T/out" 2>"$T/err" ||
		fail "hexpost-audit.py rot $trust: $(cat "$T/err")"
	grep -q "^hexpost-audit: OK: .*, 1 key rotation statements followed" "$T/out" ||
		fail "$(cat "$T/out")"
done
minisign -V -p "$T/b-rot/server-keys/$OLDID.pub" -m "$T/b-rot/rotations/0001.txt" >/dev/null 2>&1 ||
	fail "minisign -V of the bundle's statement"
btamper rot "key rotation statement 1 is missing" "key rotation statement 1 is missing" \
	"mv rotations/0001.txt rotations/0002.txt"
btamper rot "which no key rotation statement links to it" "which no key rotation statement links to it" \
	"rm rotations/0001.txt*"
btamper rot "rotation statement 1 is not signed by the old key" "rotation statement 1 is not signed by the old key" \
	"cp rotations/0001.txt.new.minisig rotations/0001.txt.minisig"

STEP="key swapped by hand"
# A key put in place without `hexpost key rotate`: no statement names it,
# so no audit follows it, and rotate refuses to start from it.
minisign -G -W -p "$D/server2.pub" -s "$D/server2.key" >/dev/null 2>&1 || fail "minisign -G"
sed -i -e 's/^server_key = .*/server_key = server2.key/' \
	-e 's/^server_pub = .*/server_pub = server2.pub/' "$CONF"
sighup
L1=$(nlogs)
[ "$(waiting rot)" = blue ] || fail "rot does not wait for blue"
send rot blue ann "Ann <ann@example.org>"
resolved_after "$L1"
kill -TERM "$DPID"
wait "$DPID"
DPID=
LAST=$(q "SELECT max(l.window_id) FROM dice_logs l JOIN campaigns c ON c.id = l.campaign_id WHERE c.name = 'rot'")
log_file "$LAST"
minisign -V -p "$D/server2.pub" -m "$T/l.txt" >/dev/null 2>&1 ||
	fail "the window after the swap is not signed by server2"
for trust in "$T/original.pub" "$D/server.pub" "$D/server2.pub"; do
	"$HEXPOST" --config "$CONF" audit --accept-test-dice rot --pubkey "$trust" >"$T/out" 2>"$T/err"
	[ $? -eq 65 ] && grep -q "does not match its server signature: it is signed by server key" "$T/err" ||
		fail "audit of rot trusting $trust: $(cat "$T/out" "$T/err")"
done
grep -q "which is not the trusted key" "$T/err" || fail "$(cat "$T/err")"
rm -rf "$T/b-rot"
hp audit export rot "$T/b-rot" --pubkey "$T/original.pub" >/dev/null 2>&1 || fail "export rot"
python3 "$PYAUDIT" --accept-test-dice "$T/b-rot" >"$T/out" 2>"$T/err"
[ $? -eq 1 ] && grep -q "which no key rotation statement links to it" "$T/err" ||
	fail "hexpost-audit.py after the swap: $(cat "$T/out" "$T/err")"
hp key rotate >"$T/out" 2>"$T/err" && fail "key rotate from a key swapped by hand"
grep -qF "changed without 'hexpost key rotate'" "$T/err" || fail "key rotate: $(cat "$T/err")"

echo "audit_club: ok"
