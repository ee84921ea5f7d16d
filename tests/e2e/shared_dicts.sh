#!/bin/bash
# shared_dicts: values stored against a shared dictionary (issue 17,
# migration 028) read back byte for byte. Two campaigns of the same ruleset
# and scenario, orders signed by their player: the second campaign's first
# moderator report is stored against the first one's (a row of
# shared_dicts), and once compacted (windows a day old packed) the order
# files and first window pack of both against the first ones of their
# scope. The audit, its bundle, 'report --turn', export, the web archive
# and the moderator's 'resend' give the same bytes before and after;
# e2e_unpack gives the rows back; an edited dictionary is found by the
# audit.
# Usage: bash shared_dicts.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
KEEP=${KEEP:-}
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
. "$SRC/tests/e2e/lib-reports.sh"
e2e_start shared_dicts "${1:?usage: shared_dicts.sh /path/to/hexpost}" minisign sqlite3
e2e_datadir
e2e_keys ann
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
q() { sqlite3 "$DB" "$1"; }
cat >>"$CONF" <<EOF
from = hexpost@club.example
domain = club.example
EOF

STEP="two games"
for c in hill dale; do
	hp campaign new $c --ruleset fire-and-movement --seed "shared-$c" || fail "campaign $c"
	hp player add $c blue --email ann@example.org --name Ann --key "$T/ann.pub" --moderator ||
		fail "player: $(cat "$T/err")"
	for turn in 1 2 3; do
		hp orders template $c --side blue && head -n 4 "$T/out" >"$W/blue.txt" || fail "template"
		hp orders suggest $c --side blue && sed '1,4d' "$T/out" >>"$W/blue.txt" || fail "suggest"
		minisign -S -s "$T/ann.key" -m "$W/blue.txt" >/dev/null 2>&1 || fail "minisign -S"
		hp orders submit $c "$W/blue.txt" --sig "$W/blue.txt.minisig" ||
			fail "submit: $(cat "$T/err")"
		hp run --once || fail "run: $(cat "$T/err")"
		grep -q "^resolved" "$T/out" || fail "$c turn $turn not resolved: $(cat "$T/out")"
	done
done
DALE1=$(q "SELECT min(w.id) FROM windows w JOIN campaigns c ON c.id = w.campaign_id WHERE c.name = 'dale' AND w.state = 'resolved'")
# dale's first moderator report leans on hill's (stored as it was).
[ "$(q "SELECT count(*) FROM reports WHERE window_id = $DALE1 AND side_idx = -1 AND substr(body, 1, 4) = CAST(x'00485058' AS BLOB)")" = 1 ] ||
	fail "dale's first report not stored against a shared dictionary: $(q "SELECT window_id, side_idx, hex(substr(body, 1, 4)), length(body) FROM reports")"
[ "$(q "SELECT count(*) FROM shared_dicts WHERE scope LIKE 'report fire-and-movement %'")" -ge 1 ] ||
	fail "no report dictionary: $(q "SELECT tag, scope FROM shared_dicts")"

views() {
	rm -rf "$W/$1"
	mkdir -p "$W/$1"
	for c in hill dale; do
		hp audit $c --accept-test-dice || fail "audit $c ($1): $(cat "$T/out" "$T/err")"
		cp "$T/out" "$W/$1/audit-$c.txt"
		hp audit export $c "$W/$1/bundle-$c" || fail "audit export $c ($1): $(cat "$T/err")"
		hp export $c --side blue --json || fail "export $c ($1): $(cat "$T/err")"
		cp "$T/out" "$W/$1/export-$c.json"
		for t in 1 2 3; do
			hp report $c --turn $t || fail "report $c --turn $t ($1): $(cat "$T/err")"
			cp "$T/out" "$W/$1/report-$c-$t"
		done
		hp moderate $c resend blue --email ann@example.org || fail "resend $c ($1): $(cat "$T/out" "$T/err")"
		q "SELECT CAST(data AS TEXT) FROM outbox WHERE message_id LIKE '%again%' ORDER BY id DESC LIMIT 1" >"$T/again"
		decoded "$T/again" | sed -n '/^$/,$p' | grep -v -e '^--=-hexpost-' -e '^Content-' -e 'boundary=' >"$W/$1/resend-$c"
		[ "$(wc -l <"$W/$1/resend-$c")" -ge 10 ] || fail "resend $c queued nothing ($1): $(cat "$T/again")"
	done
	hp web "$W/$1/site" || fail "web ($1): $(cat "$T/err")"
}
views before

