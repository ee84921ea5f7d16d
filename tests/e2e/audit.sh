#!/bin/bash
# audit: a whole fire-and-movement campaign played by signed mail (keys and
# signatures made by the real minisign CLI, mail built by
# contrib/hexpost-player), with real random seeds; then:
#  - the welcome mail carries the first window's commitment, every report
#    mail the server's public key;
#  - `hexpost audit` passes; the exported bundle passes `hexpost audit
#    --bundle`, the stdlib-only Python verifier (contrib/hexpost-audit.py)
#    and, for every window, the stock `minisign -V -p server.pub -m
#    dice-log.txt`;
#  - tampering, each on a fresh copy of the database or bundle, is caught
#    with a clear message: one die (in the dice table, and in the log
#    re-signed with the server key by the minisign CLI), one order byte,
#    one seed, a dropped log entry, two entries reordered, swapped
#    signatures (dice logs, order files), an event, a report, the state,
#    a player's signed file of an earlier window passed off as a later
#    window's (also with the logs re-signed by the server key);
#  - `hexpost key generate` writes a 0600 key and refuses to overwrite it;
#    a key file others can read is refused.
# Usage: bash audit.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

HEXPOST=${1:?usage: audit.sh /path/to/hexpost}
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-reports.sh"
PLAYER=$SRC/contrib/hexpost-player
PYAUDIT=$SRC/contrib/hexpost-audit.py
T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-audit.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
unset HEXPOST_TEMPLATES HEXPOST_DB HEXPOST_CONFIG

CASE=
fail() {
	echo "audit: FAIL${CASE:+ [$CASE]}: $*" >&2
	exit 1
}

for tool in minisign sqlite3 python3; do
	command -v "$tool" >/dev/null || fail "$tool is not installed"
done

D=$T/data
CONF=$D/hexpost.conf
DB=$D/hexpost.db
hp() {
	"$HEXPOST" --config "$CONF" "$@"
}

"$HEXPOST" init --datadir "$D" >"$T/out" 2>"$T/err" ||
	fail "init --datadir: $(cat "$T/err")"
[ "$(stat -c %a "$D/server.key")" = 600 ] || fail "server.key is not 0600"

for who in blue red; do
	minisign -G -W -p "$T/$who.pub" -s "$T/$who.key" >/dev/null 2>&1 ||
		fail "minisign -G $who"
done

hp campaign new hill --ruleset fire-and-movement >/dev/null ||
	fail "campaign new"
hp player add hill blue --email blue@example.org --name Bea \
	--key "$T/blue.pub" >/dev/null || fail "player add blue"
hp player add hill red --email red@example.org --name Rex \
	--key "$T/red.pub" >/dev/null || fail "player add red"

# The welcome mails carry the first window's commitment.
C1=$(sqlite3 "$DB" "SELECT hex(commitment) FROM windows ORDER BY id LIMIT 1" |
	tr 'A-F' 'a-f')
