#!/bin/bash
# simulate_jobs: `hexpost simulate` on several worker processes prints the
# same results as on one (only the timing line differs), whether the
# number comes from --jobs or HEXPOST_JOBS; a bad --jobs is a usage error.
# Usage: bash simulate_jobs.sh /path/to/hexpost
set -u
. "$(dirname "$0")/lib-e2e.sh"
e2e_start simulate_jobs "${1:?usage: simulate_jobs.sh /path/to/hexpost}"

# results RULESET GAMES JOBS: simulate's output without its timing line
# into $T/RULESET.JOBS; the timing line must name the jobs used.
results() {
	e2e_run 0 simulate --ruleset "$1" --games "$2" --jobs "$3" \
	    --seed e2e-jobs
	grep -q "games per second (.* s, $3 jobs\?)" "$T/out" ||
		fail "$1: no timing line with $3 job(s): $(cat "$T/out")"
	grep -v "games per second" "$T/out" >"$T/$1.$3"
}

for spec in fire-and-movement:300 portable-modern:6 platoon:3; do
	rules=${spec%%:*} games=${spec##*:}
	results "$rules" "$games" 1
	results "$rules" "$games" 2
	results "$rules" "$games" 3
	cmp -s "$T/$rules.1" "$T/$rules.2" ||
		fail "$rules: 2 jobs differ from 1: $(diff "$T/$rules.1" "$T/$rules.2")"
	cmp -s "$T/$rules.1" "$T/$rules.3" ||
		fail "$rules: 3 jobs differ from 1: $(diff "$T/$rules.1" "$T/$rules.3")"
	grep -q "windows resolved [1-9]" "$T/$rules.1" ||
		fail "$rules: no windows resolved"
done

# HEXPOST_JOBS sets the default; --jobs 0 and --jobs x are refused.
HEXPOST_JOBS=2 "$HEXPOST" simulate --ruleset fire-and-movement --games 10 \
    >"$T/out" 2>"$T/err" || fail "HEXPOST_JOBS=2: $(cat "$T/err")"
grep -q "(.* s, 2 jobs)" "$T/out" || fail "HEXPOST_JOBS=2 not used: $(cat "$T/out")"
e2e_run 64 simulate --ruleset fire-and-movement --jobs 0
e2e_run 64 simulate --ruleset fire-and-movement --jobs x

echo "simulate_jobs: ok"