STEP="compaction"
LASTH=$(q "SELECT max(w.id) FROM windows w JOIN campaigns c ON c.id = w.campaign_id WHERE c.name = 'hill' AND w.state = 'resolved'")
LASTD=$(q "SELECT max(w.id) FROM windows w JOIN campaigns c ON c.id = w.campaign_id WHERE c.name = 'dale' AND w.state = 'resolved'")
q "UPDATE windows SET resolved_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-2 days') WHERE state = 'resolved' AND id NOT IN ($LASTH, $LASTD)"
q "SELECT id, raw, parsed FROM orders ORDER BY id" >"$W/orders-before"
q "SELECT * FROM events ORDER BY window_id, seq; SELECT * FROM dice ORDER BY window_id, seq" >"$W/rows-before"
grep -q "roll" "$W/rows-before" || fail "no rows: $(head "$W/rows-before")"
hp storage --compact || fail "compact: $(cat "$T/err")"
# The first order files of the scope stay (they are its dictionaries); the
# others of the packed windows lean on them.
[ "$(q "SELECT count(*) FROM orders WHERE substr(raw, 1, 4) = CAST(x'00485058' AS BLOB)")" -ge 2 ] ||
	fail "order files not stored against a shared dictionary: $(q "SELECT id, window_id, hex(substr(raw, 1, 4)), length(raw) FROM orders")"
[ "$(q "SELECT count(*) FROM shared_dicts WHERE scope = 'orders raw fire-and-movement hill 0'")" = 1 ] ||
	fail "order dictionaries: $(q "SELECT tag, scope FROM shared_dicts")"
# dale's first window pack leans on hill's first (stored as it was).
[ "$(q "SELECT count(*) FROM window_packs WHERE window_id = $DALE1 AND substr(data, 1, 4) = CAST(x'00485058' AS BLOB)")" = 1 ] ||
	fail "dale's first pack not stored against a shared dictionary: $(q "SELECT window_id, hex(substr(data, 1, 16)), length(data) FROM window_packs")"
hp storage || fail "storage: $(cat "$T/err")"
grep -q "^  shared dictionaries: [1-9][0-9]*, [0-9.]* KB" "$T/out" || fail "storage listing: $(cat "$T/out")"
views after
for f in $(cd "$W/before" && ls | grep -v -e bundle -e site); do
	cmp -s "$W/before/$f" "$W/after/$f" || fail "$f changed by compaction: $(diff "$W/before/$f" "$W/after/$f" | head)"
done
for d in bundle-hill bundle-dale site; do
	diff -r "$W/before/$d" "$W/after/$d" >/dev/null || fail "$d changed by compaction: $(diff -r "$W/before/$d" "$W/after/$d" | head)"
done
# The tests' e2e_unpack gives the order files back as they were stored.
cp "$DB" "$T/copy.db"
e2e_unpack "$T/copy.db"
sqlite3 "$T/copy.db" "SELECT id, raw, parsed FROM orders ORDER BY id" | cmp -s - "$W/orders-before" ||
	fail "e2e_unpack does not give the order files back"
sqlite3 "$T/copy.db" "SELECT * FROM events ORDER BY window_id, seq; SELECT * FROM dice ORDER BY window_id, seq" | cmp -s - "$W/rows-before" ||
	fail "e2e_unpack does not give the events and dice back"

STEP="an edited dictionary"
q ".backup '$T/before-edit.db'" || fail "backup"
q "UPDATE shared_dicts SET data = CAST(data || 'x' AS BLOB) WHERE scope LIKE 'orders raw %'"
hp audit dale --accept-test-dice && fail "the audit passed order files against an edited dictionary: $(cat "$T/out")"
q ".restore '$T/before-edit.db'" || fail "restore"
q "UPDATE shared_dicts SET data = CAST(data || 'x' AS BLOB) WHERE scope LIKE 'report %'"
hp audit dale --accept-test-dice && fail "the audit passed a report against an edited dictionary: $(cat "$T/out")"
grep -q "report for the moderator differs" "$T/out" "$T/err" || fail "audit said: $(cat "$T/out" "$T/err")"
q ".restore '$T/before-edit.db'" || fail "restore"
hp audit dale --accept-test-dice || fail "audit after the edit was undone: $(cat "$T/out" "$T/err")"
echo "shared_dicts: ok"
