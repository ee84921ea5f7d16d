#!/bin/bash
# cleartext: a password never goes out in clear text except to a loopback
# address (issue 20, item 4). With imap_starttls / smtp_starttls off and a
# password, a server named mail.hexpost-test.invalid (RFC 6761: never
# resolves, so a regression could not reach anything either) is refused
# before any connection, with a clear message for IMAP and SMTP; the same
# setting to the real Dovecot and SMTP server on 127.0.0.1 / localhost
# works (tests/e2e/lib-servers.sh; its plain SMTP server takes no AUTH,
# so SMTP to loopback is checked without a password here, with one in
# test_config). The loopback IMAP password comes from a systemd
# credential ($CREDENTIALS_DIRECTORY/imap_password).
# Usage: bash cleartext.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
. "$SRC/tests/e2e/lib-servers.sh"
e2e_start cleartext "${1:?usage: cleartext.sh /path/to/hexpost}" minisign
e2e_at_exit srv_stop_all
e2e_datadir
e2e_keys blue red
cp "$CONF" "$T/base.conf"
hp() { "$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"; }
export HEXPOST_IMAP_PASSWORD=hp-pw HEXPOST_SMTP_PASSWORD=hp-pw
hp campaign new hill --ruleset fire-and-movement --seed clear || fail "campaign"
hp player add hill blue --email blue@example.org --key "$T/blue.pub" || fail "player"

STEP="loopback"
srv_init "$T/srv"
srv_user hexpost@localhost hp-pw
srv_user blue@example.org blue-pw
dovecot_start
smtp_start
cp "$T/base.conf" "$CONF"
cat >>"$CONF" <<EOF
imap = imap://127.0.0.1:$IMAP_PORT/INBOX
imap_user = hexpost@localhost
imap_starttls = off
outbox = smtp://localhost:$SMTP_PORT
smtp_starttls = off
retry_base = 1
EOF
# The IMAP password as a systemd credential (LoadCredential=), not in the
# environment: a file in $CREDENTIALS_DIRECTORY, its newline dropped.
mkdir -m 700 "$T/creds"
printf 'hp-pw\n' >"$T/creds/imap_password"
unset HEXPOST_IMAP_PASSWORD
sleep 1
CREDENTIALS_DIRECTORY=$T/creds hp run --once ||
	fail "loopback in clear: $(cat "$T/out" "$T/err")"
grep -q "refusing" "$T/err" && fail "loopback refused: $(cat "$T/err")"
grep -qxF "imap: 0 fetched, 0 marked, 0 of 1 mailbox failed" "$T/out" ||
	fail "imap: $(cat "$T/out" "$T/err")"
grep -q "mail out: 1 delivered" "$T/out" || fail "smtp: $(cat "$T/out" "$T/err")"
STEP="not loopback"
export HEXPOST_IMAP_PASSWORD=hp-pw
srv_stop_all
hp player add hill red --email red@example.org --key "$T/red.pub" || fail "red"
cp "$T/base.conf" "$CONF"
cat >>"$CONF" <<EOF
imap = imap://mail.hexpost-test.invalid:143/INBOX
imap_user = hexpost@localhost
imap_starttls = off
outbox = smtp://mail.hexpost-test.invalid:587
smtp_user = hexpost@localhost
smtp_starttls = off
mail_timeout = 5
EOF
hp run --once
cp "$T/err" "$T/run.err"
grep -q "imap://mail.hexpost-test.invalid:143/INBOX: refusing to send a password in clear text to mail.hexpost-test.invalid" "$T/run.err" ||
	fail "IMAP: $(cat "$T/out" "$T/run.err")"
hp outbox
grep -q "refusing to send a password in clear text to mail.hexpost-test.invalid" "$T/run.err" "$T/out" ||
	fail "SMTP: $(cat "$T/out" "$T/run.err")"
grep -qi "resolve" "$T/run.err" "$T/out" && fail "a connection was tried: $(cat "$T/run.err" "$T/out")"

echo "cleartext: ok"
