# lib-attack.sh: helpers for the attack suite (tests/e2e/attack_*.sh), which
# plays a hostile operator holding the server, its database and its key,
# but no player's key (docs/AUDIT.md, "Threat model"). Sourced, not a test.
#
#   attack_start NAME HEXPOST   $T (removed at exit), $D the data directory
#                               (hexpost init --datadir), $DB, $CONF, the
#                               players' keys $T/blue.key/.pub, $T/red.*
#   hp ARGS                     hexpost --config $CONF ARGS
#   fail MSG                    the test fails, naming MSG
#   send CAMPAIGN SIDE          the built-in opponent's suggestion for SIDE,
#                               with a random nonce, signed with SIDE's key,
#                               mailed into the inbox (contrib/hexpost-player)
#   scratch DIR                 a copy of the data directory in DIR, its
#                               configuration pointing at it: for trying
#                               things the operator would not show anyone
#   caught BUNDLE PHRASE        `hexpost audit --bundle` and
#                               contrib/hexpost-audit.py both fail on
#                               BUNDLE, each naming PHRASE
#   caught_db CAMPAIGN PHRASE   `hexpost audit CAMPAIGN` fails naming PHRASE

attack_start() {
	TEST=$1
	HEXPOST=$2
	SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
	PLAYER=$SRC/contrib/hexpost-player
	PYAUDIT=$SRC/contrib/hexpost-audit.py
	T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-$TEST.XXXXXX") || exit 1
	trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
	unset HEXPOST_TEMPLATES HEXPOST_DB HEXPOST_CONFIG HEXPOST_NOW
	for tool in minisign sqlite3 python3 b2sum; do
		command -v "$tool" >/dev/null || fail "$tool is not installed"
	done
	D=$T/data
	CONF=$D/hexpost.conf
	DB=$D/hexpost.db
	"$HEXPOST" init --datadir "$D" >/dev/null 2>"$T/err" ||
		fail "init: $(cat "$T/err")"
	for who in blue red; do
		minisign -G -W -p "$T/$who.pub" -s "$T/$who.key" >/dev/null 2>&1 ||
			fail "minisign -G $who"
	done
}

fail() {
	echo "$TEST: FAIL: $*" >&2
	exit 1
}

hp() {
	"$HEXPOST" --config "$CONF" "$@"
}

send() {
	hp orders suggest "$1" --side "$2" >"$T/suggest.txt" ||
		fail "orders suggest $1 $2"
	bash "$PLAYER" -t hexpost@localhost -f "$2@example.org" \
		-k "$T/$2.key" --maildir "$D/inbox" "$T/suggest.txt" >/dev/null ||
		fail "hexpost-player $2"
}

scratch() {
	rm -rf "$1"
	cp -r "$D" "$1" || fail "cp"
	sed -i "s|$D|$1|g" "$1/hexpost.conf" || fail "sed"
}

caught() {
	local rc
	"$HEXPOST" audit --bundle "$1" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 65 ] || fail "hexpost audit --bundle exited $rc, want 65: $(cat "$T/out" "$T/err")"
	grep -qF -- "$2" "$T/err" ||
		fail "hexpost audit --bundle: expected '$2' in: $(cat "$T/err")"
	python3 "$PYAUDIT" "$1" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] || fail "hexpost-audit.py exited $rc, want 1: $(cat "$T/out" "$T/err")"
	grep -qF -- "$2" "$T/err" ||
		fail "hexpost-audit.py: expected '$2' in: $(cat "$T/err")"
}

caught_db() {
	local rc
	hp audit "$1" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 65 ] || fail "hexpost audit exited $rc, want 65: $(cat "$T/out" "$T/err")"
	grep -qF -- "$2" "$T/err" ||
		fail "hexpost audit: expected '$2' in: $(cat "$T/err")"
}
