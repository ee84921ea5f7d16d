#!/bin/bash
# kill9: kill -9 at random moments. Three complete games of
# fire-and-movement run on one daemon and one mailbox (Blue played by one
# person whose single key plays in all three, routed by each signed file's
# header; Red by the built-in opponent; dice from master seeds). A player
# script answers each open window with a signed order file mailed into the
# inbox Maildir, and strangers' mail keeps arriving (each answered with a
# refusal). The games are played twice: once with `hexpost run`
# undisturbed, once while it is killed with SIGKILL at random moments
# (a seeded RNG, KILL9_SEED; KILL9_KILLS kills at most) and restarted. The
# final databases (every game table, the record of mail in and out) and
# the delivered mail (Message-IDs and bodies) must be the same: no order
# lost, no turn resolved twice, no report delivered twice. The embedded
# Maildir transport delivers, a batch at a time (issue 17: one sync and
# one commit per phase of a batch, so kills land inside batches); in the
# killed run a mail system picks the
# outbox's new/ up after every kill (no message may come again).
# Usage: bash kill9.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/signed_mail.bash"
. "$SRC/tests/e2e/lib-e2e.sh"
. "$SRC/tests/e2e/lib-reports.sh"
e2e_start kill9 "${1:?usage: kill9.sh /path/to/hexpost}" minisign sqlite3 \
	base64
DPID=
e2e_at_exit '[ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null'
SEED=${KILL9_SEED:-4242}
MAXKILLS=${KILL9_KILLS:-30}
GAMES="g1 g2 g3"
NOISE=6            # strangers' mails with each order file

new_key blue "$T" || fail "minisign -G"
new_key stranger "$T" || fail "minisign -G"

# setup DIR: a data directory with the three campaigns (the server key of
# the first, so that welcome mails are alike).
setup() {
	local d=$1 g
	mkdir -p "$d"
	[ -f "$T/server.key" ] && cp "$T/server.key" "$T/server.pub" "$d/"
	"$HEXPOST" init --datadir "$d" >/dev/null || fail "init $d"
	[ -f "$T/server.key" ] || cp "$d/server.key" "$d/server.pub" "$T/"
	sed -i 's/^poll_interval = .*/poll_interval = 1/' "$d/hexpost.conf"
	for g in $GAMES; do
		hp "$d" campaign new "$g" --ruleset fire-and-movement \
			--seed "kill9-$g" >/dev/null || fail "campaign new $g"
		hp "$d" player add "$g" blue --email blue@example.org \
			--name Bea --key "$T/blue.pub" >/dev/null ||
			fail "player add $g"
	done
}

hp() {
	local d=$1
	shift
	"$HEXPOST" --config "$d/hexpost.conf" "$@"
}

# player DIR ROUND: for each game whose open window waits for Blue, mail
# the orders the built-in opponent would give (once per window), plus
# NOISE strangers' mails. Prints the number of games not finished.
player() {
	local d=$1 round=$2 g show turn open=0 i f
	for g in $GAMES; do
		show=$(hp "$d" campaign show "$g" 2>/dev/null) || { open=$((open + 1)); continue; }
		grep -q '^  status   finished' <<<"$show" && continue
		open=$((open + 1))
		turn=$(sed -n "s/^  window   turn \([0-9]*\) 'blue' (open), waiting for: blue$/\1/p" <<<"$show")
		[ -n "$turn" ] || continue
		f=$d/player/$g.t$turn
		[ -e "$f.eml" ] && continue
		hp "$d" orders suggest "$g" --side blue >"$f.txt" || fail "suggest $g"
		signed_mail "$T/blue.key" "$f.txt" "Bea <blue@example.org>" \
			"$g.t$turn.blue@players.example" "orders $g turn $turn" \
			"$f.eml" || fail "signing $g turn $turn"
		deliver "$d/inbox" "$f.eml" "$g.t$turn.eml" || fail "deliver"
		# Strangers' mail with each order file: the same set on every
		# run, whatever the timing.
		for i in $(seq 1 "$NOISE"); do
			f=$d/player/noise.$g.$turn.$i
			printf 'campaign: %s\nturn: %s\nwindow: blue\nside: blue\nmove 1 A1\n' \
				"$g" "$turn" >"$f.txt"
			signed_mail "$T/stranger.key" "$f.txt" \
				"Stranger <s$i@elsewhere.example>" \
				"noise.$g.$turn.$i@elsewhere.example" "orders?" \
				"$f.eml" || fail "noise"
			deliver "$d/inbox" "$f.eml" "noise.$g.$turn.$i.eml" ||
				fail "deliver"
		done
	done
	echo "$open"
}

