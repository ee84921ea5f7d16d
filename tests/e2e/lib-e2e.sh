# lib-e2e.sh: the start the daemon's e2e tests share (sourced, not a test
# itself). Source it, then:
#
#   e2e_start TEST HEXPOST [TOOL...]
#                  TEST names the test in messages, HEXPOST is the binary;
#                  $T is a temporary directory, removed at exit (kept if
#                  KEEP is set); hexpost's environment variables are unset;
#                  fails unless every TOOL is installed
#   e2e_at_exit CMD  also run CMD (a string, eval'd) at exit, in order,
#                  before $T goes: e.g. a daemon killed by its pid
#   fail MSG...    "TEST: FAIL [STEP]: MSG..." on stderr ([STEP] if $STEP
#                  is set) and exit 1; a test may define fail_hook to add
#                  what it knows (called after the message)
#   e2e_datadir    D (a data directory made by 'hexpost init --datadir'),
#                  its CONF and DB, and W (a work directory)
#   e2e_keys NAME...  $T/NAME.key and $T/NAME.pub, made by the real
#                  minisign CLI (-W: no password)
#   decoded FILE   the message with its quoted-printable body decoded
#   e2e_run WANT ARGS...  run "$HEXPOST" ARGS, output in $T/out and $T/err;
#                  fails (showing both) unless it exits WANT
#   e2e_has FILE TEXT  $T/FILE (out or err) contains the fixed string TEXT

E2E_AT_EXIT=()

e2e_cleanup() {
	local cmd
	for cmd in "${E2E_AT_EXIT[@]}"; do
		eval "$cmd"
	done
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}

# e2e_start TEST HEXPOST [TOOL...]: see above.
e2e_start() {
	local tool
	TEST=$1
	HEXPOST=$2
	shift 2
	T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-$TEST.XXXXXX") || exit 1
	trap e2e_cleanup EXIT
	unset HEXPOST_TEMPLATES HEXPOST_DB HEXPOST_CONFIG HEXPOST_NOW \
		HEXPOST_IMAP_PASSWORD HEXPOST_SMTP_PASSWORD
	for tool in "$@"; do
		command -v "$tool" >/dev/null || fail "$tool is not installed"
	done
}

# e2e_at_exit CMD: see above.
e2e_at_exit() {
	E2E_AT_EXIT+=("$1")
}

fail() {
	echo "$TEST: FAIL${STEP:+ [$STEP]}: $*" >&2
	declare -F fail_hook >/dev/null && fail_hook
	exit 1
}

# e2e_datadir: see above.
e2e_datadir() {
	D=$T/data
	CONF=$D/hexpost.conf
	DB=$D/hexpost.db
	W=$T/work
	mkdir -p "$W"
	"$HEXPOST" init --datadir "$D" >/dev/null 2>"$T/err" ||
		fail "init --datadir: $(cat "$T/err")"
}

# e2e_keys NAME...: see above.
e2e_keys() {
	local who
	for who in "$@"; do
		minisign -G -W -p "$T/$who.pub" -s "$T/$who.key" >/dev/null 2>&1 ||
			fail "minisign -G $who"
	done
}

# decoded FILE: see above.
decoded() {
	perl -MMIME::QuotedPrint -0777 -ne '
		my ($h, $b) = split /\n\n/, $_, 2;
		$b = decode_qp($b) if $h =~ /^Content-Transfer-Encoding:\s*quoted-printable/mi;
		print "$h\n\n$b";' "$1"
}

# e2e_run WANT ARGS...: see above.
e2e_run() {
	local want=$1 rc
	shift
	"$HEXPOST" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq "$want" ] || {
		cat "$T/out" "$T/err" >&2
		fail "hexpost $* exited $rc, want $want"
	}
}

# e2e_has FILE TEXT: see above.
e2e_has() {
	grep -qF -- "$2" "$T/$1" || {
		cat "$T/$1" >&2
		fail "$1 lacks: $2"
	}
}
