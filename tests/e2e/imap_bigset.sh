#!/bin/bash
# imap_bigset: a fetch batch whose UID set is longer than 4 kB (imap_batch
# 1000, every other message expunged, so the set is "2,4,6,..."). The whole
# command must go to the server: a set cut short would fetch only part of
# the batch while last_uid moved past all of it, and the rest would never be
# taken in. Every kept message must be taken in, in one run.
# Usage: bash imap_bigset.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
. "$SRC/tests/e2e/lib-servers.sh"
STEP=
e2e_start imap_bigset "${1:?usage: imap_bigset.sh /path/to/hexpost}" \
	sqlite3 curl
e2e_at_exit srv_stop_all

srv_init "$T/srv"
srv_user hexpost@localhost hp-pw
dovecot_start

e2e_datadir
cat >>"$CONF" <<EOF
from = hexpost@localhost
imap = imap://127.0.0.1:$IMAP_PORT/INBOX
imap_user = hexpost@localhost
imap_starttls = off
imap_batch = 1000
mail_timeout = 10
EOF
export HEXPOST_IMAP_PASSWORD=hp-pw

STEP=fill
N=2000
MD=$SRV_DIR/mail/hexpost@localhost/Maildir
for i in $(seq 1 $N); do
	# Automatic mail: recorded as ignored, never answered.
	printf 'From: blue@example.org\nTo: hexpost@localhost\nMessage-ID: <big.%d@example.org>\nSubject: away %d\nAuto-Submitted: auto-replied\n\nback soon\n' \
		"$i" "$i" >"$MD/tmp/$i.big"
done
chown "$SRV_UID:$SRV_GID" "$MD"/tmp/*.big
mv "$MD"/tmp/*.big "$MD/new/" || fail "mv"
IMAP="imap://127.0.0.1:$IMAP_PORT/INBOX"
# Expunge the odd UIDs: what is left is no run of UIDs.
SET=$(seq -s, 1 2 $N)
curl -sS -u hexpost@localhost:hp-pw "$IMAP" -X "UID STORE $SET +FLAGS.SILENT (\\Deleted)" >/dev/null ||
	fail "UID STORE"
# (curl gives up on the thousand "* N EXPUNGE" lines; the count below tells.)
curl -sS -u hexpost@localhost:hp-pw "$IMAP" -X "EXPUNGE" >/dev/null 2>&1
LEFT=$(curl -sS -u hexpost@localhost:hp-pw "$IMAP" -X 'UID SEARCH ALL' |
	tr -d '\r' | sed 's/^\* SEARCH *//' | wc -w)
[ "$LEFT" -eq $((N / 2)) ] || fail "$LEFT messages left on the server, want $((N / 2))"
[ "$(seq -s, 2 2 $N | wc -c)" -gt 4096 ] || fail "the UID set is not long enough"

STEP=fetch
"$HEXPOST" --config "$CONF" -v run --once >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 0 ] || { cat "$T/out" "$T/err" >&2; fail "run --once exited $RC"; }
GOT=$(sqlite3 "$DB" "SELECT count(*) FROM messages WHERE message_id LIKE 'big.%'")
[ "$GOT" -eq $((N / 2)) ] || {
	cat "$T/out" >&2
	fail "$GOT messages taken in, want $((N / 2))"
}
[ "$(sqlite3 "$DB" "SELECT count(*) FROM imap_spool")" -eq 0 ] || fail "spool rows left"
exit 0
