#!/bin/bash
# attack_nonce: the operator grinds the nonce of an order file for the side
# the built-in opponent plays (issue 11, lever 1), as a hostile operator
# holding the server, its database and its key would: a Portable Wargame
# campaign, Blue a player with a key, Red the built-in opponent. With the
# campaign paused, Blue's signed orders are taken in by mail; then
#  1. `hexpost orders submit` refuses any file for Red, whatever its nonce,
#     saying why;
#  2. a patched server that writes such files into the database anyway
#     tries nonces on scratch copies (a loop bounded to 6 tries), resolves
#     each, keeps the one whose dice total is highest, plays it for real:
#     `hexpost audit`, `hexpost audit --bundle` and contrib/hexpost-audit.py
#     all fail, naming a file entered by hand for the opponent's side.
# Usage: bash attack_nonce.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
. "$(dirname "$0")/lib-attack.sh"
. "$(dirname "$0")/lib-reports.sh"
attack_start attack_nonce "${1:?usage: attack_nonce.sh /path/to/hexpost}"

hp campaign new war --ruleset portable-modern >/dev/null || fail "campaign new"
hp player add war blue --email blue@example.org --name Bea \
	--key "$T/blue.pub" >/dev/null || fail "player add"
hp moderate war pause >/dev/null 2>"$T/err" || fail "pause: $(cat "$T/err")"
send war blue
hp run --once >"$T/out" 2>"$T/err" || fail "run: $(cat "$T/err")"
grep -q "1 accepted" "$T/out" || fail "Blue's orders not taken in: $(cat "$T/out")"
W=$(sqlite3 "$DB" "SELECT id FROM windows WHERE state = 'open'")
[ -n "$W" ] || fail "no open window (the pause did not hold)"

# red_file N FILE: Red's orders as the opponent would give them, nonce N.
red_file() {
	hp orders suggest war --side red >"$2" || fail "suggest red"
	if grep -q '^nonce:' "$2"; then
		sed -i "s/^nonce:.*/nonce: $1/" "$2"
	else
		sed -i "s/^side: red\$/side: red\nnonce: $1/" "$2"
	fi
	grep -q "^nonce: $1\$" "$2" || fail "no nonce in $2"
}

# 1. Through hexpost itself: refused, whatever the nonce.
for n in 1 2 3; do
	red_file "$n" "$T/red.txt"
	hp orders submit war "$T/red.txt" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 65 ] || fail "orders submit for Red exited $rc: $(cat "$T/out" "$T/err")"
	grep -qF "red is played by the built-in opponent" "$T/err" ||
		fail "refusal does not say why: $(cat "$T/err")"
done
[ "$(sqlite3 "$DB" "SELECT count(*) FROM orders WHERE side_idx = 1")" = 0 ] ||
	fail "a refused file was stored"

# 2. A patched server: the grinding loop, bounded in tries.
inject() {	# inject DB FILE: Red's file as if entered on the command line
	local h
	h=$(b2sum -l 256 "$2" | cut -d' ' -f1)
	sqlite3 "$1" "INSERT INTO orders (window_id, side_idx, player_id, source,
	    raw, parsed, hash) VALUES ($W, 1, NULL, 'cli',
	    CAST(readfile('$2') AS TEXT), '', X'$h')" || fail "inject"
}
best=0 bestscore=-1 tries=0
for n in 1 2 3 4 5 6; do
	tries=$((tries + 1))
	scratch "$T/s"
	red_file "$n" "$T/try.txt"
	inject "$T/s/hexpost.db" "$T/try.txt"
	"$HEXPOST" --config "$T/s/hexpost.conf" turn resolve war >/dev/null \
		2>"$T/err" || fail "resolve try $n: $(cat "$T/err")"
	score=$(sqlite3 "$T/s/hexpost.db" "SELECT coalesce(sum(result), 0)
	    FROM dice WHERE window_id = $W")
	[ "$score" -gt "$bestscore" ] && { best=$n; bestscore=$score; }
done
[ "$tries" -le 6 ] && [ "$best" -gt 0 ] || fail "no try kept"
echo "attack_nonce: $tries tries, kept nonce $best (dice total $bestscore)"
red_file "$best" "$T/best.txt"
inject "$DB" "$T/best.txt"
hp moderate war resume >/dev/null 2>&1 || fail "resume"
hp turn resolve war >/dev/null 2>"$T/err" || fail "resolve: $(cat "$T/err")"
e2e_unpack "$DB"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM dice_logs WHERE text LIKE
    '%order: red cli %'")" = 1 ] || fail "the ground file is not in a dice log"

PHRASE="but the opponent line lists red as played by the built-in opponent"
caught_db war "$PHRASE"
hp audit export war "$T/bundle" >/dev/null 2>"$T/err" || fail "export: $(cat "$T/err")"
caught "$T/bundle" "$PHRASE"
echo "attack_nonce: ok"
