#!/bin/bash
# hardening: the binary the README builds is hardened (issue 20, item 12):
# a position-independent executable, full RELRO (GNU_RELRO and BIND_NOW),
# a non-executable stack, the stack protector (__stack_chk_fail) and, but in
# Debug builds, fortified libc calls (__*_chk). Skipped (77) for sanitizer,
# fuzz and HEXPOST_HARDEN=OFF builds, read from the CMakeCache.txt next to
# the binary.
# Usage: bash hardening.sh /path/to/hexpost
set -u
HEXPOST=${1:?usage: hardening.sh /path/to/hexpost}
fail() {
	echo "hardening: FAIL: $*" >&2
	exit 1
}
command -v readelf >/dev/null || fail "readelf is not installed (binutils)"
cache=$(dirname "$HEXPOST")/CMakeCache.txt
btype=
if [ -f "$cache" ]; then
	if grep -Eq '^HEXPOST_(SANITIZE|FUZZ|TSAN):BOOL=ON' "$cache" ||
		grep -Eq '^HEXPOST_HARDEN:BOOL=OFF' "$cache"; then
		echo "hardening: skipped (not a hardened build)"
		exit 77
	fi
	btype=$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$cache")
fi
hdr=$(readelf -h "$HEXPOST") || fail "readelf -h"
dyn=$(readelf -d "$HEXPOST") || fail "readelf -d"
seg=$(readelf -lW "$HEXPOST") || fail "readelf -l"
sym=$(readelf -sW --dyn-syms "$HEXPOST") || fail "readelf -s"
echo "$hdr" | grep -Eq 'Type:[[:space:]]+DYN' || fail "not a PIE: $(echo "$hdr" | grep Type:)"
echo "$dyn" | grep -q 'FLAGS_1.*PIE' || fail "no PIE flag in the dynamic section"
echo "$seg" | grep -q 'GNU_RELRO' || fail "no GNU_RELRO segment"
echo "$dyn" | grep -Eq 'BIND_NOW|FLAGS.*NOW' || fail "no BIND_NOW: lazy binding leaves the GOT writable"
echo "$seg" | grep 'GNU_STACK' | grep -q 'RWE' && fail "executable stack"
echo "$sym" | grep -q '__stack_chk_fail' || fail "no stack protector (__stack_chk_fail)"
if [ "$btype" != Debug ]; then
	n=$(echo "$sym" | grep -Ec ' __[a-z_]+_chk(@|$)')
	[ "$n" -gt 0 ] || fail "no fortified calls (__*_chk)"
	echo "hardening: ok (PIE, full RELRO, stack protector, $n fortified functions)"
else
	echo "hardening: ok (PIE, full RELRO, stack protector; Debug: no _FORTIFY_SOURCE)"
fi
