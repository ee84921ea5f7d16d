#!/bin/bash
# scenario_cli: scenarios as files through the command line (issue 10):
# 'scenario list' shows the shipped ones; 'scenario check' passes a good
# file with its hash and placeholders, lists every error of a bad one with
# its line (exit 65); 'campaign new --scenario FILE' starts a campaign from
# a file written from docs/SCENARIOS.md alone, which plays to its end; the
# audit bundle carries the file; a moved or deleted file changes nothing
# for the campaign, which keeps the text it started from.
# Usage: bash scenario_cli.sh /path/to/hexpost
set -u

HEXPOST=${1:?usage: scenario_cli.sh /path/to/hexpost}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-scn.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export HEXPOST_DB="$T/game.db"

fail() {
	echo "scenario_cli: FAIL: $*" >&2
	exit 1
}

run() {
	local want=$1 rc
	shift
	"$HEXPOST" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		cat "$T/out" "$T/err" >&2
		fail "hexpost $* exited $rc, want $want"
	fi
}

has() {
	grep -qF -- "$2" "$T/$1" || {
		cat "$T/$1" >&2
		fail "expected '$2' in $1"
	}
}

run 0 scenario list
has out "river-crossing"
has out "empty"

run 0 scenario check "$SRC/scenarios/portable-modern/river-crossing.scn"
has out "ok: portable-modern scenario river-crossing"
has out "line 102, turns: the seed sets no turn limit"

# A file with mistakes: every one listed with its line, exit 65.
cp "$SRC/tests/data/scenarios/crossroads.scn" "$T/battle.scn"
sed -i 's/^unit: b2 infantry blue C5 n average$/unit: b2 dragoon blue C5 n average/;
    s/^terrain: ...B....$/terrain: ...B...../' "$T/battle.scn"
run 65 scenario check "$T/battle.scn"
has err "battle.scn: 1 error:"
has err "terrain: 9 cells, but \"map:\" (line 6) says 8 columns"
sed -i 's/^terrain: ...B.....$/terrain: ...B..../' "$T/battle.scn"
run 65 scenario check "$T/battle.scn"
has err "line 31: unit: no unit kind \"dragoon\""
run 65 scenario check --options nonsense "$SRC/tests/data/scenarios/crossroads.scn"
has err "unknown option 'nonsense'"
run 66 scenario check "$T/none.scn"
run 64 scenario check

run 0 init
# A bad file starts nothing.
run 65 campaign new bad --ruleset portable-modern --scenario "$T/battle.scn"
has err "the scenario has 1 error ('hexpost scenario check' lists them all); the first: line 31: unit: no unit kind"
run 65 campaign new bad --ruleset portable-modern --scenario desert
has err "shipped: empty, river-crossing"
run 65 campaign new bad --ruleset fire-and-movement --scenario "$T/battle.scn"
has err 'the file is for "portable-modern", not "fire-and-movement"'
run 0 campaign list
[ -s "$T/out" ] && grep -q bad "$T/out" && fail "a refused campaign exists"

# The file written from the documentation alone: a campaign that plays.
cp "$SRC/tests/data/scenarios/crossroads.scn" "$T/crossroads.scn"
run 0 campaign new cr --ruleset portable-modern --scenario "$T/crossroads.scn" \
	--seed crossroads
run 0 campaign show cr
has out "scenario crossroads"
has out "Blue (from the south)"
rm "$T/crossroads.scn"	# the campaign keeps the text it started from
run 0 turn resolve cr
run 0 campaign show cr
has out "finished"
run 0 map cr
has out "G5W^"
run 0 audit export cr "$T/bundle"
cmp -s "$T/bundle/scenario.scn" "$SRC/tests/data/scenarios/crossroads.scn" ||
	fail "the bundle's scenario.scn is not the file played"
echo "scenario_cli: ok"
