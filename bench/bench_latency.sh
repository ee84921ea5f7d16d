#!/usr/bin/env bash
# bench_latency.sh [TURNS [POLL_TURNS [POLL_INTERVAL]]] (defaults 100, 20,
# 10): how long a player waits for a turn (issue 19), on the real servers
# the tests start (tests/e2e/lib-servers.sh: Dovecot on 127.0.0.1 for
# IMAP, the aiosmtpd SMTP server).
#
# `hexpost run` (the daemon) reads hexpost's INBOX over IMAP and sends
# over SMTP. A turn: Blue's orders for a fire-and-movement campaign of
# Blue alone ('orders suggest', signed by the real `minisign -S`, attached
# as contrib/hexpost-player attaches them) are appended to the INBOX by
# IMAP APPEND (curl); the time runs from just before the APPEND to the line
# the SMTP server logs when it has accepted the turn's report for Blue
# (checked every 10 ms). Before each APPEND the bench sleeps a random time
# (up to 1 s, or up to POLL_INTERVAL when polling) so that the order comes
# at any point of the daemon's cycle. A campaign that ends is followed by
# a new one.
#
# Two runs: TURNS turns with mail_wait = watch (IMAP IDLE; poll_interval
# 60 as the fallback), then POLL_TURNS turns with mail_wait = poll and
# poll_interval = POLL_INTERVAL (polling only). Prints the median and the
# 95th percentile of each, and the target (median under 2 s with IDLE).
# BUILD_DIR picks the build directory (default build/).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${BUILD_DIR:-$top/build}
N=${1:-100}
NP=${2:-20}
PI=${3:-10}
cmake -S "$top" -B "$dir" >/dev/null
cmake --build "$dir" -j2 --target hexpost >/dev/null
HEXPOST=$dir/hexpost

T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-bench-latency.XXXXXX")
. "$top/tests/e2e/lib-servers.sh"
. "$top/tests/e2e/signed_mail.bash"
DPID=
cleanup() {
	set +e   # lib-servers.sh is not written for -e
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	srv_stop_all
	rm -rf "$T"
}
trap cleanup EXIT
unset HEXPOST_CONFIG HEXPOST_DB HEXPOST_TEMPLATES

PW=bench-pw
srv_init "$T/srv"
srv_user hexpost@localhost "$PW"
srv_user blue@example.org "$PW"
dovecot_start
smtp_start
new_key blue "$T"
export HEXPOST_IMAP_PASSWORD=$PW

# setup MODE: a fresh data directory $D for mail_wait MODE.
setup() {
	D=$T/data-$1
	CONF=$D/hexpost.conf
	"$HEXPOST" init --datadir "$D" >/dev/null
	cat >>"$CONF" <<EOF
from = hexpost@localhost
domain = bench.example
imap = imap://127.0.0.1:$IMAP_PORT/INBOX
imap_user = hexpost@localhost
imap_starttls = off
imap_after = move Done
outbox = smtp://127.0.0.1:$SMTP_PORT
smtp_starttls = off
mail_wait = $1
poll_interval = $([ "$1" = poll ] && echo "$PI" || echo 60)
EOF
	GAME=0
	new_game
}
hp() { "$HEXPOST" --config "$CONF" "$@"; }
new_game() {
	GAME=$((GAME + 1))
	C=g$GAME
	hp campaign new "$C" --ruleset fire-and-movement >/dev/null
	hp player add "$C" blue --email blue@example.org --name Bea \
		--key "$T/blue.pub" >/dev/null
}
reports() {
	grep -c "to=<blue@example.org> id=<hexpost\.report\." "$T/srv/smtp.log" || true
}
# msleep MAX_MS: a random pause of up to MAX_MS milliseconds.
msleep() {
	local ms=$(( (RANDOM * 32768 + RANDOM) % ($1 + 1) ))
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
}

# play MODE TURNS MAXPAUSE_MS: the latencies, one a line (ms), in $T/MODE.
play() {
	local mode=$1 turns=$2 pause=$3 k want t0 t1
	setup "$mode"
	srv_folder hexpost@localhost Done
	"$HEXPOST" --config "$CONF" run >"$T/$mode.out" 2>"$T/$mode.err" &
	DPID=$!
	for k in $(seq 1 200); do
		grep -q "^mail out:" "$T/$mode.out" 2>/dev/null && break
		sleep 0.1
	done
	: >"$T/$mode"
	for k in $(seq 1 "$turns"); do
		hp orders suggest "$C" --side blue >"$T/orders.txt"
		signed_mail "$T/blue.key" "$T/orders.txt" "Bea <blue@example.org>" \
			"$mode.$k.$RANDOM@players.example" "orders" "$T/mail.eml"
		want=$(($(reports) + 1))
		msleep "$pause"
		t0=$(date +%s%N)
		curl -s --url "imap://127.0.0.1:$IMAP_PORT/INBOX" \
			--user "hexpost@localhost:$PW" -T "$T/mail.eml"
		until [ "$(reports)" -ge "$want" ]; do
			sleep 0.01
			if [ $((($(date +%s%N) - t0) / 1000000000)) -gt $((PI + 70)) ]; then
				echo "turn $k: no report; daemon log:" >&2
				tail -20 "$T/$mode.err" >&2
				exit 1
			fi
		done
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000)) >>"$T/$mode"
		if hp campaign show "$C" | grep -q "status   finished"; then
			new_game
		fi
	done
	kill "$DPID"
	wait "$DPID" 2>/dev/null || true
	DPID=
}

# stats FILE: "median M ms, 95th percentile P ms (n turns)".
stats() {
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		p = int(0.95 * NR + 0.999999); if (p < 1) p = 1
		printf "median %d ms, 95th percentile %d ms, min %d, max %d (%d turns)\n",
		    m, v[p], v[1], v[NR], NR }'
}

play watch "$N" 1000
play poll "$NP" $((PI * 1000))
echo "order appended over IMAP -> report accepted by the SMTP server"
printf '  IMAP IDLE (poll_interval 60):   %s\n' "$(stats "$T/watch")"
printf '  polling only (poll_interval %d): %s\n' "$PI" "$(stats "$T/poll")"
med=$(sort -n "$T/watch" | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }')
if [ "$med" -lt 2000 ]; then
	echo "target: median under 2000 ms with IDLE: met ($med ms)"
else
	echo "target: median under 2000 ms with IDLE: NOT met ($med ms)"
fi
