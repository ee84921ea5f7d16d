#!/bin/bash
# storage: what the database keeps and for how long (issue 17). Reports are
# stored compressed and come back unchanged through 'report --turn', the
# moderator's 'resend' and the audit (which still finds an edited one);
# 'hexpost storage --compact' applies retention_days: delivered rows, the
# inbox's seen cur/ files and the outbox Maildir's files older than that go,
# deferred (unseen) inbox mail, queued mail, the newest outbox row and
# everything the audit needs stay; sent copies are compressed after a day
# and a bounce still finds the message it names. 'hexpost storage' says
# what is kept.
# Usage: bash storage.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
KEEP=${KEEP:-}
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
. "$SRC/tests/e2e/lib-reports.sh"
e2e_start storage "${1:?usage: storage.sh /path/to/hexpost}" minisign sqlite3
e2e_datadir
e2e_keys ann
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
q() { sqlite3 "$DB" "$1"; }
cat >>"$CONF" <<EOF
from = hexpost@club.example
domain = club.example
EOF

STEP="a game"
hp campaign new hill --ruleset fire-and-movement --seed storage || fail "campaign"
hp player add hill blue --email ann@example.org --name Ann --key "$T/ann.pub" --moderator ||
	fail "player: $(cat "$T/err")"
for turn in 1 2 3; do
	hp orders template hill --side blue && head -n 4 "$T/out" >"$W/blue.txt" || fail "template"
	hp orders suggest hill --side blue && sed '1,4d' "$T/out" >>"$W/blue.txt" || fail "suggest"
	minisign -S -s "$T/ann.key" -m "$W/blue.txt" >/dev/null 2>&1 || fail "minisign -S"
	hp orders submit hill "$W/blue.txt" --sig "$W/blue.txt.minisig" ||
		fail "submit: $(cat "$T/err")"
	hp run --once || fail "run: $(cat "$T/err")"
	grep -q "^resolved" "$T/out" || fail "turn $turn not resolved: $(cat "$T/out")"
done

STEP="reports compressed"
# The first report of each view alone, the later ones against earlier ones.
[ "$(q "SELECT count(*) FROM reports WHERE typeof(body) = 'blob' AND substr(body, 1, 4) = CAST(x'0048505a' AS BLOB)")" -ge 1 ] ||
	fail "reports not stored compressed: $(q "SELECT typeof(body), length(body) FROM reports")"
[ "$(q "SELECT count(*) FROM reports WHERE typeof(body) = 'blob' AND substr(body, 1, 4) = CAST(x'00485045' AS BLOB)")" -ge 3 ] ||
	fail "reports not stored against earlier ones: $(q "SELECT typeof(body), length(body) FROM reports")"
[ "$(q "SELECT count(*) FROM reports WHERE substr(body, 1, 3) <> CAST(x'004850' AS BLOB)")" = 0 ] ||
	fail "reports stored plain: $(q "SELECT typeof(body), length(body) FROM reports")"
# Ann moderates: her report is the moderator's view.
hp report hill --turn 2 || fail "report --turn: $(cat "$T/err")"
cp "$T/out" "$W/report2"
grep -q "^Turn 2, window 'blue' resolved. Report for the moderator" "$W/report2" ||
	fail "report --turn 2: $(head "$W/report2")"
# The report as mailed then (the outbox Maildir's copy) holds the same text.
f=$(ls "$D"/outbox/new/hexpost.report.hill.t2.w1.*)
[ -f "$f" ] || fail "no report mail of turn 2"
decoded "$f" >"$W/mail2"
n=0
while IFS= read -r line; do
	[ -n "$line" ] || continue
	grep -qF -- "$line" "$W/mail2" || fail "report --turn 2 line not in the mail sent: $line"
	n=$((n + 1))
done < <(head -n 15 "$W/report2")
[ "$n" -ge 5 ] || fail "too few report lines compared ($n)"
hp audit hill --accept-test-dice || fail "audit: $(cat "$T/out" "$T/err")"

cp "$(ls "$D"/outbox/new/hexpost.report.hill.t3.w2.*)" "$W/mail3" || fail "no report of turn 3 window 2"

STEP="storage"
hp storage || fail "storage: $(cat "$T/err")"
grep -q "^  reports: [0-9]* kept ([0-9]* compressed)" "$T/out" || fail "storage: $(cat "$T/out")"
grep -q "^  resolved windows: [1-9][0-9]* (0 packed), [0-9.]* KB a window" "$T/out" || fail "storage: $(cat "$T/out")"
grep -q "^retention: 90 days" "$T/out" || fail "default retention: $(cat "$T/out")"
grep -q "^inbox: .*/inbox/cur, [0-9]* files" "$T/out" || fail "storage inbox: $(cat "$T/out")"

