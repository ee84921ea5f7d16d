#!/usr/bin/env bash
# bench_imap.sh [MESSAGES [CAMPAIGNS]] (defaults 1000 and 50): mail in over
# IMAP from a local Dovecot, against one curl call per message.
#
# Setup (not timed), under a fresh directory in $TMPDIR (default /tmp),
# removed at the end: Dovecot on 127.0.0.1 (tests/e2e/lib-servers.sh:
# passwd-file user, Maildir), a hexpost data directory with CAMPAIGNS
# fire-and-movement campaigns whose Blue players have minisign keys made
# by the real `minisign -G -W` (8 keys, shared), and MESSAGES mails in
# hexpost's INBOX: message i carries Blue's turn-1 order file for campaign
# i % CAMPAIGNS with a random nonce, signed by the real `minisign -S`,
# attached with its .minisig as contrib/hexpost-player attaches them.
# Dovecot indexes the mailbox once before anything is timed.
#
# Timed, in the same run, on the same messages:
#   hexpost  bench_imap: fetch_imap_run + intake_run + fetch_imap_mark, as
#            'hexpost run --once' takes mail in (one IMAP session, UID
#            FETCH in batches of imap_batch, spool files fsynced; every
#            message must be accepted; \Seen set on the server after).
#   curl     a shell loop of `curl -s imap://127.0.0.1:PORT/INBOX;UID=n`
#            per message (fetch only: nothing is taken in).
# Then the ratio curl/hexpost against the target (>= 5).
# BUILD_DIR picks the build directory (default build/).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${BUILD_DIR:-$top/build}
N=${1:-1000}
C=${2:-50}
K=8
cmake -S "$top" -B "$dir" >/dev/null
cmake --build "$dir" -j2 --target hexpost bench_imap >/dev/null
HEXPOST=$dir/hexpost

T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-bench-imap.XXXXXX")
. "$top/tests/e2e/lib-servers.sh"
# Not under set -e: srv_kill's wait returns the killed server's status
# (143), which errexit would turn into the script's (exit 1 after PASS).
trap 'set +e; srv_stop_all; rm -rf "$T"' EXIT
unset HEXPOST_CONFIG HEXPOST_DB HEXPOST_TEMPLATES

S0=$SECONDS
srv_init "$T/srv"
srv_user hexpost@localhost bench-pw
dovecot_start
D=$T/data
CONF=$D/hexpost.conf
"$HEXPOST" init --datadir "$D" >/dev/null
cat >>"$CONF" <<EOF
from = hexpost@localhost
imap = imap://127.0.0.1:$IMAP_PORT/INBOX
imap_user = hexpost@localhost
imap_starttls = off
EOF
export HEXPOST_IMAP_PASSWORD=bench-pw
hp() { "$HEXPOST" --config "$CONF" "$@"; }

mkdir -p "$T/keys" "$T/orders"
for k in $(seq 0 $((K - 1))); do
	minisign -G -W -p "$T/keys/$k.pub" -s "$T/keys/$k.key" >/dev/null 2>&1
done
for c in $(seq 0 $((C - 1))); do
	hp campaign new "c$c" --ruleset fire-and-movement --seed "bench-$c" >/dev/null
	hp player add "c$c" blue --email "b$c@example.org" --key "$T/keys/$((c % K)).pub" >/dev/null
	hp orders template "c$c" --side blue >"$T/orders/c$c.tpl"
done
# The signed files: the template with a random nonce, one minisign -S each.
for i in $(seq 0 $((N - 1))); do
	c=$((i % C))
	f=$T/orders/$i.txt
	awk -v nonce="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" \
		'/^[ \t]*nonce:/ { print "nonce: " nonce; next } { print }' \
		"$T/orders/c$c.tpl" >"$f"
	minisign -S -s "$T/keys/$((c % K)).key" -m "$f" \
		-t "hexpost orders c$c turn 1" >/dev/null
