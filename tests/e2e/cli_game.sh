#!/bin/bash
# cli_game: a whole seeded game through the command line (Blue played with
# 'orders suggest', Red by the built-in opponent), then the exit codes of
# bad invocations (sysexits: usage 64, data 65, no input 66, temporary
# failure 75) and --help for every subcommand.
# Usage: bash cli_game.sh /path/to/hexpost
set -u

HEXPOST=${1:?usage: cli_game.sh /path/to/hexpost}
T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
unset HEXPOST_TEMPLATES
export HEXPOST_DB="$T/game.db"
NAME=hill

fail() {
	echo "cli_game: FAIL: $*" >&2
	exit 1
}

# run WANT CMD...: run hexpost with CMD, output in $T/out and $T/err; the
# exit status must be WANT.
run() {
	local want=$1 rc
	shift
	"$HEXPOST" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "--- stdout" >&2
		cat "$T/out" >&2
		echo "--- stderr" >&2
		cat "$T/err" >&2
		fail "hexpost $* exited $rc, want $want"
	fi
}

# has FILE TEXT: FILE (out or err) contains the fixed string TEXT.
has() {
	grep -qF -- "$2" "$T/$1" || {
		cat "$T/$1" >&2
		fail "expected '$2' in $1"
	}
}

hasnt() {
	if grep -qF -- "$2" "$T/$1"; then
		cat "$T/$1" >&2
		fail "did not expect '$2' in $1"
	fi
}

# Before init there is no database.
run 66 campaign list
has err "no database"
run 66 --db "$T/nowhere/x.db" campaign show "$NAME"
[ ! -e "$T/nowhere" ] || fail "a missing --db directory was created"
[ ! -e "$HEXPOST_DB" ] || fail "campaign list created the database"

run 0 init
has out "schema version "
run 0 init
has out "schema version "
run 0 campaign new "$NAME" --ruleset fire-and-movement --seed cli-e2e
has out "campaign $NAME created"
has out "for tests and demos only"
run 75 campaign new "$NAME" --ruleset fire-and-movement
has err "already exists"
run 66 campaign new other --ruleset no-such-rules
run 0 player add "$NAME" blue --email blue@example.org --name Bea
has out "blue@example.org plays blue in $NAME"
run 65 player add "$NAME" green --email g@example.org

run 0 campaign show "$NAME"
has out "status   active"
has out "waiting for: blue"
has out "player Bea"
run 0 campaign list
has out "$NAME"
has out "active"

# Nothing to resolve yet: Blue's orders are missing.
run 75 turn resolve "$NAME"
has err "waiting for orders from blue"

# Rejected orders: exit 65, the line of each problem, nothing stored.
cat >"$T/bad.txt" <<EOF
campaign: $NAME
turn: 1
window: blue
side: blue
deploy 1 A0
deploy 2 Q7
deploy 3 C0
move 9 A1
EOF
run 65 orders submit "$NAME" "$T/bad.txt"
has err "nothing changed"
has err "line 6:"
has err "line 8:"
run 0 campaign show "$NAME"
has out "waiting for: blue"
sed "s/^turn: 1/turn: 2/" "$T/bad.txt" >"$T/badturn.txt"
run 65 orders submit "$NAME" "$T/badturn.txt"
has err "open window is turn 1"
sed "s/^campaign: .*/campaign: elsewhere/" "$T/bad.txt" >"$T/badname.txt"
run 65 orders submit "$NAME" "$T/badname.txt"
has err "not '$NAME'"
run 74 orders submit "$NAME" "$T/no-such-file.txt"

# The template names the campaign, turn, window and side.
run 0 orders template "$NAME" --side blue
has out "campaign: $NAME"
has out "window: blue"
has out "side: blue"
run 65 orders template "$NAME" --side green
run 75 orders suggest "$NAME" --side red
has err "red sends no orders"

# Play the game out.
finished=0
for turn in $(seq 1 40); do
	run 0 orders suggest "$NAME" --side blue
	cp "$T/out" "$T/orders.txt"
	grep -q "^turn: $turn\$" "$T/orders.txt" ||
	    fail "turn $turn: suggested orders are for another turn"
	run 0 orders submit "$NAME" "$T/orders.txt"
	has out "accepted the orders for turn $turn window 'blue'"
	run 0 orders submit "$NAME" - <"$T/orders.txt"
	has out "(replacing the earlier file)"
	run 0 turn resolve "$NAME"
	has out "resolved"
	run 0 report "$NAME" --turn "$turn"
	has out "Turn $turn, window 'blue' resolved"
	run 0 campaign show "$NAME"
	if grep -qF "status   finished" "$T/out"; then
		finished=$turn
		break
	fi
	has out "turn     $((turn + 1))"
done
[ "$finished" -gt 0 ] || fail "no result after 40 turns"

run 0 report "$NAME"
has out "RESULT: "
has out "Report for the moderator"
run 0 report "$NAME" --side blue
has out "RESULT: "
has out "Report for Blue"
run 0 report "$NAME" --turn 1 --side red
has out "Turn 1, window 'blue' resolved. Report for Red"
run 66 report "$NAME" --turn $((finished + 1))
run 65 report "$NAME" --side green
run 66 report no-such-campaign
run 0 campaign list
has out "finished"
grep -E "^$NAME +fire-and-movement +finished +turn $finished " "$T/out" \
    >/dev/null || fail "campaign list: $(cat "$T/out")"
run 0 map "$NAME" --side blue
has out "Victory counter"

# After the end: nothing more to submit or resolve.
run 65 orders submit "$NAME" "$T/orders.txt"
has err "has ended"
run 75 turn resolve "$NAME"
has err "has ended"
run 75 orders suggest "$NAME"
has err "has ended"

# Usage errors.
run 64
run 64 frobnicate
run 64 --no-such-option campaign list
run 64 campaign
run 64 campaign frob
run 64 campaign new
run 64 campaign new x
run 64 campaign new x y --ruleset fire-and-movement
run 64 campaign show
run 64 campaign list extra
run 64 player add "$NAME" blue
run 64 player add "$NAME" blue --email no-at-sign
run 64 orders submit "$NAME"
run 64 orders template
run 64 turn resolve
run 64 turn resolve "$NAME" extra
run 64 report "$NAME" --turn zero
run 64 report "$NAME" --bogus
run 64 simulate
run 64 simulate --ruleset fire-and-movement --games -3
has err "usage: hexpost"

# --help everywhere, with the usage line of that command.
run 0 --help
has err "usage: hexpost"
run 0 --version
has out "hexpost "
while IFS='|' read -r cmd line; do
	# shellcheck disable=SC2086
	run 0 $cmd --help
	has err "usage: hexpost [--db PATH] $line"
done <<'EOF'
init|init
campaign new|campaign new NAME
campaign list|campaign list
campaign show|campaign show NAME
player add|player add NAME SIDE
orders submit|orders submit NAME FILE
orders template|orders template NAME
orders suggest|orders suggest NAME
turn resolve|turn resolve NAME
map|map NAME
report|report NAME
rules list|rules list
simulate|simulate --ruleset R
EOF
run 0 rules list
has out "fire-and-movement"

echo "cli_game: ok ($finished turns)"
