#!/bin/bash
# quarantine: a campaign whose resolution fails is put in quarantine
# (issue 20, item 6): not tried again pass after pass, its moderator told
# once by mail, shown by 'campaign show' and 'campaign list', until the
# moderator's 'resume' lifts it; then the window is resolved. The failure
# is real: an SQLite trigger that aborts every change of a window's state.
# Usage: bash quarantine.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start quarantine "${1:?usage: quarantine.sh /path/to/hexpost}" \
	minisign sqlite3
e2e_datadir
e2e_keys ann
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
notices() { grep -l '^\(Subject\|X-Hexpost-Topic\): \[hexpost\] hill: resolution failed' "$D"/outbox/new/* 2>/dev/null | wc -l; }

hp campaign new hill --ruleset fire-and-movement --seed quarantine || fail "campaign"
hp campaign new dale --ruleset fire-and-movement --seed quarantine2 || fail "campaign 2"
hp player add hill blue --email ann@example.org --name Ann --key "$T/ann.pub" --moderator ||
	fail "player: $(cat "$T/err")"
hp orders template hill --side blue && head -n 4 "$T/out" >"$W/blue.txt" || fail "template"
hp orders suggest hill --side blue && sed '1,4d' "$T/out" >>"$W/blue.txt" || fail "suggest"
# Ann has a key: orders entered for her side carry her signature.
minisign -S -s "$T/ann.key" -m "$W/blue.txt" >/dev/null 2>&1 || fail "minisign -S"
hp orders submit hill "$W/blue.txt" --sig "$W/blue.txt.minisig" ||
	fail "submit: $(cat "$T/err")"
sqlite3 "$DB" "CREATE TRIGGER injected BEFORE UPDATE OF state ON windows
	WHEN (SELECT name FROM campaigns WHERE id = OLD.campaign_id) = 'hill'
	BEGIN SELECT RAISE(ABORT, 'injected fault'); END;" || fail "trigger"

STEP="first failure"
hp run --once
grep -q "hill: resolution failed, campaign put in quarantine until the moderator resumes it: .*injected fault" "$T/err" ||
	fail "not quarantined: $(cat "$T/out" "$T/err")"
[ "$(notices)" -eq 1 ] || fail "$(notices) notices to the moderator, want 1"
f=$(grep -l '^\(Subject\|X-Hexpost-Topic\): \[hexpost\] hill: resolution failed' "$D"/outbox/new/*)
grep -q '^To: .*ann@example.org' "$f" || fail "the notice is not to Ann: $(head -20 "$f")"
grep -q "resume" "$f" || fail "the notice does not say how to lift it"
hp campaign show hill || fail "show"
grep -q "^  quarantined since .*: resolution failed: .*injected fault" "$T/out" ||
	fail "show: $(cat "$T/out")"
hp campaign list || fail "list"
grep -q "^hill .*\[quarantined" "$T/out" || fail "list: $(cat "$T/out")"
grep -q "^dale .*quarantined" "$T/out" && fail "dale listed as quarantined: $(cat "$T/out")"

STEP="next passes"
for i in 1 2; do
	hp run --once
	grep -q "injected fault" "$T/err" && fail "pass $i tried hill again: $(cat "$T/err")"
done
[ "$(notices)" -eq 1 ] || fail "$(notices) notices to the moderator after three passes"
hp campaign show dale || fail "dale"
grep -q quarantined "$T/out" && fail "dale is quarantined too"

STEP="resume"
sqlite3 "$DB" "DROP TRIGGER injected" || fail "drop trigger"
hp moderate hill resume || fail "resume: $(cat "$T/out" "$T/err")"
grep -q "out of quarantine" "$T/out" || fail "resume said: $(cat "$T/out")"
hp campaign show hill
grep -q quarantined "$T/out" && fail "still quarantined: $(cat "$T/out")"
hp run --once || fail "run after resume: $(cat "$T/err")"
grep -q "^resolved [0-9]* windows\? of hill" "$T/out" || fail "not resolved: $(cat "$T/out" "$T/err")"
echo "quarantine: ok"
