# lib-mailgame.sh: helpers of the whole-battle-by-mail tests (pw_mail.sh,
# platoon_mail.sh); sourced after lib-e2e.sh and e2e_start (not a test
# itself). They use $HEXPOST, $CONF, $D (the data directory) and $W.
#
#   hp ARGS...       hexpost with the test's configuration
#   run_once         'hexpost run --once', its new outbox files in $W/added
#   added KIND       the one new KIND mail for blue@example.org, decoded
#                    into $W/KIND

hp() {
	"$HEXPOST" --config "$CONF" "$@"
}

# run_once: 'hexpost run --once'; the outbox files it added are listed in
# $W/added (names sorted).
run_once() {
	ls "$D/outbox/new" | sort >"$W/before"
	hp run --once >"$W/out" 2>"$W/err" || {
		cat "$W/out" "$W/err" >&2
		fail "run --once exited $?"
	}
	grep -q '^mail out: .* 0 to retry, 0 failed$' "$W/out" || {
		cat "$W/out" "$W/err" >&2
		fail "outbox delivery had failures"
	}
	ls "$D/outbox/new" | sort | comm -13 "$W/before" - >"$W/added"
}

# added KIND: the one message of KIND (ack, refusal, report, welcome) that
# the last run added for blue@example.org, decoded into $W/KIND.
added() {
	local f n=0 hit=
	for f in $(grep "^hexpost\.$1\." "$W/added"); do
		grep -qx 'To: blue@example.org' "$D/outbox/new/$f" || continue
		n=$((n + 1))
		hit=$f
	done
	[ "$n" -eq 1 ] || fail "$n new $1 mails for blue, want 1: $(cat "$W/added")"
	decoded "$D/outbox/new/$hit" >"$W/$1"
	grep -qxF "Auto-Submitted: auto-$([ "$1" = ack ] || [ "$1" = refusal ] &&
	    echo replied || echo generated)" "$W/$1" ||
		fail "the $1 has the wrong Auto-Submitted header"
}
