#!/usr/bin/env bash
# The main job on the embedded default: install, build, then play a whole
# game of fire-and-movement turn by turn through the hexpost command line.
# Blue's orders are written each turn by the built-in opponent (as a player
# would write them by hand), submitted, resolved, and Blue's report printed.
# Red is played by the built-in opponent. DEMO_SEED picks the dice.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ "${HEXPOST_SKIP_DEPS:-0}" = 1 ] || bash "$top/scripts/deps.sh" >/dev/null
bash "$top/scripts/build.sh" "$top/build" >/dev/null
hp="$top/build/hexpost"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HEXPOST_DB="$work/hexpost.db"

say() { printf '\n### %s\n' "$*"; }

say "hexpost init; a campaign of fire-and-movement; blue@example.org plays Blue"
"$hp" init
"$hp" campaign new hill --ruleset fire-and-movement --seed "${DEMO_SEED:-demo}"
"$hp" player add hill blue --email blue@example.org --name "Blue player"
"$hp" campaign show hill

for turn in $(seq 1 40); do
	if "$hp" campaign show hill | grep -q 'status   finished'; then
		break
	fi
	say "Turn $turn: Blue's order file"
	"$hp" orders suggest hill --side blue | tee "$work/orders.txt"
	say "hexpost orders submit hill orders.txt"
	"$hp" orders submit hill "$work/orders.txt"
	say "hexpost turn resolve hill"
	"$hp" turn resolve hill
	say "Turn $turn: Blue's report"
	"$hp" report hill --turn "$turn" --side blue
done
say "Final state"
"$hp" campaign list
