#!/bin/bash
# outbox_full: a full or read-only outbox is a local fault, not the
# recipients' (issue 21, item 3). Before the fix each pass counted a failed
# try, and after retry_max every queued acknowledgement, welcome and report
# was marked failed for good, with `run --once` exiting 0. Now the mail
# stays queued with no try counted, the moderators are told once (the
# notice waits in the queue with the rest), `run --once` exits 74
# (EX_IOERR) while the outbox cannot be written, and everything goes out
# once it can. The outbox is a real 256 KB tmpfs filled up, then remounted
# read-only (root is needed to mount; skipped, exit 77, otherwise).
# Usage: bash outbox_full.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start outbox_full "${1:?usage: outbox_full.sh /path/to/hexpost}" \
	minisign sqlite3
e2e_datadir
e2e_keys ann bob
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
q() { sqlite3 "$DB" "$1"; }
OB=$D/outbox
mkdir -p "$OB"
if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=256k,mode=0700 tmpfs "$OB" 2>/dev/null; then
	echo "outbox_full: skipped (mounting a tmpfs needs root)"
	exit 77
fi
e2e_at_exit 'umount "$OB" 2>/dev/null || umount -l "$OB"'
# A failed try is counted at most twice before a message fails for good.
sed -i 's/^retry_max = .*/retry_max = 2/; s/^retry_base = .*/retry_base = 1/' "$CONF"

hp campaign new hill --ruleset fire-and-movement --seed full || fail "campaign"
hp player add hill blue --email ann@example.org --name Ann --key "$T/ann.pub" \
	--moderator || fail "player: $(cat "$T/err")"
hp player add hill red --email bob@example.org --name Bob --key "$T/bob.pub" ||
	fail "player: $(cat "$T/err")"
QUEUED=$(q "SELECT count(*) FROM outbox WHERE state = 'queued'")
[ "$QUEUED" -ge 2 ] || fail "want at least 2 queued messages, have $QUEUED"

STEP="disk full"
mkdir -p "$OB/tmp" "$OB/new" "$OB/cur"
dd if=/dev/zero of="$OB/filler" bs=4k 2>/dev/null
[ "$(df -k --output=avail "$OB" | tail -n 1)" -eq 0 ] || fail "the tmpfs is not full"
for i in 1 2 3 4; do
	hp run --once
	rc=$?
	[ "$rc" -eq 74 ] || fail "pass $i: run --once exited $rc, want 74: $(cat "$T/err")"
done
grep -q "held (the outbox cannot be written: .*No space left on device" "$T/out" ||
	fail "the pass does not say the mail is held: $(cat "$T/out")"
[ "$(q "SELECT count(*) FROM outbox WHERE state <> 'queued' OR attempts > 0")" -eq 0 ] ||
	fail "tries counted or mail given up: $(q "SELECT message_id, state, attempts FROM outbox")"
# One notice to the moderator, queued once over four passes.
NOTICES=$(q "SELECT count(*) FROM outbox WHERE kind = 'notice' AND rcpt = 'ann@example.org' AND CAST(data AS TEXT) LIKE '%outbox cannot be written%'")
[ "$NOTICES" -eq 1 ] || fail "want 1 notice to the moderator, have $NOTICES"
[ "$(q "SELECT count(*) FROM outbox WHERE kind = 'notice'")" -eq 1 ] ||
	fail "someone else was told: $(q "SELECT rcpt, kind FROM outbox")"
[ -z "$(find "$OB/tmp" "$OB/new" -type f)" ] || fail "files left: $(find "$OB" -type f)"

STEP="disk freed"
rm -f "$OB/filler"
hp run --once || fail "run --once after the disk was freed: $(cat "$T/err")"
[ "$(q "SELECT count(*) FROM outbox WHERE state <> 'sent'")" -eq 0 ] ||
	fail "not all sent: $(q "SELECT message_id, state FROM outbox")"
[ "$(find "$OB/new" -type f | wc -l)" -eq "$((QUEUED + 1))" ] ||
	fail "want $((QUEUED + 1)) files in new/: $(ls "$OB/new")"
[ "$(q "SELECT count(*) FROM server_faults")" -eq 0 ] || fail "the fault is still recorded"

STEP="read-only"
mount -o remount,ro "$OB" || fail "remount ro"
hp orders template hill --side blue && head -n 4 "$T/out" >"$W/blue.txt" || fail "template"
hp orders suggest hill --side blue && sed '1,4d' "$T/out" >>"$W/blue.txt" || fail "suggest"
# Ann has a key: orders entered for her side carry her signature.
minisign -S -s "$T/ann.key" -m "$W/blue.txt" >/dev/null 2>&1 || fail "minisign -S"
hp orders submit hill "$W/blue.txt" --sig "$W/blue.txt.minisig" ||
	fail "submit: $(cat "$T/err")"
for i in 1 2 3; do
	hp run --once
	rc=$?
	[ "$rc" -eq 74 ] || fail "pass $i: run --once exited $rc, want 74: $(cat "$T/err")"
done
grep -q "Read-only file system" "$T/out" || fail "no cause given: $(cat "$T/out")"
REPORTS=$(q "SELECT count(*) FROM outbox WHERE kind = 'report' AND state = 'queued' AND attempts = 0")
[ "$REPORTS" -ge 2 ] || fail "want the reports queued: $(q "SELECT kind, state, attempts FROM outbox")"
[ "$(q "SELECT count(*) FROM outbox WHERE kind = 'notice'")" -eq 2 ] ||
	fail "want a second notice for the second fault, once"
mount -o remount,rw "$OB" || fail "remount rw"
hp run --once || fail "run --once after the remount: $(cat "$T/err")"
[ "$(q "SELECT count(*) FROM outbox WHERE state <> 'sent'")" -eq 0 ] ||
	fail "not all sent: $(q "SELECT message_id, kind, state FROM outbox")"
echo "outbox_full: ok"
