#!/bin/bash
# bench_smoke: the bench programs still run to their figures. Not a
# measure (sizes far too small for that; their figures and PASS/FAIL are
# not read): each must exit 0 and print the line with its ratio, so a
# change of the program that breaks a bench's set-up is seen by the tests,
# not by the next person measuring (bench_audit stopped at its first
# campaign for weeks once the audit refused unsigned seed chains).
# bench_store and the shell benches (bench_imap.sh, bench_latency.sh) are
# left out: their smallest runs take minutes or need the mail servers.
# Usage: bash bench_smoke.sh /path/to/hexpost   (the benches beside it)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start bench_smoke "${1:?usage: bench_smoke.sh /path/to/hexpost}" minisign
BIN=$(cd "$(dirname "$HEXPOST")" && pwd)

# bench NAME LINE ARGS...: run bench NAME with ARGS (TMPDIR=$T); it must
# exit 0 and print a line starting with LINE.
bench() {
	local name=$1 line=$2 rc
	shift 2
	STEP=$name
	[ -x "$BIN/$name" ] || fail "$BIN/$name is not built"
	TMPDIR=$T HEXPOST_SOURCE=$SRC "$BIN/$name" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "exited $rc: $(tail -n 5 "$T/err" "$T/out")"
	grep -q "^$line" "$T/out" || fail "no line '$line...': $(cat "$T/out")"
}

bench bench_audit '  audit / processing: ' 20
bench bench_resolve 'ratio: resolution takes ' 20
bench bench_ingest 'ratio ingest/bare ' 20 5
bench bench_simulate '  ratio  ' 0.05 fire-and-movement
exit 0
