#!/bin/bash
# systemd_units: the units in contrib/systemd/ (issue 20, item 11) pass
# `systemd-analyze verify` and score at most 2.0 ("OK") in
# `systemd-analyze security --offline=yes`, with the settings the sandbox
# relies on present (empty capability set, a system call filter,
# MemoryDenyWriteExecute, the configuration outside the writable paths,
# passwords as credentials, never Environment=...PASSWORD). Offline: no
# systemd needs to run (the systemd package is in scripts/deps.sh).
# Usage: bash systemd_units.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start systemd_units "${1:?usage: systemd_units.sh /path/to/hexpost}" \
	systemd-analyze
MAX=2.0
HEXPOST=$(cd "$(dirname "$HEXPOST")" && pwd)/$(basename "$HEXPOST")
for unit in hexpost.service hexpost-once.service; do
	STEP=$unit
	u=$SRC/contrib/systemd/$unit
	# verify checks ExecStart= exists: point it at the built binary.
	sed "s#/usr/local/bin/hexpost#$HEXPOST#" "$u" >"$T/$unit"
	cp "$SRC/contrib/systemd/hexpost-once.timer" "$T/"
	systemd-analyze verify --man=no "$T/$unit" >"$T/verify" 2>&1 ||
		fail "verify: $(cat "$T/verify")"
	grep -v -e "^$" "$T/verify" | grep -qiv "user.*hexpost.*not" &&
		fail "verify warnings: $(cat "$T/verify")"
	systemd-analyze security --offline=yes --no-pager "$T/$unit" \
		>"$T/sec" 2>&1 || fail "security: $(cat "$T/sec")"
	score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$T/sec")
	[ -n "$score" ] || fail "no score: $(cat "$T/sec")"
	awk -v s="$score" -v m="$MAX" 'BEGIN { exit !(s <= m) }' ||
		fail "exposure $score > $MAX: $(grep '✗' "$T/sec")"
	for want in '^CapabilityBoundingSet=$' '^PrivateDevices=yes' \
		'^MemoryDenyWriteExecute=yes' '^SystemCallFilter=@system-service' \
		'^StateDirectory=hexpost' '^ProtectSystem=strict' \
		'^RestrictAddressFamilies=' '^LoadCredential=imap_password:' \
		'^LoadCredential=smtp_password:' \
		'^Environment=HEXPOST_CONFIG=/etc/hexpost/hexpost.conf'; do
		grep -q -- "$want" "$u" || fail "no $want"
	done
	grep -Eq '^Environment=.*PASSWORD' "$u" &&
		fail "a password in the environment (readable by any user)"
	grep -Eq '^ReadWritePaths=.*/etc' "$u" &&
		fail "the configuration is writable by the daemon"
	echo "$unit: exposure $score"
done
echo "systemd_units: ok"
