#!/bin/bash
# daemon: `hexpost run` as a daemon. One instance per data directory (a
# second exits 75 naming the first's pid; `run --once` from a timer too);
# SIGTERM ends it after the current step with exit 0, SIGINT too; SIGHUP
# rereads the configuration (a broken one is refused and the old one kept);
# log levels and targets (stderr or syslog) from the configuration; run
# without a configuration is refused (exit 78).
# Usage: bash daemon.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start daemon "${1:?usage: daemon.sh /path/to/hexpost}"
DPID=
e2e_at_exit '[ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null'

# fail_hook: the daemon's stderr with every failure.
fail_hook() {
	[ -f "$T/err" ] && sed 's/^/  stderr: /' "$T/err" >&2
}
D=$T/data
CONF=$D/hexpost.conf
hp() { "$HEXPOST" --config "$CONF" "$@"; }

# setkey KEY VALUE: set a configuration key.
setkey() {
	sed -i "s|^$1 = .*|$1 = $2|" "$CONF"
	grep -qx "$1 = $2" "$CONF" || fail "cannot set $1"
}

# wait_for FILE TEXT: until FILE holds TEXT (10 s at most).
wait_for() {
	local i
	for i in $(seq 1 100); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "'$2' never appeared in $1"
}

start() {
	: >"$T/out"
	: >"$T/err"
	"$HEXPOST" --config "$CONF" run >"$T/out" 2>"$T/err" &
	DPID=$!
}

"$HEXPOST" init --datadir "$D" >/dev/null || fail "init"
grep -qx 'log = stderr' "$CONF" && grep -qx 'log_level = warning' "$CONF" &&
	grep -qx 'missing = ai' "$CONF" || fail "init wrote no daemon keys"
hp campaign new hill --ruleset fire-and-movement --seed daemon >/dev/null ||
	fail "campaign new"
# The sender of the refused mail below is a registered player's address
# (strangers get no refusal, issue 12); without a configuration no welcome
# is queued, so the only mail is the refusals.
"$HEXPOST" --db "$D/hexpost.db" player add hill blue --email s@elsewhere.example \
	--name S >/dev/null || fail "player add"
setkey poll_interval 1
setkey log_level info

# No configuration: refused.
"$HEXPOST" --db "$D/hexpost.db" run --once >/dev/null 2>"$T/err"
[ $? = 78 ] || fail "run without a configuration: want exit 78"

# The daemon runs passes every second.
start
wait_for "$T/out" "mail out:"
grep -q '^hexpost: info: started on .*, every 1 s$' "$T/err" ||
	fail "no start message at level info"
sleep 1.5
[ "$(grep -c '^mail in:' "$T/out")" -ge 2 ] || fail "no second pass"

# The lock: a second daemon, and run --once, are turned away.
"$HEXPOST" --config "$CONF" run --once >"$T/out2" 2>"$T/err2"
rc=$?
[ $rc = 75 ] || fail "second instance exited $rc, want 75"
grep -qF "another hexpost run (pid $DPID) is working on $D (lock $D/hexpost.lock)" "$T/err2" ||
	fail "second instance: $(cat "$T/err2")"
[ ! -s "$T/out2" ] || fail "the second instance did a pass"
kill -0 "$DPID" || fail "the first instance died"

# SIGHUP with a broken configuration: refused, the old one kept.
cp "$CONF" "$T/conf.good"
echo "poll_interval = soon" >>"$CONF"
kill -HUP "$DPID"
wait_for "$T/err" "SIGHUP: configuration not reread"
grep -qF "poll_interval must be a number" "$T/err" || fail "no reason given"
kill -0 "$DPID" || fail "died on a broken configuration"
n=$(grep -c '^mail in:' "$T/out")
sleep 2.2
[ "$(grep -c '^mail in:' "$T/out")" -gt "$n" ] || fail "stopped polling"

# SIGHUP with a good one: log_level error silences the info lines.
cp "$T/conf.good" "$CONF"
setkey log_level error
setkey poll_interval 2
kill -HUP "$DPID"
sleep 1
kill -0 "$DPID" || fail "died on SIGHUP"
: >"$T/err.mark"
cp "$T/err" "$T/err.before"
# A signed file from nobody's key gets a refusal: at level info that
# would log "delivered ..." lines.
new_key stranger "$T" || fail "minisign -G"
printf 'campaign: hill\nturn: 1\nwindow: blue\nside: blue\n' >"$T/o.txt"
signed_mail "$T/stranger.key" "$T/o.txt" "S <s@elsewhere.example>" \
	"s1@elsewhere.example" "orders" "$T/m.eml" || fail "mail"
deliver "$D/inbox" "$T/m.eml" m1
wait_for "$T/out" "mail in: 0 accepted, 1 refused"
wait_for "$T/out" "mail out: 1 delivered"
cmp -s "$T/err" "$T/err.before" || fail "logged below level error: $(diff "$T/err.before" "$T/err")"

# SIGTERM: exit 0 after the current step.
kill -TERM "$DPID"
wait "$DPID"
rc=$?
DPID=
[ $rc = 0 ] || fail "SIGTERM: exit $rc"

# SIGINT in the middle of a pass with work to do: the message in hand is
# finished (taken in and answered, or left whole for the next run).
cp "$T/conf.good" "$CONF"
for i in $(seq 1 40); do
	printf 'campaign: hill\nturn: 1\nwindow: blue\nside: blue\n# %s\n' "$i" >"$T/o$i.txt"
	signed_mail "$T/stranger.key" "$T/o$i.txt" "S <s@elsewhere.example>" \
		"s.$i@elsewhere.example" "orders $i" "$T/m$i.eml" || fail "mail"
	deliver "$D/inbox" "$T/m$i.eml" "n$i"
done
start
# Not before the handler is in place: bash starts background jobs with
# SIGINT ignored, so a SIGINT sent before hexpost's sigaction was lost and
# the wait below hung (seen under load). "started on" is logged after it.
wait_for "$T/err" "started on"
kill -INT "$DPID"
wait "$DPID"
rc=$?
DPID=
[ $rc = 0 ] || fail "SIGINT: exit $rc"
"$HEXPOST" --config "$CONF" run --once >"$T/out" 2>"$T/err" || fail "run --once after SIGINT"
[ "$(sqlite3 "$D/hexpost.db" "SELECT count(*) FROM messages WHERE outcome = 'rejected'")" = 41 ] ||
	fail "messages lost or doubled around SIGINT"
[ "$(sqlite3 "$D/hexpost.db" "SELECT count(*) FROM outbox WHERE kind = 'refusal' AND state = 'sent'")" = 41 ] ||
	fail "refusals lost or doubled around SIGINT"
[ -z "$(ls "$D/inbox/new")" ] || fail "mail left in new/"

# log = syslog: nothing on stderr, even at level debug.
setkey log syslog
setkey log_level debug
"$HEXPOST" --config "$CONF" run --once >"$T/out" 2>"$T/err" || fail "run --once with syslog"
[ ! -s "$T/err" ] || fail "logged to stderr with log = syslog"
setkey log stderr
"$HEXPOST" --config "$CONF" run --once >"$T/out" 2>"$T/err" || fail "run --once"
grep -q '^hexpost: debug: ' "$T/err" || fail "no debug lines at level debug"
echo "log = journal" >>"$CONF"
"$HEXPOST" --config "$CONF" run --once >"$T/out" 2>"$T/err"
[ $? = 78 ] || fail "a bad log target is not refused"
grep -qF "log must be stderr or syslog" "$T/err" || fail "no reason for the bad log target"
exit 0