STEP="retention"
echo "retention_days = 30" >>"$CONF"
SENT=$(q "SELECT count(*) FROM outbox WHERE state = 'sent'")
[ "$SENT" -ge 4 ] || fail "want 4 or more sent rows, have $SENT"
MAXID=$(q "SELECT max(id) FROM outbox")
KID=$(q "SELECT message_id FROM outbox WHERE kind = 'report' ORDER BY id DESC LIMIT 1")
# Everything sent 40 days ago but the last report (sent 2 days ago: kept,
# its copy compacted to its headers and its body's hash: the report itself
# is in reports); one message queued (kept whatever its age).
q "UPDATE outbox SET sent_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-40 days')" || fail "sqlite3"
q "UPDATE outbox SET sent_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-2 days') WHERE message_id = '$KID'"
q "INSERT INTO outbox(message_id, kind, rcpt, envelope_from, data, next_attempt, created_at)
   VALUES ('later@club.example', 'notice', 'ann@example.org', '', CAST('Subject: later' || char(10) || char(10) || 'x' AS BLOB), 4000000000, '2000-01-01T00:00:00Z')"
# Mail taken in long ago (flagged seen).
for i in 1 2 3; do
	printf 'From: ann@example.org\nMessage-ID: <old%s@example.org>\n\nold\n' "$i" \
		>"$D/inbox/cur/$i.old.host:2,S"
