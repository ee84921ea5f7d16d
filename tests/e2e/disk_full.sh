#!/bin/bash
# disk_full: a full ext4 disk (a real ext4 image with 1 KB blocks on a loop
# device) makes hexpost fail with a message and exit 74, never die of a bus
# error (issue 21, item 2). SQLite extends its WAL index (the -shm file) by
# writing the last byte of each 4 KB page, so with 1 KB blocks three of
# every four blocks stay holes; the first store into one, on a full disk,
# was a SIGBUS inside SQLite: exit 135, no message (freeing 8 to 10 KB of a
# full disk hit it every time). Now hexpost's VFS guard (src/shmguard.c)
# allocates the region before SQLite touches it and the statement fails
# with "the disk holding the database is full". The disk is freed a KB at a
# time from full, one run --once each; no run may die of a signal, the
# campaign is never put in quarantine for it (a full disk is not its
# fault), and once there is room the window is resolved and the mail goes
# out. Needs root, mkfs.ext4 and a loop device; skipped (77) otherwise.
# Usage: bash disk_full.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start disk_full "${1:?usage: disk_full.sh /path/to/hexpost}" sqlite3 minisign
skip() { echo "disk_full: skipped ($*)"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "mounting an ext4 image needs root"
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
MNT=$T/mnt
mkdir -p "$MNT"
truncate -s 16M "$T/ext4.img" && mkfs.ext4 -q -b 1024 "$T/ext4.img" ||
	fail "mkfs.ext4"
mount -o loop "$T/ext4.img" "$MNT" 2>"$T/err" || skip "no loop device: $(cat "$T/err")"
e2e_at_exit 'umount "$MNT" 2>/dev/null || umount -l "$MNT"'
D=$MNT/data
CONF=$D/hexpost.conf
DB=$D/hexpost.db
W=$T/work
mkdir -p "$W"
"$HEXPOST" init --datadir "$D" >/dev/null 2>"$T/err" || fail "init: $(cat "$T/err")"
e2e_keys ann
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
q() { sqlite3 "$DB" "$1"; }
hp campaign new hill --ruleset fire-and-movement --seed full || fail "campaign"
hp player add hill blue --email ann@example.org --name Ann --key "$T/ann.pub" \
	--moderator || fail "player: $(cat "$T/err")"
hp orders template hill --side blue && head -n 4 "$T/out" >"$W/blue.txt" || fail "template"
hp orders suggest hill --side blue && sed '1,4d' "$T/out" >>"$W/blue.txt" || fail "suggest"
# Ann has a key: orders entered for her side carry her signature.
minisign -S -s "$T/ann.key" -m "$W/blue.txt" >/dev/null 2>&1 || fail "minisign -S"
hp orders submit hill "$W/blue.txt" --sig "$W/blue.txt.minisig" ||
	fail "submit: $(cat "$T/err")"

STEP="full"
dd if=/dev/zero of="$MNT/fill" bs=1k 2>/dev/null
[ "$(df -k --output=avail "$MNT" | tail -n 1)" -eq 0 ] || fail "the image is not full"
said=0
for k in $(seq 1 24); do
	rm -f "$DB-shm" "$DB-wal"
	truncate -s -1K "$MNT/fill"
	hp run --once
	rc=$?
	[ "$rc" -lt 128 ] || fail "${k} KB free: killed by signal $((rc - 128)): $(cat "$T/err")"
	case $rc in
	0) ;;
	74) grep -q "is full\|cannot be written" "$T/err" "$T/out" ||
		fail "${k} KB free: exit 74 without saying why: $(cat "$T/err")"
	    grep -q "disk holding the database is full" "$T/err" && said=$((said + 1)) ;;
	*) fail "${k} KB free: exit $rc, want 0 or 74: $(cat "$T/err")" ;;
	esac
done
[ "$said" -gt 0 ] || fail "no run said the disk holding the database was full"
STEP="room again"
rm -f "$MNT/fill"
hp run --once || fail "run once there is room: $(cat "$T/err")"
[ "$(q "SELECT count(*) FROM campaign_quarantine")" -eq 0 ] ||
	fail "the campaign was put in quarantine for a full disk"
[ "$(q "SELECT count(*) FROM windows WHERE resolved_at IS NOT NULL")" -ge 1 ] ||
	fail "nothing resolved: $(cat "$T/out")"
[ "$(q "SELECT count(*) FROM outbox WHERE state <> 'sent'")" -eq 0 ] ||
	fail "mail not delivered: $(q "SELECT kind, state, attempts, last_error FROM outbox WHERE state <> 'sent'")"
q "PRAGMA integrity_check" | grep -qx ok || fail "integrity_check"
echo "disk_full: ok ($said runs said the database's disk was full)"