[ ${#C1} -eq 64 ] || fail "no commitment for the first window"
hp run --once >/dev/null 2>"$T/err" || fail "run: $(cat "$T/err")"
grep -l "^X-Hexpost-Kind: welcome" "$D/outbox/new/"* >"$T/welcomes" ||
	fail "no welcome mail"
[ "$(wc -l <"$T/welcomes")" -eq 2 ] || fail "not two welcome mails"
# ... and the signed seed chain statement, whose head the first seed must
# hash to; the stock minisign verifies it.
sqlite3 "$DB" "SELECT writefile('$T/chain.txt', chain_statement) FROM campaigns" >/dev/null
sed -n 6p "$T/chain.txt" | grep -q '^end$' || fail "chain statement: $(cat "$T/chain.txt")"
HEAD=$(sed -n 's/^head: //p' "$T/chain.txt")
[ ${#HEAD} -eq 64 ] || fail "no chain head"
while read -r f; do
	tr -d '\r' <"$f" | sed ':a;/=$/{N;s/=\n//;ba}' | grep -q "$C1" ||
		fail "welcome $f lacks the commitment $C1"
	tr -d '\r' <"$f" | sed ':a;/=$/{N;s/=\n//;ba}' | grep -q "^head: $HEAD$" ||
		fail "welcome $f lacks the seed chain head $HEAD"
	tr -d '\r' <"$f" | sed ':a;/=$/{N;s/=\n//;ba}' |
		grep -qF "trusted comment: hexpost seed chain: campaign hill, 65536 seeds, random dice" ||
		fail "welcome $f lacks the chain statement's signature"
done <"$T/welcomes"

# Play: whoever the open window waits for sends the built-in opponent's
# suggestion, signed, by mail.
for i in $(seq 1 60); do
	hp campaign show hill >"$T/show" || fail "campaign show"
	grep -q "status   finished" "$T/show" && break
	side=$(sed -n 's/.*waiting for: \([a-z]*\).*/\1/p' "$T/show")
	[ -n "$side" ] || fail "cannot tell who the window waits for"
	hp orders suggest hill --side "$side" >"$T/orders.txt" ||
		fail "orders suggest $side"
	bash "$PLAYER" -t hexpost@localhost -f "$side@example.org" \
		-k "$T/$side.key" --maildir "$D/inbox" "$T/orders.txt" \
		>/dev/null || fail "hexpost-player $side"
	hp run --once >"$T/out" 2>"$T/err" || fail "run: $(cat "$T/err")"
	grep -q "1 accepted" "$T/out" || fail "orders of $side not accepted: $(cat "$T/out")"
done
grep -q "status   finished" "$T/show" || fail "the game did not finish"
NW=$(sqlite3 "$DB" "SELECT count(*) FROM dice_logs")
[ "$NW" -ge 4 ] || fail "only $NW dice logs"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM dice_logs WHERE signature IS NULL")" \
    = 0 ] || fail "unsigned dice logs"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM orders WHERE source = 'mail' AND
    hash NOT IN (SELECT hash FROM order_signatures)")" = 0 ] ||
	fail "an order file taken in by mail has no stored signature"

# Report mails carry the server's public key.
PUBLINE=$(sed -n 2p "$D/server.pub")
grep -l "^X-Hexpost-Kind: report" "$D/outbox/new/"* >"$T/reports" ||
	fail "no report mails"
while read -r f; do
	tr -d '\r' <"$f" | sed ':a;/=$/{N;s/=\n//;ba}' | grep -qF "$PUBLINE" ||
		fail "report $f lacks the server public key"
done <"$T/reports"

CASE=clean
hp audit hill >"$T/out" 2>"$T/err" || fail "audit: $(cat "$T/err")"
grep -q "audit of hill: OK" "$T/out" || fail "no OK: $(cat "$T/out")"
grep -q "dice logs: hash chain intact" "$T/out" || fail "$(cat "$T/out")"
grep -Eq "[1-9][0-9]* signed by their players" "$T/out" ||
	fail "no player signature checked: $(cat "$T/out")"
grep -q "seed chain statement signed when the campaign was created; $NW revealed seeds linked" "$T/out" ||
	fail "no seed chain: $(cat "$T/out")"
grep -q "NOTE: .* before any player's signed file" "$T/out" &&
	fail "a game played by signed mail from its first window has windows without player input: $(cat "$T/out")"

CASE=export
B=$T/bundle
hp audit export hill "$B" >/dev/null 2>"$T/err" || fail "export: $(cat "$T/err")"
hp audit export hill "$B" >/dev/null 2>&1 && fail "export over a bundle"
"$HEXPOST" audit --bundle "$B" >"$T/out" 2>"$T/err" ||
	fail "audit --bundle: $(cat "$T/err")"
python3 "$PYAUDIT" "$B" >"$T/out" 2>"$T/err" ||
	fail "hexpost-audit.py: $(cat "$T/err")"
grep -q "hexpost-audit: OK: $NW windows" "$T/out" || fail "$(cat "$T/out")"
cmp -s "$B/chain.txt" "$T/chain.txt" || fail "the bundle's chain.txt differs"
minisign -V -p "$D/server.pub" -m "$B/chain.txt" >"$T/out" 2>&1 ||
	fail "minisign -V chain.txt: $(cat "$T/out")"
for w in "$B"/windows/*/; do
	[ -f "$w/dice-log.txt" ] || continue
	minisign -V -p "$D/server.pub" -m "$w/dice-log.txt" >"$T/out" 2>&1 ||
		fail "minisign -V $w: $(cat "$T/out")"
	grep -q "Trusted comment: hexpost dice log: campaign hill" "$T/out" ||
		fail "trusted comment: $(cat "$T/out")"
done

# --- tampering with the database -------------------------------------------

# Dice logs and order files as plain text, to edit them in SQL.
e2e_unpack "$DB"
# A window with at least two rolls and a player's order file, and another.
W=$(sqlite3 "$DB" "SELECT l.window_id FROM dice_logs l JOIN orders o ON
    o.window_id = l.window_id AND o.source = 'mail' AND o.current = 1 WHERE
    l.text LIKE '%roll: 2 %' ORDER BY l.window_id LIMIT 1")
[ -n "$W" ] || fail "no window with two rolls and a player's orders"
W2=$(sqlite3 "$DB" "SELECT window_id FROM dice_logs WHERE window_id != $W
    ORDER BY window_id LIMIT 1")

# tamper NAME PHRASE SQL: on a copy of the database, SQL makes the audit
# fail (exit 65) with PHRASE in its message.
tamper() {
	CASE=$1
	local phrase=$2
	rm -f "$T/t.db"
	sqlite3 "$DB" ".backup '$T/t.db'" || fail "backup"
	(cd "$T" && sqlite3 "$T/t.db" "$3") || fail "sql"
	"$HEXPOST" --db "$T/t.db" audit hill --pubkey "$D/server.pub" \
		>"$T/out" 2>"$T/err"
	local rc=$?
	[ "$rc" -eq 65 ] || fail "audit exited $rc, want 65: $(cat "$T/out" "$T/err")"
	grep -qF "audit FAILED" "$T/err" && grep -qF -- "$phrase" "$T/err" ||
		fail "expected '$phrase' in: $(cat "$T/err")"
}

# resign PERL: rewrite window W's dice log with perl -0pi -e PERL, sign it
# again with the server key using the minisign CLI, and put both back:
# what a dishonest server could do. Leaves the SQL to run in $RESIGN.
resign() {
	rm -f "$T/log.txt" "$T/log.txt.minisig"
	sqlite3 "$DB" "SELECT writefile('$T/log.txt', text) FROM dice_logs
	    WHERE window_id = $W" >/dev/null || fail "writefile"
	local tc
	tc=$(sqlite3 "$DB" "SELECT signature FROM dice_logs WHERE window_id = $W" |
		sed -n 's/^trusted comment: //p')
	perl -0pi -e "$1" "$T/log.txt" || fail "perl"
	tc=$(printf '%s' "$tc" | sed "s/, [0-9]* rolls\$/, $(sed -n \
		's/^rolls: //p' "$T/log.txt") rolls/")
	minisign -S -s "$D/server.key" -m "$T/log.txt" -t "$tc" >/dev/null ||
		fail "minisign -S with the server key"
	RESIGN="UPDATE dice_logs SET text = CAST(readfile('log.txt') AS TEXT),
	    signature = CAST(readfile('log.txt.minisig') AS TEXT) WHERE
	    window_id = $W"
}

tamper "die in the dice table" "the stored dice table" \
	"UPDATE dice SET result = result % sides + 1 WHERE window_id = $W AND seq = 1"
resign 's/^(roll: 1 (\d+) -?\d+ )(\d+)/$1.($3 % $2 + 1)/me'
tamper "die in the re-signed log" "but the dice stream gives" "$RESIGN"
tamper "order byte" "does not hash to the hash recorded" \
	"UPDATE orders SET raw = raw || ' ' WHERE id = (SELECT id FROM orders
	 WHERE window_id = $W AND source = 'mail' AND current = 1)"
tamper "seed" "the revealed seed is not seed" \
	"UPDATE windows SET seed = randomblob(32) WHERE id = $W"
resign 's/^seed: (.)/"seed: ".($1 eq "0" ? "1" : "0")/me'
NEWSEED=$(sed -n 's/^seed: //p' "$T/log.txt")
tamper "seed in the re-signed log and the window" \
	"the revealed seed is not seed" \
	"$RESIGN; UPDATE windows SET seed = X'$NEWSEED' WHERE id = $W"
resign 's/^roll: 1 .*\n//m; s/^rolls: (\d+)/"rolls: ".($1 - 1)/me'
tamper "log entry dropped" "is numbered #2" "$RESIGN"
tamper "dice table entry dropped" "the stored dice table" \
	"DELETE FROM dice WHERE window_id = $W AND seq = 1"
resign 's/^(roll: 1 .*\n)(roll: 2 .*\n)/$2$1/m'
tamper "two log entries reordered" "is numbered #2" "$RESIGN"
tamper "dice log signatures swapped" "does not match its server signature" \
	"UPDATE dice_logs SET signature = (SELECT signature FROM dice_logs AS o
	 WHERE o.window_id = CASE dice_logs.window_id WHEN $W THEN $W2 ELSE $W
	 END) WHERE window_id IN ($W, $W2)"
tamper "order signatures swapped" "does not verify with the player's key" \
	"UPDATE order_signatures SET signature = (SELECT signature FROM
	 order_signatures AS o WHERE o.rowid = CASE order_signatures.rowid WHEN
	 1 THEN 3 ELSE 1 END) WHERE rowid IN (1, 3)"
tamper "log edited without a signature" "does not match its server signature" \
	"UPDATE dice_logs SET text = replace(text, 'roll: 1 6', 'roll: 1 8')
	 WHERE window_id = $W"
tamper "event" "event 1 differs" \
	"UPDATE events SET text = 'nothing happened' WHERE window_id = $W AND seq = 1"
tamper "report" "the report for the moderator differs" \
	"UPDATE reports SET body = body || 'x' WHERE window_id = $W AND side_idx = -1"
tamper "state" "the stored state of hill differs" \
	"UPDATE units SET strength = strength + 1 WHERE idx = 0"
tamper "commitment" "the next window's commitment differs" \
	"UPDATE windows SET commitment = randomblob(32) WHERE id = $W2"

# --- tampering with the bundle ----------------------------------------------

# btamper NAME PHRASE CMD: on a copy of the bundle, CMD (run in it) makes
# both `hexpost audit --bundle` and the Python verifier fail with PHRASE.
btamper() {
	CASE="bundle: $1"
	rm -rf "$T/b2"
	cp -r "$B" "$T/b2"
	(cd "$T/b2" && eval "$3") || fail "tamper command"
	"$HEXPOST" audit --bundle "$T/b2" >"$T/out" 2>"$T/err"
	[ $? -eq 65 ] && grep -qF -- "$2" "$T/err" ||
		fail "hexpost audit --bundle: $(cat "$T/out" "$T/err")"
	python3 "$PYAUDIT" "$T/b2" >"$T/out" 2>"$T/err"
	[ $? -eq 1 ] && grep -q "FAILED" "$T/err" ||
		fail "hexpost-audit.py: $(cat "$T/out" "$T/err")"
}
WD=$(printf '%04d' "$(sqlite3 "$DB" "SELECT count(*) FROM windows WHERE id <= $W")")
WD2=$(printf '%04d' "$(sqlite3 "$DB" "SELECT count(*) FROM windows WHERE id <= $W2")")
btamper "order byte" "order file" \
	"f=\$(ls windows/$WD/orders/*.txt | head -1); printf ' ' >>\"\$f\""
btamper "log signatures swapped" "does not match its server signature" \
	"cp windows/$WD2/dice-log.txt.minisig windows/$WD/dice-log.txt.minisig"
btamper "seed" "seed" \
	"sed -i 's/^seed: 0/seed: X/;s/^seed: [1-9a-f]/seed: 0/;s/^seed: X/seed: 1/' windows/$WD/window.txt"
btamper "window dropped" "next window's commitment differs" \
	"rm -r windows/0002; n=\$(ls windows | wc -l); i=1; for d in windows/*; do mv \$d windows/tmp\$i; i=\$((i+1)); done; i=1; while [ \$i -le \$n ]; do mv windows/tmp\$i windows/\$(printf %04d \$i); i=\$((i+1)); done; sed -i \"s/^windows: .*/windows: \$n/\" campaign.txt"

# An order file a player signed for an earlier window, passed off as the
# same side's file of a later one: copied with its genuine signature, and
# then also by a server holding its key, which re-records the hash in the
# later log, re-derives the dice key and the rolls, and re-signs that log
# and every later one (so hashes, chain and signatures all hold). Only the
# file's header gives it away.
OLDW= NEWW= SIDE=
for side in blue red; do
	set -- $(cd "$B/windows" && ls -d */orders/$side.txt.minisig 2>/dev/null |
		cut -d/ -f1 | tail -2)
	[ $# -eq 2 ] && { OLDW=$1 NEWW=$2 SIDE=$side; break; }
done
[ -n "$SIDE" ] || fail "no side with signed files in two windows"
btamper "earlier signed order file copied" "order file" \
	"cp windows/$OLDW/orders/$SIDE.txt windows/$OLDW/orders/$SIDE.txt.minisig windows/$NEWW/orders/"
btamper "earlier signed order file, log re-signed" \
	"not this window: a file sent for another window was used in this one" \
	"cp windows/$OLDW/orders/$SIDE.txt windows/$OLDW/orders/$SIDE.txt.minisig windows/$NEWW/orders/ &&
	 python3 - '$PYAUDIT' '$NEWW' '$SIDE' '$D/server.key' <<'PY'
import importlib.util, os, subprocess, sys
spec = importlib.util.spec_from_file_location('a', sys.argv[1])
a = importlib.util.module_from_spec(spec)
spec.loader.exec_module(a)
first, side, key = int(sys.argv[2]), sys.argv[3], sys.argv[4]
prev = None
for n in sorted(int(d) for d in os.listdir('windows')):
    path = 'windows/%04d/dice-log.txt' % n
    if n < first or not os.path.exists(path):
        continue
    log = a.parse_log(a.read(path))
    if n == first:
        data = a.read('windows/%04d/orders/%s.txt' % (n, side), 'rb')
        log['orders'] = [(sd, src, a.b2(data, 32) if sd == side else h)
                         for sd, src, h in log['orders']]
        log['key'] = a.derive_key(log['seed'], log['campaign'], log['turn'],
                                  log['window'], [o[2] for o in log['orders']])
        d = a.Dice(log['key'])
        log['rolls'] = [(q, s, t, d.roll(s), pp)
                        for q, s, t, r, pp in log['rolls']]
    else:
        log['previous'] = prev
    text = a.format_log(log)
    with open(path, 'w') as f:
        f.write(text)
    subprocess.run(['minisign', '-S', '-s', key, '-m', path, '-t',
                    a.log_comment(log)], check=True, stdout=subprocess.DEVNULL)
    prev = a.b2(text.encode(), 32)
PY"

# --- the server key -----------------------------------------------------------

CASE="key generate"
K=$T/k
mkdir -p "$K"
printf 'database = %s/db\nserver_key = %s/s.key\nserver_pub = %s/s.pub\n' \
	"$K" "$K" "$K" >"$K/hexpost.conf"
"$HEXPOST" --config "$K/hexpost.conf" key generate >/dev/null 2>"$T/err" ||
	fail "$(cat "$T/err")"
[ "$(stat -c %a "$K/s.key")" = 600 ] || fail "s.key is not 0600"
echo hello >"$T/msg"
minisign -S -s "$K/s.key" -m "$T/msg" >/dev/null 2>&1 &&
	minisign -V -p "$K/s.pub" -m "$T/msg" >/dev/null 2>&1 ||
	fail "the minisign CLI cannot use the generated key"
"$HEXPOST" --config "$K/hexpost.conf" key generate >/dev/null 2>"$T/err" &&
	fail "key generate overwrote a key"
grep -q "already exists" "$T/err" || fail "$(cat "$T/err")"
CASE="readable key"
chmod 644 "$D/server.key"
hp run --once >"$T/out" 2>"$T/err" && fail "run with a 0644 server key"
grep -q "lets others read it" "$T/err" || fail "$(cat "$T/err")"
chmod 600 "$D/server.key"

echo "audit: ok ($NW windows)"
