#!/usr/bin/env bash
# Build the libFuzzer harnesses with clang and run each for a while.
#
#   fuzz/run.sh [BUILD_DIR]      (default: build-fuzz in the source tree)
#
# Every fuzz/fuzz_NAME.c is built (cmake -DHEXPOST_FUZZ=ON, clang, ASan and
# UBSan) and run for ${FUZZ_SECONDS:-20} seconds on a temporary copy of
# fuzz/corpus/NAME, so the committed corpus is never modified. A dictionary
# fuzz/NAME.dict is used if present. Crash, leak and timeout reproducers are
# kept in BUILD_DIR/fuzz-artifacts/NAME/. Exits non-zero if any fuzzer
# fails (or the build does).
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$src/build-fuzz}
seconds=${FUZZ_SECONDS:-20}

case $seconds in
'' | *[!0-9]*)
	echo "run.sh: FUZZ_SECONDS must be a whole number of seconds" >&2
	exit 64
	;;
esac

mkdir -p "$build"
build=$(cd "$build" && pwd)

cmake -S "$src" -B "$build" -DHEXPOST_FUZZ=ON -DCMAKE_C_COMPILER=clang \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

names=()
for f in "$src"/fuzz/fuzz_*.c; do
	[ -e "$f" ] || continue
	n=$(basename "$f" .c)
	names+=("$n")
done
if [ ${#names[@]} -eq 0 ]; then
	echo "run.sh: no fuzz/fuzz_*.c harness" >&2
	exit 1
fi
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" \
	--target "${names[@]}"

work=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

failed=()
for n in "${names[@]}"; do
	short=${n#fuzz_}
	corpus=$work/corpus-$short
	artifacts=$build/fuzz-artifacts/$short
	mkdir -p "$corpus" "$artifacts"
	if [ -d "$src/fuzz/corpus/$short" ]; then
		cp -R "$src/fuzz/corpus/$short/." "$corpus/"
	else
		echo "run.sh: no fuzz/corpus/$short; starting from nothing" >&2
	fi
	args=(-max_total_time="$seconds" -print_final_stats=1
		-artifact_prefix="$artifacts/")
	if [ -f "$src/fuzz/$short.dict" ]; then
		args+=(-dict="$src/fuzz/$short.dict")
	fi
	echo "== $n: ${seconds}s on fuzz/corpus/$short"
	log=$work/$n.log
	if (cd "$work" && "$build/$n" "${args[@]}" "$corpus") >"$log" 2>&1; then
		grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)' \
			"$log" || true
		grep -E '^Done' "$log" || true
		echo "== $n: ok"
	else
		rc=$?
		tail -n 60 "$log"
		echo "== $n: FAILED (exit $rc); reproducers in $artifacts" >&2
		failed+=("$n")
	fi
done

if [ ${#failed[@]} -ne 0 ]; then
	echo "run.sh: failed: ${failed[*]}" >&2
	exit 1
fi
echo "run.sh: all fuzzers ran ${seconds}s without a crash"