start() {
	"$HEXPOST" --config "$1/hexpost.conf" run >>"$1/run.log" \
		2>>"$1/run.err" &
	DPID=$!
}

# pickup DIR: what a mail system does between runs: take every delivered
# file out of the outbox's new/ (into DIR/picked). A message delivered
# again would find its name taken there: a failure (issue 21, item 1).
pickup() {
	local f
	mkdir -p "$1/picked"
	for f in "$1"/outbox/new/*; do
		[ -f "$f" ] || continue
		[ ! -e "$1/picked/${f##*/}" ] || fail "delivered twice: ${f##*/}"
		mv "$f" "$1/picked/" || fail "pickup"
	done
}

# play DIR KILL: the games to their end (within 300 s: ASan builds on a
# loaded two-core machine took over 100), the daemon killed at random if
# KILL is 1 (the outbox picked up after each kill). Leaves KILLS.
play() {
	local d=$1 kill=$2 round=0 open deadline=$((SECONDS + 300)) rc
	mkdir -p "$d/player"
	KILLS=0
	RANDOM=$SEED
	start "$d"
	while :; do
		[ $SECONDS -lt $deadline ] || fail "games not over in time ($d)"
		round=$((round + 1))
		open=$(player "$d" "$round")
		if [ "$open" = 0 ] &&
		    [ "$(sqlite3 "$d/hexpost.db" "SELECT count(*) FROM outbox WHERE state = 'queued'")" = 0 ] &&
		    [ -z "$(ls "$d/inbox/new")" ]; then
			break
		fi
		sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
		if [ "$kill" = 1 ] && [ $KILLS -lt $MAXKILLS ] &&
		    [ $((RANDOM % 3)) -ne 0 ]; then
			kill -9 "$DPID" 2>/dev/null
			wait "$DPID" 2>/dev/null
			KILLS=$((KILLS + 1))
			pickup "$d"
			start "$d"
			# Often straight into the first pass after a start.
			if [ $((RANDOM % 2)) = 0 ]; then
				sleep "0.0$((RANDOM % 10))"
				kill -9 "$DPID" 2>/dev/null
				wait "$DPID" 2>/dev/null
				KILLS=$((KILLS + 1))
				pickup "$d"
				start "$d"
			fi
		fi
	done
	kill -TERM "$DPID"
	wait "$DPID"
	rc=$?
	DPID=
	[ $rc = 0 ] || fail "SIGTERM: hexpost run exited $rc ($d): $(tail -5 "$d/run.err")"
	[ -z "$(ls "$d/inbox/new")" ] || fail "mail left in new/ ($d)"
}

