#!/bin/bash
# outbox_pickup: delivery into the outbox Maildir is never done twice, even
# when a mail system picks files up from new/ between runs (issue 21, item
# 1). Before the fix the file was linked into new/ and then recorded as
# sent; a crash between the two delivered it again on the next run once the
# file had been taken away (113 duplicates in 499 forced crashes). Now the
# file is staged in tmp/, the stage recorded, then renamed into new/; the
# next run trusts the record. The crashes are forced at both points by
# hexpost's test-only crash points (HEXPOST_TEST_CRASH_AFTER_STAGE,
# HEXPOST_TEST_CRASH_AFTER_FINISH: abort right after that step).
# Usage: bash outbox_pickup.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start outbox_pickup "${1:?usage: outbox_pickup.sh /path/to/hexpost}" \
	minisign sqlite3
e2e_datadir
e2e_keys ann
e2e_keys bob
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
PICKED=$W/picked
mkdir -p "$PICKED"
# pickup: what a mail system does: take every file out of the outbox's new/.
pickup() { find "$D/outbox/new" -type f -exec mv -t "$PICKED" {} +; }
# Each Message-ID taken up or still in the outbox, with its count.
ids() {
	find "$PICKED" "$D/outbox/new" "$D/outbox/cur" -type f -exec \
		sed -n 's/^Message-ID: *//Ip' {} + | sort | uniq -c
}

hp campaign new hill --ruleset fire-and-movement --seed pickup || fail "campaign"
hp player add hill blue --email ann@example.org --name Ann --key "$T/ann.pub" ||
	fail "player: $(cat "$T/err")"
hp player add hill red --email bob@example.org --name Bob --key "$T/bob.pub" ||
	fail "player: $(cat "$T/err")"
QUEUED=$(sqlite3 "$DB" "SELECT count(*) FROM outbox WHERE state = 'queued'")
[ "$QUEUED" -ge 2 ] || fail "want at least 2 queued messages, have $QUEUED"

# The outbox delivers a batch at a time (issue 17): every message staged,
# one sync, one commit of the stage names; every one renamed into new/, one
# sync, one commit marking them sent.
STEP="crash after the rename into new/"
HEXPOST_TEST_CRASH_AFTER_FINISH=1 hp run --once && fail "the crash point did not fire"
[ "$(find "$D/outbox/new" -type f | wc -l)" -eq "$QUEUED" ] ||
	fail "want the batch ($QUEUED files) in new/: $(ls "$D/outbox/new")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM outbox WHERE state = 'sent'")" -eq 0 ] ||
	fail "marked sent before the crash point"
pickup
STEP="crash after staging"
e2e_keys cy
hp player add hill red --email cy@example.org --name Cy --key "$T/cy.pub" ||
	fail "player: $(cat "$T/err")"
HEXPOST_TEST_CRASH_AFTER_STAGE=1 hp -v run --once && fail "the crash point did not fire"
# Cy's welcome staged (its stage recorded), nothing renamed yet.
[ "$(find "$D/outbox/tmp" -type f | wc -l)" -eq 1 ] ||
	fail "want 1 staged file in tmp/: $(ls "$D/outbox/tmp")"
[ -z "$(find "$D/outbox/new" -type f)" ] || fail "renamed before the crash point"
QUEUED=$((QUEUED + 1))
STEP="recovery"
hp -v run --once || fail "run: $(cat "$T/err")"
# The first batch, renamed into new/ and taken away, is not written again.
grep -q "was delivered before a crash; not again" "$T/err" ||
	fail "the recovery did not say so: $(cat "$T/err")"
pickup
# A crash after the rename and before the 'sent' record, for every message
# at once (the record is what a crash loses): the next run must trust the
# stage records and write nothing, though new/ is empty. The code before
# the fix wrote every message again here.
STEP="sent records lost"
sqlite3 "$DB" "UPDATE outbox SET state = 'queued', next_attempt = 0" || fail "sqlite3"
hp run --once || fail "run: $(cat "$T/err")"
[ -z "$(find "$D/outbox/new" -type f)" ] ||
	fail "written again: $(ls "$D/outbox/new")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM outbox WHERE state <> 'sent'")" -eq 0 ] ||
	fail "not all marked sent again"
echo "outbox_pickup: ok"
