#!/bin/bash
# private_files: what holds secrets is private (issue 20, items 1 and 8).
#  - init into an existing 0755 directory under umask 022 gives a 0600
#    database, configuration and server key (and 0700 Maildirs);
#  - a database left 0644 by an older version is taken down to 0600;
#  - a data directory others (or the group) can write, or owned by another
#    user, is refused with its name and the fix;
#  - the server key and the configuration are opened without following a
#    symlink, and their mode and owner are checked on what was read.
# Usage: bash private_files.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
e2e_start private_files "${1:?usage: private_files.sh /path/to/hexpost}"

D=$T/data
CONF=$D/hexpost.conf
mode() { stat -c %a "$1"; }

STEP="init under umask 022"
mkdir -m 755 "$D"
(umask 022 && "$HEXPOST" init --datadir "$D") >/dev/null 2>"$T/err" ||
	fail "init: $(cat "$T/err")"
[ "$(mode "$D/hexpost.db")" = 600 ] || fail "hexpost.db is $(mode "$D/hexpost.db")"
[ "$(mode "$CONF")" = 600 ] || fail "hexpost.conf is $(mode "$CONF")"
[ "$(mode "$D/server.key")" = 600 ] || fail "server.key is $(mode "$D/server.key")"
[ "$(mode "$D/outbox")" = 700 ] || fail "outbox is $(mode "$D/outbox")"
for f in "$D"/hexpost.db-wal "$D"/hexpost.db-shm; do
	[ ! -e "$f" ] || [ "$(mode "$f")" = 600 ] || fail "$f is $(mode "$f")"
done

STEP="an old 0644 database"
chmod 644 "$D/hexpost.db"
(umask 022 && "$HEXPOST" --config "$CONF" campaign list) >/dev/null \
	2>"$T/err" || fail "campaign list: $(cat "$T/err")"
[ "$(mode "$D/hexpost.db")" = 600 ] || fail "hexpost.db left $(mode "$D/hexpost.db")"
grep -q "now 600" "$T/err" || fail "no word of the change: $(cat "$T/err")"

STEP="data directory others can write"
for m in 777 1777 775; do
	chmod "$m" "$D"
	"$HEXPOST" --config "$CONF" run --once >"$T/out" 2>"$T/err" &&
		fail "ran in a $m data directory"
	grep -q "data directory $D is writable by" "$T/err" &&
		grep -q "chmod go-w $D" "$T/err" ||
		fail "mode $m: $(cat "$T/err")"
	"$HEXPOST" --db "$D/hexpost.db" campaign list >"$T/out" 2>"$T/err" &&
		fail "campaign list --db in a $m data directory"
	grep -q "chmod go-w $D" "$T/err" || fail "--db, $m: $(cat "$T/err")"
done
chmod 755 "$D"
mkdir -m 777 "$T/open"
"$HEXPOST" init --datadir "$T/open" >"$T/out" 2>"$T/err" &&
	fail "init into a 0777 directory"
grep -q "chmod go-w $T/open" "$T/err" || fail "init: $(cat "$T/err")"
if [ "$(id -u)" = 0 ]; then
	chown nobody "$D"
	"$HEXPOST" --config "$CONF" campaign list >"$T/out" 2>"$T/err" &&
		fail "ran in a data directory owned by nobody"
	grep -q "data directory $D is owned by uid" "$T/err" ||
		fail "owner: $(cat "$T/err")"
	chown root "$D"
fi
"$HEXPOST" --config "$CONF" run --once >"$T/out" 2>"$T/err" ||
	fail "run --once on a private data directory: $(cat "$T/err")"

STEP="server key"
mv "$D/server.key" "$D/real.key"
ln -s "$D/real.key" "$D/server.key"
"$HEXPOST" --config "$CONF" run --once >"$T/out" 2>"$T/err" &&
	fail "run with a symlinked server key"
grep -q "server key $D/server.key: a symbolic link" "$T/err" ||
	fail "symlink: $(cat "$T/err")"
rm "$D/server.key"
mv "$D/real.key" "$D/server.key"
chmod 640 "$D/server.key"
"$HEXPOST" --config "$CONF" run --once >"$T/out" 2>"$T/err" &&
	fail "run with a 0640 server key"
grep -q "lets others read it; chmod 600" "$T/err" || fail "$(cat "$T/err")"
chmod 600 "$D/server.key"
if [ "$(id -u)" = 0 ]; then
	chown nobody "$D/server.key"
	"$HEXPOST" --config "$CONF" run --once >"$T/out" 2>"$T/err" &&
		fail "run with a server key owned by nobody"
	grep -q "owned by uid" "$T/err" || fail "key owner: $(cat "$T/err")"
	chown root "$D/server.key"
fi

STEP="configuration"
ln -s "$CONF" "$T/link.conf"
"$HEXPOST" --config "$T/link.conf" campaign list >"$T/out" 2>"$T/err" &&
	fail "read a symlinked configuration"
grep -q "a symbolic link" "$T/err" || fail "$(cat "$T/err")"
chmod 666 "$CONF"
"$HEXPOST" --config "$CONF" campaign list >"$T/out" 2>"$T/err" &&
	fail "read a configuration others can write"
grep -q "writable by others" "$T/err" || fail "$(cat "$T/err")"
chmod 644 "$CONF"
echo "imap_password = s3cret" >>"$CONF"
"$HEXPOST" --config "$CONF" campaign list >"$T/out" 2>"$T/err" &&
	fail "a password in a 0644 configuration"
grep -q "chmod 600" "$T/err" || fail "$(cat "$T/err")"
chmod 600 "$CONF"
"$HEXPOST" --config "$CONF" campaign list >"$T/out" 2>"$T/err" ||
	fail "0600 configuration with a password: $(cat "$T/err")"
if [ "$(id -u)" = 0 ]; then
	chown nobody "$CONF"
	"$HEXPOST" --config "$CONF" campaign list >"$T/out" 2>"$T/err" &&
		fail "a configuration owned by nobody"
	grep -q "owned by another user" "$T/err" || fail "$(cat "$T/err")"
	chown root "$CONF"
fi
echo "private_files: ok"
