#!/usr/bin/env bash
# The test command: install dependencies, build, run every test normally,
# build Release and run its unit tests,
# and under AddressSanitizer + UBSan, then run each fuzzer briefly.
# FUZZ_SECONDS (default 10) sets the fuzzing time per harness; 0 skips it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ "${HEXPOST_SKIP_DEPS:-0}" = 1 ] || bash scripts/deps.sh

passed=0
failed=0
run_suite() {
	local name=$1 dir=$2
	shift 2
	echo "=== $name: build"
	bash scripts/build.sh "$dir" "$@"
	echo "=== $name: test"
	if (cd "$dir" && ctest --output-on-failure -j2 --timeout 600 \
	    ${ONLY:+-R "$ONLY"}); then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
}

run_suite "plain build" "$top/build"
# The mail intake prepares messages on worker threads: its tests (and the
# mail end-to-end test, which goes through it) run under ThreadSanitizer.
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
ONLY="intake|mime|outbox" \
	run_suite "TSan build (intake)" "$top/build-tsan" -DHEXPOST_TSAN=ON \
	-DCMAKE_BUILD_TYPE=Debug
# Release must build with every warning an error too (optimisation finds
# more: -Wformat-overflow, -Wstringop-*); its unit tests run as well.
ONLY="^test_" run_suite "Release build" "$top/build-release" \
	-DCMAKE_BUILD_TYPE=Release
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_suite "ASan+UBSan build" "$top/build-asan" -DHEXPOST_SANITIZE=ON \
	-DCMAKE_BUILD_TYPE=Debug

if [ "${FUZZ_SECONDS:-10}" != 0 ]; then
	echo "=== fuzzers (${FUZZ_SECONDS:-10}s each)"
	if FUZZ_SECONDS=${FUZZ_SECONDS:-10} bash fuzz/run.sh "$top/build-fuzz"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
fi

echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
