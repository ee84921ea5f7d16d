#!/bin/bash
# crash_points: a crash at every file-system call of a pass, with a mail
# system picking the outbox up between runs (issue 21: "crash points at
# every system call of a pass with a pick-up between runs"). One pass takes
# in a signed order mail, answers it, resolves the window and delivers the
# acknowledgement and the reports. It is run once undisturbed (the
# reference), then again from the same start for each call N of each of
# fsync, fdatasync, syncfs (the outbox's batch, issue 17), rename, link,
# unlink, openat (and a sample of the pwrite64 and write calls;
# CRASH_ALL=1 takes every one) killed with
# SIGKILL as it enters that call (strace's fault injection); the outbox's
# new/ is then picked up, and two undisturbed runs follow, with a pick-up
# after each. Every run must end with the reference's game state and record
# of mail, every message delivered exactly once. Needs strace (skipped,
# 77, without it or without ptrace).
# Usage: bash crash_points.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
# LeakSanitizer cannot run under ptrace (it aborts the process), so an
# ASan build runs here without leak checks; every other test keeps them.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
. "$SRC/tests/e2e/lib-reports.sh"
e2e_start crash_points "${1:?usage: crash_points.sh /path/to/hexpost}" \
	minisign sqlite3
command -v strace >/dev/null || { echo "crash_points: skipped (no strace)"; exit 77; }
strace -f -o /dev/null true 2>/dev/null ||
	{ echo "crash_points: skipped (ptrace not allowed)"; exit 77; }
e2e_datadir
e2e_keys ann bob
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
hp campaign new hill --ruleset fire-and-movement --seed crash || fail "campaign"
hp player add hill blue --email ann@example.org --name Ann --key "$T/ann.pub" \
	--moderator || fail "player: $(cat "$T/err")"
hp player add hill red --email bob@example.org --name Bob --key "$T/bob.pub" ||
	fail "player: $(cat "$T/err")"
hp orders template hill --side blue && head -n 4 "$T/out" >"$W/blue.txt" || fail "template"
hp orders suggest hill --side blue && sed '1,4d' "$T/out" >>"$W/blue.txt" || fail "suggest"
hp run --once || fail "first run: $(cat "$T/err")"
signed_mail "$T/ann.key" "$W/blue.txt" "Ann <ann@example.org>" \
	"blue.1@example.org" "orders" "$W/m1.eml" || fail "mail"
deliver "$D/inbox" "$W/m1.eml" m1
# The start of every run: the data directory as it is now, outbox emptied.
rm -f "$D"/outbox/new/*
cp -a "$D" "$T/start" || fail "copy"

# pickup: take every file out of the outbox's new/ into $T/picked; a name
# taken already is a message delivered twice.
pickup() {
	local f
	for f in "$D"/outbox/new/*; do
		[ -f "$f" ] || continue
		[ ! -e "$T/picked/${f##*/}" ] || fail "delivered twice: ${f##*/}"
		mv "$f" "$T/picked/" || fail "pickup"
	done
}
# state: the game and the record of mail, without times (read from a copy
# given back its plain rows: e2e_unpack).
state() {
	rm -f "$T/state.db"
	sqlite3 "$D/hexpost.db" ".backup '$T/state.db'" && e2e_unpack "$T/state.db" ||
		fail "a copy to read"
	sqlite3 "$T/state.db" <<'SQL'
SELECT name, status, turn, window FROM campaigns ORDER BY name;
SELECT turn, number, state, hex(seed), hex(dice_key) FROM windows ORDER BY 1, 2;
SELECT w.turn, w.number, o.side_idx, o.source, o.current, hex(o.hash) FROM orders o JOIN windows w ON w.id = o.window_id ORDER BY 1, 2, 3, 4, 6;
SELECT w.turn, w.number, count(*) FROM events e JOIN windows w ON w.id = e.window_id GROUP BY 1, 2 ORDER BY 1, 2;
SELECT w.turn, w.number, d.seq, d.result FROM dice d JOIN windows w ON w.id = d.window_id ORDER BY 1, 2, 3;
SELECT u.* FROM units u ORDER BY u.idx;
SELECT hex(hash), message_id, outcome FROM messages ORDER BY 1;
SELECT message_id, kind, rcpt, state FROM outbox ORDER BY 1;
SQL
	ls "$T/picked"
}
# fresh: the data directory back at the start, nothing picked up.
fresh() {
	rm -rf "$D" "$T/picked"
	cp -a "$T/start" "$D" && mkdir -p "$T/picked" || fail "copy back"
}

STEP="reference"
fresh
hp run --once || fail "reference run: $(cat "$T/err")"
grep -q "mail in: 1 accepted" "$T/out" || fail "the pass took nothing in: $(cat "$T/out")"
grep -q "^resolved 1 window" "$T/out" || fail "the pass resolved nothing: $(cat "$T/out")"
pickup
hp run --once || fail "reference run 2"
pickup
state >"$T/ref" || fail "state"
[ "$(ls "$T/picked" | wc -l)" -ge 3 ] || fail "too little mail: $(ls "$T/picked")"

# How many times the pass makes each call.
fresh
strace -f -c -o "$T/counts" -e trace=fsync,fdatasync,syncfs,rename,link,unlink,openat,pwrite64,write \
	"$HEXPOST" --config "$CONF" run --once >/dev/null 2>&1 || fail "counting run"
calls() { awk -v s="$1" '$NF == s { print $(NF - 1) }' "$T/counts" | head -n 1; }
crashes=0
sums=
for sc in fsync fdatasync syncfs rename link unlink openat pwrite64 write; do
	n=$(calls "$sc")
	[ -n "$n" ] || continue
	sums="$sums $sc $n,"
	step=1
	if [ -z "${CRASH_ALL:-}" ] && [ "$n" -gt 25 ]; then
		step=$(( (n + 24) / 25 ))
	fi
	for k in $(seq 1 "$step" "$n"); do
		STEP="crash at $sc #$k of $n"
		fresh
		# In a subshell that outlives strace (which dies of the same
		# signal), so bash reports no "Killed".
		(strace -f -o /dev/null -e trace="$sc" \
			-e inject="$sc":signal=KILL:when="$k" \
			"$HEXPOST" --config "$CONF" run --once; exit $?) >/dev/null 2>&1
		rc=$?
		[ "$rc" -eq 137 ] || [ "$rc" -eq 0 ] || fail "the crashed run exited $rc"
		pickup
		hp run --once || fail "run after the crash: $(cat "$T/err")"
		pickup
		hp run --once || fail "second run after the crash: $(cat "$T/err")"
		pickup
		state >"$T/got"
		diff -u "$T/ref" "$T/got" >"$T/diff" || {
			head -30 "$T/diff" >&2
			fail "differs from the undisturbed pass"
		}
		crashes=$((crashes + 1))
	done
done
[ "$crashes" -ge 20 ] || fail "only $crashes crash points"
case "$sums" in
*" syncfs "*) ;;
*) fail "the outbox's batch sync (syncfs) was not among the calls:$sums" ;;
esac
echo "crash_points: ok ($crashes crashes among the pass's calls:${sums%,}; each run ends as the undisturbed one)"