done
for f in "$D"/inbox/cur/* "$D"/outbox/new/*; do touch -d "40 days ago" "$f"; done
NIN=$(ls "$D/inbox/cur" | wc -l)
[ "$NIN" -ge 3 ] || fail "want 3 or more inbox files, have $NIN"
# Mail intake deferred (not flagged seen): kept however old.
printf 'From: x@example.org\n\nlater\n' >"$D/inbox/cur/1.deferred.host:2,"
touch -d "40 days ago" "$D/inbox/cur/1.deferred.host:2,"
touch "$D/outbox/new/fresh.host"
# Windows resolved a day before are packed (issue 17, migration 024: a
# window's events, dice rows and signed dice log in one compressed row);
# the last window is left as resolved now. What is read from them (the
# audit, its bundle, report --turn, export, the web archive) stays the
# same, and a crash while packing leaves every row as it was.
NRES=$(q "SELECT count(*) FROM windows WHERE state = 'resolved'")
LASTW=$(q "SELECT max(id) FROM windows WHERE state = 'resolved'")
[ "$NRES" -ge 3 ] || fail "want 3 or more resolved windows, have $NRES"
q "UPDATE windows SET resolved_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-2 days') WHERE state = 'resolved' AND id <> $LASTW"
views() {
	rm -rf "$W/$1"
	mkdir -p "$W/$1"
	hp audit hill --accept-test-dice || fail "audit ($1): $(cat "$T/out" "$T/err")"
	cp "$T/out" "$W/$1/audit.txt"
	hp audit export hill "$W/$1/bundle" || fail "audit export ($1): $(cat "$T/err")"
	hp export hill --side blue --json || fail "export ($1): $(cat "$T/err")"
	cp "$T/out" "$W/$1/export.json"
	hp web "$W/$1/site" || fail "web ($1): $(cat "$T/err")"
	for t in 1 2 3; do
		hp report hill --turn $t || fail "report --turn $t ($1): $(cat "$T/err")"
		cp "$T/out" "$W/$1/report$t"
	done
}
views unpacked
e2e_unpack "$DB"
q "SELECT * FROM events ORDER BY window_id, seq; SELECT * FROM dice ORDER BY window_id, seq; SELECT window_id, text, signature, pubkey FROM dice_logs ORDER BY window_id" >"$W/rows"
grep -q "roll" "$W/rows" || fail "no rows: $(head "$W/rows")"
HEXPOST_TEST_CRASH_IN_PACK=1 hp storage --compact && fail "the crash in packing did not happen"
[ "$(q "SELECT count(*) FROM window_packs")" = 0 ] || fail "a crashed packing left packs"
q "SELECT * FROM events ORDER BY window_id, seq; SELECT * FROM dice ORDER BY window_id, seq; SELECT window_id, text, signature, pubkey FROM dice_logs ORDER BY window_id" | cmp -s - "$W/rows" ||
	fail "a crashed packing changed the rows"
hp storage --compact || fail "compact: $(cat "$T/err")"
grep -q "^compacted: 1 sent copies compressed, $((NRES - 1)) windows packed, $((SENT - 1)) outbox rows removed, $NIN inbox and [1-9][0-9]* outbox files removed" "$T/out" ||
	fail "compact said: $(head -n 2 "$T/out")"
[ "$(q "SELECT count(*) FROM outbox WHERE state = 'sent'")" = 1 ] || fail "sent rows left: $(q "SELECT message_id, sent_at FROM outbox")"
[ "$(q "SELECT count(*) FROM outbox WHERE message_id = 'later@club.example' AND state = 'queued'")" = 1 ] ||
	fail "queued mail removed"
[ "$(q "SELECT max(id) FROM outbox")" -ge "$MAXID" ] || fail "the newest row went"
[ "$(q "SELECT substr(data, 1, 4) = CAST(x'00485053' AS BLOB) FROM outbox WHERE message_id = '$KID'")" = 1 ] ||
	fail "the copy sent 2 days ago is not compacted"
grep -q "^  outbox rows: 1 queued, 1 sent (1 compressed)" "$T/out" || fail "storage after compact: $(cat "$T/out")"
grep -q "^  resolved windows: $NRES ($((NRES - 1)) packed)" "$T/out" || fail "storage after compact, windows: $(cat "$T/out")"
[ -e "$D/inbox/cur/1.deferred.host:2," ] || fail "deferred inbox mail removed"
[ "$(ls "$D/inbox/cur" | wc -l)" = 1 ] || fail "seen inbox mail kept: $(ls "$D/inbox/cur")"
[ -e "$D/outbox/new/fresh.host" ] || fail "a fresh outbox file removed"
[ "$(ls "$D/outbox/new" | wc -l)" = 1 ] || fail "old outbox files kept: $(ls "$D/outbox/new")"
grep -q "^retention: 30 days" "$T/out" || fail "retention line: $(tail -n 2 "$T/out")"

STEP="after compaction"
[ "$(q "SELECT count(*) FROM window_packs")" = $((NRES - 1)) ] ||
	fail "packed windows: $(q "SELECT count(*) FROM window_packs"), want $((NRES - 1))"
[ "$(q "SELECT (SELECT count(*) FROM events WHERE window_id <> $LASTW) + (SELECT count(*) FROM dice WHERE window_id <> $LASTW)")" = 0 ] ||
	fail "packed windows kept their rows"
[ "$(q "SELECT count(*) FROM events WHERE window_id = $LASTW")" -ge 1 ] || fail "the last window was packed"
[ "$(q "SELECT count(*) FROM dice_logs WHERE text = x'0048504B'")" = $((NRES - 1)) ] ||
	fail "dice logs not packed: $(q "SELECT window_id, length(text) FROM dice_logs")"
views packed
for f in audit.txt export.json report1 report2 report3; do
	cmp -s "$W/unpacked/$f" "$W/packed/$f" || fail "$f changed by packing: $(diff "$W/unpacked/$f" "$W/packed/$f" | head)"
done
diff -r "$W/unpacked/bundle" "$W/packed/bundle" >/dev/null || fail "the audit bundle changed by packing: $(diff -r "$W/unpacked/bundle" "$W/packed/bundle" | head)"
diff -r "$W/unpacked/site" "$W/packed/site" >/dev/null || fail "the web archive changed by packing: $(diff -r "$W/unpacked/site" "$W/packed/site" | head)"
# The audit reads the packed events: one changed inside a pack is found.
PW=$(q "SELECT min(window_id) FROM window_packs WHERE substr(data, 9, 8) <> x'0000000000000000'")
q ".backup '$T/before-edit.db'" || fail "backup"
python3 - "$DB" "$PW" <<'PY' || fail "editing a pack"
import sqlite3, sys, zlib
db = sqlite3.connect(sys.argv[1])
wid = int(sys.argv[2])
def raw(w):
    b = db.execute("SELECT data FROM window_packs WHERE window_id = ?", (w,)).fetchone()[0]
    did = int.from_bytes(b[8:16], "big")
    d = zlib.decompressobj(zdict=raw(did)[2]) if did else zlib.decompressobj()
    return b, did, d.decompress(b[16:]) + d.flush()
b, did, r = raw(wid)
lines = r.split(b"\n")
for i, l in enumerate(lines):
    if l.startswith(b"E "):
        # The event's text ends its next line: its last byte changed.
        t = lines[i + 1]
        lines[i + 1] = t[:-1] + (b"!" if t[-1:] != b"!" else b"?")
        break
else:
    sys.exit("no event in the pack")
r = b"\n".join(lines)
c = zlib.compressobj(9, zlib.DEFLATED, 15, 9, zdict=raw(did)[2])
z = c.compress(r) + c.flush()
db.execute("UPDATE window_packs SET data = ? WHERE window_id = ?",
           (b[:4] + len(r).to_bytes(4, "big") + b[8:16] + z, wid))
db.commit()
PY
hp audit hill --accept-test-dice && fail "a roll changed in a pack passed the audit: $(cat "$T/out")"
q ".restore '$T/before-edit.db'" || fail "restore"
hp audit hill --accept-test-dice || fail "audit after the edit was undone: $(cat "$T/out" "$T/err")"
# Compacting again packs nothing more; the tests' e2e_unpack gives the
# rows back as they were.
hp storage --compact || fail "compact again: $(cat "$T/err")"
[ "$(q "SELECT count(*) FROM window_packs")" = $((NRES - 1)) ] || fail "compact again changed the packs"
cp "$DB" "$T/copy.db"
e2e_unpack "$T/copy.db"
sqlite3 "$T/copy.db" "SELECT * FROM events ORDER BY window_id, seq; SELECT * FROM dice ORDER BY window_id, seq; SELECT window_id, text, signature, pubkey FROM dice_logs ORDER BY window_id" | cmp -s - "$W/rows" ||
	fail "e2e_unpack does not give the rows back: $(sqlite3 "$T/copy.db" "SELECT * FROM events ORDER BY window_id, seq; SELECT * FROM dice ORDER BY window_id, seq; SELECT window_id, text, signature, pubkey FROM dice_logs ORDER BY window_id" | diff - "$W/rows" | head)"
hp audit hill --accept-test-dice || fail "audit after compaction: $(cat "$T/out" "$T/err")"
hp report hill --turn 2 || fail "report --turn: $(cat "$T/err")"
cmp -s "$T/out" "$W/report2" || fail "report --turn 2 changed by compaction"
hp moderate hill resend blue --email ann@example.org || fail "resend: $(cat "$T/out" "$T/err")"
q "SELECT CAST(data AS TEXT) FROM outbox WHERE message_id LIKE '%again%' ORDER BY id DESC LIMIT 1" >"$W/again"
[ -s "$W/again" ] || fail "resend queued nothing"
# It carries the picture the report mail carried (issue 18).
grep -q 'filename="\{0,1\}map-turn[0-9]*-[a-z]*\.png' "$W/again" ||
	fail "the report sent again has no picture: $(head -n 40 "$W/again")"
# The report sent again is the one sent then, byte for byte (that one
# also carried the server key's footer).
# (A report mail with its picture is multipart: its text part is compared.)
body() {
	decoded "$1" | sed '1,/^$/d' |
		awk 'NR == 1 && /^--/ { skip = 1; next } skip { if ($0 == "") skip = 0; next } /^--=-hexpost-/ { exit } { print }'
}
body "$W/again" >"$W/again.body"
body "$W/mail3" >"$W/mail3.body"
[ "$(wc -l <"$W/again.body")" -ge 10 ] || fail "resent report: $(cat "$W/again")"
head -n "$(wc -l <"$W/again.body")" "$W/mail3.body" | cmp -s "$W/again.body" - || fail "the report sent again differs: $(diff "$W/mail3.body" "$W/again.body" | head)"
# A bounce names a message whose copy is compacted: it is still found (the
# headers it checks are kept).
# (It quotes the message's Date: hexpost checks it against its copy.)
DATE=$(sed -n 's/^Date: //p' "$W/mail3" | head -n 1)
printf 'From: MAILER-DAEMON@example.org\nTo: hexpost@club.example\nSubject: Undelivered Mail Returned to Sender\nMessage-ID: <bounce1@example.org>\n\nThis is the mail system.\n\n<ann@example.org>: host said: 550 5.1.1 no such user\n\n--- original message ---\nDate: %s\nMessage-ID: <%s>\nSubject: x\n' "$DATE" "$KID" >"$D/inbox/new/bounce1.host"
hp -v run --once || fail "run with a bounce: $(cat "$T/err")"
[ "$(q "SELECT count(*) FROM bounces WHERE message_id = '$KID' AND outbox_id IS NOT NULL")" = 1 ] ||
	fail "the bounce did not find its compressed message: $(q "SELECT * FROM bounces") $(cat "$T/err")"

STEP="an edited compressed report"
# The moderator's first report, which the later ones are stored against.
q "UPDATE reports SET body = body || 'x' WHERE side_idx = -1 AND window_id = (SELECT min(window_id) FROM reports)"
hp audit hill --accept-test-dice && fail "the audit passed an edited compressed report"
grep -q "report for the moderator differs" "$T/out" "$T/err" || fail "audit said: $(cat "$T/out" "$T/err")"
echo "storage: ok"
