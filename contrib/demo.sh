#!/usr/bin/env bash
# The main job on the embedded default, on a fresh machine: install, build,
# create a data directory (configuration, database, inbox and outbox
# Maildirs, server key), and play a whole game of fire-and-movement by
# signed mail. Each turn Blue's player writes an order file, signs it with
# the real minisign and mails it (contrib/hexpost-player, delivering into the
# inbox Maildir); `hexpost run --once` takes the mail in, resolves the turn
# and writes the acknowledgement and the reports into the outbox Maildir,
# which is shown. Red is the built-in opponent. Turn 2 starts with a
# mistake, to show a refusal. The dice are real (a signed seed chain);
# DEMO_SEED=TEXT replays the same dice as a test campaign instead. DEMO_DIR
# keeps the data directory instead of a temporary one.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ "${HEXPOST_SKIP_DEPS:-0}" = 1 ] || bash "$top/scripts/deps.sh" >/dev/null
# HEXPOST_BIN: a hexpost already built (the test suite's), else build one.
if [ -n "${HEXPOST_BIN:-}" ]; then
	hp=$HEXPOST_BIN
else
	bash "$top/scripts/build.sh" "$top/build" >/dev/null
	hp="$top/build/hexpost"
fi
if [ -n "${DEMO_DIR:-}" ]; then
	work=$DEMO_DIR
	rm -rf "$work"
	mkdir -p "$work"
else
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
fi
data="$work/data"

say() { printf '\n### %s\n' "$*"; }
# Show the messages that landed in the outbox since the last call.
shown="$work/shown"
: > "$shown"
show_outbox() {
	local f
	for f in $(sqlite3 "$data/hexpost.db" \
	    "SELECT message_id FROM outbox WHERE state = 'sent' ORDER BY id"); do
		grep -qxF "$f" "$shown" && continue
		echo "$f" >> "$shown"
		echo "----- outbox/new/$f"
		# The text part; an attachment (the map's picture) by its name.
		awk 'BEGIN { h = 1 }
		     h && /^(From|To|Subject|X-Hexpost-Topic|Auto-Submitted):/ { print; next }
		     h && /^\r?$/ { h = 0; print ""; next }
		     h { next }
		     /^--=-[^ ]*\r?$/ { ph = 1; att = 0; name = ""; next }
		     ph && /filename=/ { att = 1; name = $0; sub(/.*filename="?/, "", name); sub(/"?\r?$/, "", name) }
		     ph && /^\r?$/ { ph = 0; if (att) print "[attached: " name "]"; next }
		     ph || att { next }
		     { print }' "$data/outbox/new/$f"
	done
}
# Blue's player: write the order file, sign it, mail it.
send_orders() {
	"$top/contrib/hexpost-player" -t hexpost@localhost \
	    -f blue@example.org -k "$work/blue.key" --maildir "$data/inbox" \
	    "$1" >/dev/null
}

say "hexpost init --datadir: configuration, database, Maildirs, server key"
"$hp" init --datadir "$data"
export HEXPOST_CONFIG="$data/hexpost.conf"
say "Blue's player makes a minisign key pair; the moderator registers it"
minisign -G -W -p "$work/blue.pub" -s "$work/blue.key" >/dev/null
# Real dice by default: a seed chain drawn now, its head signed by the
# server key and mailed to the player. DEMO_SEED=TEXT replays a game, but
# such test dice prove nothing, so the audit must then be told to accept them.
seed=() accept=()
if [ -n "${DEMO_SEED:-}" ]; then
	seed=(--seed "$DEMO_SEED")
	accept=(--accept-test-dice)
fi
"$hp" campaign new hill --ruleset fire-and-movement "${seed[@]}"
"$hp" player add hill blue --email blue@example.org --name "Blue player" \
    --key "$work/blue.pub"
"$hp" run --once >/dev/null
show_outbox

for turn in $(seq 1 40); do
	if "$hp" campaign show hill | grep -q 'status   finished'; then
		break
	fi
	if [ "$turn" = 2 ]; then
		say "Turn 2: Blue sends an order file with a mistake"
		{
			"$hp" orders template hill --side blue | grep -v '^#'
			echo "move 1 B9"
			echo "charge!"
		} > "$work/orders.txt"
		cat "$work/orders.txt"
		send_orders "$work/orders.txt"
		say "hexpost run --once"
		"$hp" run --once
		show_outbox
	fi
	say "Turn $turn: Blue writes orders.txt, signs it with minisign and mails it"
	"$hp" orders suggest hill --side blue > "$work/orders.txt"
	cat "$work/orders.txt"
	send_orders "$work/orders.txt"
	say "hexpost run --once"
	"$hp" run --once
	show_outbox
done
say "Final state"
"$hp" campaign list
say "The moderator audits the game: signatures, commitments, every die, the chain, a replay"
"$hp" audit "${accept[@]}" hill
"$hp" audit export hill "$work/hill-audit" >/dev/null
say "Anyone checks a window's dice log with the stock minisign tool"
minisign -V -p "$data/server.pub" -m "$work/hill-audit/windows/0001/dice-log.txt"
say "The pictures of the map attached to the last reports"
last=$(sqlite3 "$data/hexpost.db" "SELECT message_id FROM outbox WHERE kind =
    'report' ORDER BY id DESC LIMIT 1")
"$top/contrib/hexpost-attachments" "$work/pictures" "$data/outbox/new/$last"
"$hp" picture hill --side blue > "$work/pictures/hill-blue-now.png"
echo "$work/pictures/hill-blue-now.png (hexpost picture hill --side blue)"
echo
echo "Data directory: $data (inbox and outbox are Maildirs)"
