#!/bin/bash
# mail_budget: a slow or hostile mail server cannot hold a pass (issue 20,
# item 9). Each IMAP session and each SMTP batch has a wall-clock budget
# (mail_budget, here 8 s), each SMTP message a total libcurl timeout within
# it, on top of mail_timeout (3 s without progress). The servers are the
# real Dovecot and SMTP server of lib-servers.sh on 127.0.0.1, reached
# through a proxy (127.0.0.1 too) that passes the server's answers on one
# byte a second once hexpost asks for mail (IMAP FETCH) or from the start
# (SMTP): every read makes progress, so only the budget ends the session.
# Then the servers frozen with SIGSTOP. Each time 'run --once' must end
# within the budgets (exit 75), say why, and lose nothing: with the
# servers back the mail is fetched and delivered.
# Usage: bash mail_budget.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
. "$SRC/tests/e2e/lib-servers.sh"
e2e_start mail_budget "${1:?usage: mail_budget.sh /path/to/hexpost}" \
	minisign python3
PROXY_PIDS=()
e2e_at_exit 'for p in "${PROXY_PIDS[@]}"; do kill "$p" 2>/dev/null; done'
e2e_at_exit srv_stop_all

# proxy UPSTREAM_PORT TRIGGER: a trickling proxy on 127.0.0.1; its port in
# $PROXY_PORT. TRIGGER "": slow from the start.
proxy() {
	rm -f "$T/proxy.port"
	python3 - "$T/proxy.port" "$1" "$2" <<'PYEOF' &
import asyncio, sys
portfile, up, trigger = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()

async def handle(cr, cw):
    ur, uw = await asyncio.open_connection("127.0.0.1", up)
    slow = asyncio.Event()
    if not trigger:
        slow.set()

    async def c2s():
        seen = b""
        while True:
            d = await cr.read(4096)
            if not d:
                break
            seen = (seen + d)[-4096:]
            if trigger and trigger in seen.upper():
                slow.set()
            uw.write(d)
            await uw.drain()
        uw.close()

    async def s2c():
        while True:
            d = await ur.read(1 if slow.is_set() else 512)
            if not d:
                break
            if slow.is_set():
                await asyncio.sleep(1)
            cw.write(d)
            await cw.drain()
        cw.close()

    await asyncio.gather(c2s(), s2c(), return_exceptions=True)

async def main():
    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(srv.sockets[0].getsockname()[1]))
    import os
    os.rename(portfile + ".tmp", portfile)
    async with srv:
        await srv.serve_forever()

asyncio.run(main())
PYEOF
	PROXY_PIDS+=($!)
	for _ in $(seq 1 100); do
		[ -s "$T/proxy.port" ] && break
		sleep 0.05
	done
	PROXY_PORT=$(cat "$T/proxy.port") || fail "the proxy did not start"
}

srv_init "$T/srv"
srv_user hexpost@localhost hp-pw
srv_user blue@example.org blue-pw
dovecot_start
smtp_start
e2e_datadir
e2e_keys blue
export HEXPOST_IMAP_PASSWORD=hp-pw
cp "$CONF" "$T/base.conf"
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
# timed_run: 'run --once' under a 90 s guard; its exit in $RC, seconds in $TOOK.
timed_run() {
	local t0=$SECONDS
	timeout -k 5 90 "$HEXPOST" --config "$CONF" run --once >"$T/out" 2>"$T/err"
	RC=$?
	TOOK=$((SECONDS - t0))
}
BUDGET=8
LIMIT=$((BUDGET + 3 + 6))   # the budget, one mail_timeout, slack

hp campaign new hill --ruleset fire-and-movement --seed budget || fail "campaign"
# 30 automatic mails of 15 kB: about 450 kB to fetch.
PAD=$(head -c 15000 /dev/zero | tr '\0' 'x' | fold -w 75)
for i in $(seq 1 30); do
	printf 'From: blue@example.org\nTo: hexpost@localhost\nMessage-ID: <bulk.%d@example.org>\nSubject: away %d\nAuto-Submitted: auto-replied\n\n%s\n' \
		"$i" "$i" "$PAD" >"$T/bulk.eml"
	srv_put hexpost@localhost "$T/bulk.eml"
done

STEP="IMAP trickle"
proxy "$IMAP_PORT" FETCH
cat >>"$CONF" <<EOF
imap = imap://127.0.0.1:$PROXY_PORT/INBOX
imap_user = hexpost@localhost
imap_starttls = off
outbox = smtp://127.0.0.1:$SMTP_PORT
smtp_starttls = off
mail_timeout = 3
mail_budget = $BUDGET
retry_base = 1
EOF
timed_run
[ "$TOOK" -le "$LIMIT" ] || fail "the pass took $TOOK s (budget $BUDGET s): $(cat "$T/err")"
[ "$RC" -eq 75 ] || fail "exit $RC, want 75: $(cat "$T/out" "$T/err")"
grep -q "session over its budget of $BUDGET s (mail_budget)" "$T/err" ||
	fail "no word of the budget: $(cat "$T/err")"

STEP="SMTP trickle"
hp player add hill blue --email blue@example.org --key "$T/blue.pub" || fail "player"
proxy "$SMTP_PORT" ""
sed -i "s#^imap = .*#imap = imap://127.0.0.1:$IMAP_PORT/INBOX#; s#^outbox = smtp.*#outbox = smtp://127.0.0.1:$PROXY_PORT#" "$CONF"
timed_run
[ "$TOOK" -le "$LIMIT" ] || fail "the pass took $TOOK s (budget $BUDGET s): $(cat "$T/err")"
grep -q "mail out: 0 delivered, 1 to retry, 0 failed" "$T/out" ||
	fail "the welcome is not kept for later: $(cat "$T/out" "$T/err")"
grep -q "mail in: 0 accepted, 0 refused, 30 ignored" "$T/out" ||
	fail "the mail was not taken in after the IMAP budget: $(cat "$T/out" "$T/err")"

STEP="frozen (SIGSTOP)"
sed -i "s#^outbox = smtp.*#outbox = smtp://127.0.0.1:$SMTP_PORT#" "$CONF"
dovecot_pause
smtp_pause
sleep 2   # the welcome's retry is due
timed_run
dovecot_resume
smtp_resume
[ "$TOOK" -le "$LIMIT" ] || fail "the pass took $TOOK s: $(cat "$T/err")"
[ "$RC" -eq 75 ] || fail "exit $RC, want 75: $(cat "$T/out" "$T/err")"

STEP="servers back"
sleep 3
timed_run
[ "$RC" -eq 0 ] || fail "exit $RC: $(cat "$T/out" "$T/err")"
grep -q "mail out: 1 delivered" "$T/out" || {
	sleep 3
	timed_run
	grep -q "mail out: 1 delivered" "$T/out" || fail "never delivered: $(cat "$T/out" "$T/err")"
}
echo "mail_budget: ok"
