# lib-golden.sh: the golden seeded game that golden_game.sh and pw_game.sh
# play, one per ruleset (sourced, not a test itself). Source it, then:
#
#   golden_start TEST HEXPOST   $T, a temporary directory removed at exit;
#                               fail and hp (hexpost on $T/game.db) name TEST
#   golden_new NAME RULESET SEED  a fresh database with the campaign and
#                               Blue's player
#   golden_play NAME            Blue by 'orders suggest' (submitted like a
#                               player's), Red by the built-in opponent,
#                               until the game ends: $last, its last turn
#   golden_reports NAME         the moderator's report of every turn
#   golden_check FILE GOLDEN    FILE ends in a RESULT and equals GOLDEN;
#                               with HEXPOST_UPDATE_GOLDEN=1 it becomes
#                               GOLDEN instead (read the diff before
#                               committing it)

# golden_start TEST HEXPOST: the temporary directory and the environment.
golden_start() {
	TEST=$1
	HEXPOST=$2
	T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-$TEST.XXXXXX") || exit 1
	trap 'rm -rf "$T"' EXIT
	unset HEXPOST_TEMPLATES HEXPOST_DB
}

fail() {
	echo "$TEST: FAIL: $*" >&2
	exit 1
}

hp() {
	"$HEXPOST" --db "$T/game.db" "$@" || fail "hexpost $* exited $?"
}

# golden_new NAME RULESET SEED: the database, the campaign, Blue's player.
golden_new() {
	hp init >/dev/null
	hp campaign new "$1" --ruleset "$2" --seed "$3" >/dev/null
	hp player add "$1" blue --email blue@example.org >/dev/null
}

# golden_play NAME: play to the end (40 turns at most); sets $last.
golden_play() {
	local turn
	last=0
	for turn in $(seq 1 40); do
		hp orders suggest "$1" --side blue >"$T/orders.txt"
		hp orders submit "$1" "$T/orders.txt" >/dev/null
		hp turn resolve "$1" >/dev/null
		hp campaign show "$1" >"$T/show.txt"
		if grep -qF "status   finished" "$T/show.txt"; then
			last=$(awk '$1 == "turn" { print $2 }' "$T/show.txt")
			break
		fi
	done
	[ "$last" -gt 0 ] 2>/dev/null || fail "no result after 40 turns"
}

# golden_reports NAME: every turn's moderator's report, to stdout.
golden_reports() {
	local turn
	for turn in $(seq 1 "$last"); do
		hp report "$1" --turn "$turn"
	done
}

# golden_check FILE GOLDEN: compare (or with HEXPOST_UPDATE_GOLDEN=1
# rewrite GOLDEN); exits the test either way.
golden_check() {
	local got=$1 golden=$2
	grep -q "^RESULT: " "$got" || fail "the last report has no RESULT"
	if [ "${HEXPOST_UPDATE_GOLDEN:-}" = 1 ]; then
		mkdir -p "$(dirname "$golden")"
		cp "$got" "$golden" || fail "cannot write $golden"
		echo "$TEST: wrote $golden ($(wc -l <"$golden") lines," \
		    "$last turns)"
		exit 0
	fi
	[ -f "$golden" ] || fail "no $golden (run with HEXPOST_UPDATE_GOLDEN=1)"
	if ! diff -u "$golden" "$got"; then
		fail "the game differs from $golden (if the change is intended," \
		    "rerun with HEXPOST_UPDATE_GOLDEN=1 and review the diff)"
	fi
	echo "$TEST: ok ($last turns)"
	exit 0
}