done
# The mails, as contrib/hexpost-player builds them, into Dovecot's Maildir.
MD=$T/srv/mail/hexpost@localhost/Maildir
perl -MMIME::Base64 -e '
	my ($n, $c, $dir, $md) = @ARGV;
	sub slurp { local $/; open my $f, "<", $_[0] or die "$_[0]: $!"; my $d = <$f>; $d }
	for my $i (0 .. $n - 1) {
		my $camp = $i % $c;
		my $b = "hexpost-bench-$i";
		my $m = "From: b$camp\@example.org\r\nTo: hexpost\@localhost\r\n"
		    . "Subject: orders: c$camp turn 1 blue\r\n"
		    . "Date: Thu, 01 Jan 2026 00:00:00 +0000\r\n"
		    . "Message-ID: <bench.$i\@example.org>\r\nMIME-Version: 1.0\r\n"
		    . "Content-Type: multipart/mixed; boundary=\"$b\"\r\n\r\n"
		    . "--$b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
		    . "Signed orders attached.\r\n\r\n";
		for my $f ("orders.txt", "orders.txt.minisig") {
			my $src = $f eq "orders.txt" ? "$dir/$i.txt" : "$dir/$i.txt.minisig";
			(my $b64 = encode_base64(slurp($src))) =~ s/\n/\r\n/g;
			$m .= "--$b\r\nContent-Type: text/plain; charset=utf-8; name=\"$f\"\r\n"
			    . "Content-Disposition: attachment; filename=\"$f\"\r\n"
			    . "Content-Transfer-Encoding: base64\r\n\r\n$b64\r\n";
		}
		$m .= "--$b--\r\n";
		my $name = sprintf("1700000000.M%06dP1.bench", $i);
		open my $o, ">", "$md/tmp/$name" or die;
		print $o $m;
		close $o;
		rename "$md/tmp/$name", "$md/new/$name" or die;
	}' "$N" "$C" "$T/orders" "$MD"
chown -R "$SRV_UID:$SRV_GID" "$MD"
URL="imap://127.0.0.1:$IMAP_PORT/INBOX"
# Dovecot indexes the mailbox (untimed, for both contestants).
curl -sS -u hexpost@localhost:bench-pw "$URL" -X 'UID SEARCH ALL' >/dev/null
echo "setup: $C campaigns, $K minisign keys, $N signed mails in Dovecot in $((SECONDS - S0)) s"

echo "hexpost: fetch + intake + mark, one IMAP session"
"$dir/bench_imap" "$CONF" "$N" 2>&1 | tee "$T/hp.out"
HP_S=$(sed -n 's/^seconds //p' "$T/hp.out")

mkdir -p "$T/curl"
# The UIDs, as the loop would have to know them.
UIDS=$(curl -sS -u hexpost@localhost:bench-pw "$URL" -X 'UID SEARCH ALL' |
	tr -d '\r' | sed 's/^\* SEARCH//')
[ "$(echo $UIDS | wc -w)" -eq "$N" ] || { echo "bench_imap: UID SEARCH" >&2; exit 70; }
T0=$(date +%s.%N)
for uid in $UIDS; do
	curl -s -u hexpost@localhost:bench-pw "$URL;UID=$uid" -o "$T/curl/$uid.eml"
done
T1=$(date +%s.%N)
CURL_S=$(awk -v a="$T0" -v b="$T1" 'BEGIN { print b - a }')
[ "$(ls "$T/curl" | wc -l)" -eq "$N" ] || { echo "bench_imap: curl loop" >&2; exit 70; }
awk -v n="$N" -v c="$CURL_S" -v h="$HP_S" 'BEGIN {
	printf "curl: one `curl imap://...;UID=n` per message, %d messages in %.3f s (%.1f messages/s)\n", n, c, n / c
	printf "hexpost: %d messages in %.3f s (%.1f messages/s)\n", n, h, n / h
	printf "ratio curl/hexpost  %.2f  (target >= 5)  %s\n", c / h, ((c / h) >= 5 ? "PASS" : "FAIL")
}'
