#!/usr/bin/env bash
# Build the benchmarks and run them all: bench/run.sh [GAMES [MESSAGES
# [TURNS]]] (defaults 2000, 1000 and 1000; bench_imap.sh needs dovecot-imapd,
# from scripts/deps.sh). BUILD_DIR picks the build directory (default
# build/); TMPDIR where bench_ingest makes its data directory.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${BUILD_DIR:-$top/build}
cmake -S "$top" -B "$dir" >/dev/null
cmake --build "$dir" -j"$(nproc)" --target bench_resolve bench_ingest bench_audit bench_simulate >/dev/null
export HEXPOST_SOURCE=$top
echo "== bench_simulate"
"$dir/bench_simulate"
echo
echo "== bench_resolve ${1:-2000}"
"$dir/bench_resolve" "${1:-2000}"
echo
echo "== bench_ingest ${2:-1000}"
"$dir/bench_ingest" "${2:-1000}"
echo
echo "== bench_audit ${3:-1000}"
"$dir/bench_audit" "${3:-1000}"
echo
echo "== bench_imap.sh ${2:-1000} (Dovecot on 127.0.0.1)"
BUILD_DIR=$dir bash "$top/bench/bench_imap.sh" "${2:-1000}"
