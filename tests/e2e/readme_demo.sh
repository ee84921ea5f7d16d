#!/bin/bash
# readme_demo: the README's first command (contrib/demo.sh, the main job on
# the embedded default: local Maildirs, no mail server) still plays a whole
# game by signed mail, shows a refusal, ends, and passes the audit and the
# stock minisign check it promises. Run with the suite's binary.
# Usage: bash readme_demo.sh /path/to/hexpost
set -u
HEXPOST=${1:?usage: readme_demo.sh /path/to/hexpost}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-demo.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

fail() {
	echo "readme_demo: FAIL: $*" >&2
	tail -40 "$T/out" >&2
	exit 1
}

HEXPOST_SKIP_DEPS=1 HEXPOST_BIN=$HEXPOST bash "$SRC/contrib/demo.sh" \
	>"$T/out" 2>&1 || fail "contrib/demo.sh exited $?"
for want in "could not accept" "RESULT: " "audit of hill: OK" \
    "seed chain statement signed when the campaign was created" \
    "Signature and comment signature verified" "[attached: map-turn1-" \
    "pictures/map-turn"; do
	grep -qF -- "$want" "$T/out" || fail "no '$want' in the demo's output"
done
echo "readme_demo: ok"