# dump DIR: every game table and the records of mail in and out, keyed by
# names (row ids depend on the order campaigns happen to be served in),
# without the wall-clock times. Read from a copy given back its plain rows
# (e2e_unpack: packed windows, compressed dice logs and order files).
dump() {
	rm -f "$T/dump.db"
	sqlite3 "$1/hexpost.db" ".backup '$T/dump.db'" && e2e_unpack "$T/dump.db" ||
		fail "a copy to dump ($1)"
	sqlite3 -header "$T/dump.db" <<'SQL'
SELECT name, ruleset, options, status, result, turn, window, hex(master_seed) FROM campaigns ORDER BY name;
SELECT c.name, s.idx, s.name, s.label, s.ai, s.standing FROM sides s JOIN campaigns c ON c.id = s.campaign_id ORDER BY 1, 2;
SELECT c.name, p.side_idx, p.name, p.email, p.key_id, p.moderator, p.active FROM players p JOIN campaigns c ON c.id = p.campaign_id ORDER BY 1, 2, 3;
SELECT c.name, u.* FROM units u JOIN campaigns c ON c.id = u.campaign_id ORDER BY 1, u.idx;
SELECT c.name, v.key, v.val FROM vars v JOIN campaigns c ON c.id = v.campaign_id ORDER BY 1, 2;
SELECT c.name, w.turn, w.number, w.name, w.kind, w.sides, w.prompt, w.state, hex(w.seed), hex(w.commitment), hex(w.dice_key) FROM windows w JOIN campaigns c ON c.id = w.campaign_id ORDER BY 1, 2, 3;
SELECT c.name, w.turn, w.number, o.side_idx, o.source, o.current, p.name, hex(o.hash), o.parsed, o.raw FROM orders o JOIN windows w ON w.id = o.window_id JOIN campaigns c ON c.id = w.campaign_id LEFT JOIN players p ON p.id = o.player_id ORDER BY 1, 2, 3, 4, 6, 8;
SELECT c.name, w.turn, w.number, e.seq, e.step, e.phase, e.text, e.visible, e.roll FROM events e JOIN windows w ON w.id = e.window_id JOIN campaigns c ON c.id = w.campaign_id ORDER BY 1, 2, 3, 4;
SELECT c.name, w.turn, w.number, d.seq, d.purpose, d.sides, d.target, d.result FROM dice d JOIN windows w ON w.id = d.window_id JOIN campaigns c ON c.id = w.campaign_id ORDER BY 1, 2, 3, 4;
SELECT hex(m.hash), m.message_id, m.outcome, m.detail, c.name, p.name FROM messages m LEFT JOIN campaigns c ON c.id = m.campaign_id LEFT JOIN players p ON p.id = m.player_id ORDER BY 1;
SELECT o.message_id, c.name, o.kind, o.rcpt, o.envelope_from, o.state FROM outbox o LEFT JOIN campaigns c ON c.id = o.campaign_id ORDER BY 1;
SQL
	# The reports' texts (stored compressed, against earlier ones).
	e2e_reports "$1/hexpost.db" "SELECT r.window_id, r.side_idx FROM reports r JOIN windows w ON w.id = r.window_id JOIN campaigns c ON c.id = w.campaign_id ORDER BY c.name, w.turn, w.number, r.side_idx"
}

# delivered DIR: each delivered message's file name and body checksum.
delivered() {
	local f
	for f in "$1"/outbox/new/* "$1"/outbox/cur/* "$1"/picked/*; do
		[ -f "$f" ] || continue
		printf '%s %s\n' "$(basename "$f")" "$(mail_body "$f" | sha256sum | cut -c1-64)"
	done | sort
}

A=$T/calm
B=$T/killed
setup "$A"
setup "$B"

play "$A" 0
for g in $GAMES; do
	hp "$A" campaign show "$g" | grep -q '^  status   finished' ||
		fail "$g did not finish"
done
play "$B" 1
[ "$KILLS" -ge 5 ] || fail "only $KILLS kills"

dump "$A" >"$T/a.dump" || fail "dump"
dump "$B" >"$T/b.dump" || fail "dump"
[ "$(grep -c . "$T/a.dump")" -gt 100 ] || fail "the dump is too short"
diff -u "$T/a.dump" "$T/b.dump" >"$T/dump.diff" || {
	head -60 "$T/dump.diff" >&2
	fail "the databases differ after $KILLS kills"
}
delivered "$A" >"$T/a.mail"
delivered "$B" >"$T/b.mail"
diff -u "$T/a.mail" "$T/b.mail" >"$T/mail.diff" || {
	head -40 "$T/mail.diff" >&2
	fail "the delivered mail differs after $KILLS kills"
}
# Every queued message was delivered exactly once, as a file of its own.
n=$(sqlite3 "$B/hexpost.db" "SELECT count(*) FROM outbox WHERE state = 'sent'")
[ "$n" = "$(wc -l <"$T/b.mail")" ] || fail "$n sent rows, $(wc -l <"$T/b.mail") files"
grep -q '^hexpost\.report\.g3\.' "$T/b.mail" || fail "no reports of g3"
[ "$(sqlite3 "$B/hexpost.db" "SELECT count(*) FROM messages WHERE outcome = 'accepted'")" -ge 9 ] ||
	fail "too few orders taken in"
echo "kill9: $KILLS kills, $(wc -l <"$T/b.mail") messages delivered, same as the undisturbed run"
exit 0
