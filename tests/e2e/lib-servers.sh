# lib-servers.sh: real mail servers for the end-to-end tests, on 127.0.0.1
# and high ports: Dovecot (IMAP, a passwd-file of users, Maildir storage, a
# throwaway configuration and base_dir) and an SMTP server written with
# python3-aiosmtpd (/usr/bin/python3) that delivers into the Maildirs
# Dovecot serves. Source it, then:
#
#   srv_init DIR             everything lives under DIR (made world-
#                            traversable: as root, mail is owned by nobody)
#   srv_user NAME PASS       a mailbox user (NAME is the full address)
#   srv_tls                  a test CA and a server certificate for
#                            127.0.0.1/localhost: $SRV_CA, $SRV_CERT, $SRV_KEY
#   dovecot_start [tls]      IMAP on $IMAP_PORT (with tls: STARTTLS
#                            required on $IMAP_PORT, IMAPS on $IMAPS_PORT);
#                            waits for the "* OK" greeting; $DOVECOT_PID
#   dovecot_stop | dovecot_pause | dovecot_resume
#   smtp_start [tls]         SMTP on $SMTP_PORT (with tls: STARTTLS and
#                            AUTH PLAIN/LOGIN against the users, both
#                            required); waits for "220"; $SMTP_PID
#   smtp_stop | smtp_pause | smtp_resume
#   srv_stop_all             for the EXIT trap: every server, by PID
#   srv_folder USER NAME     a folder NAME beside USER's INBOX
#   srv_put USER FILE        deliver FILE straight into USER's INBOX
#   srv_put_folder USER NAME FILE   ... into the folder NAME
#   srv_count USER           messages in USER's INBOX (new/ + cur/)
#   srv_files USER           their paths
#
# The SMTP server answers RCPT with 550 5.1.1 for addresses that are not
# users, with 451 4.3.0 for addresses listed in $SRV_DIR/smtp-tempfail and
# with 550 5.7.1 for those in $SRV_DIR/smtp-reject (both files reread on
# every RCPT, so a test can change its mind), and logs each delivery as a
# line "from=<...> to=<...> id=<Message-ID>" in $SRV_DIR/smtp.log.
#
# Ports: a random base >= 20000; a port found busy, or a server that fails
# to bind, moves on to the next candidate. Nothing is installed here
# (scripts/deps.sh installs dovecot-imapd and python3-aiosmtpd).

SRV_PIDS=()

srv_die() {
	echo "lib-servers: $*" >&2
	[ -n "${SRV_DIR:-}" ] && [ -f "$SRV_DIR/dovecot/log" ] &&
		tail -n 20 "$SRV_DIR/dovecot/log" >&2
	[ -n "${SRV_DIR:-}" ] && [ -f "$SRV_DIR/smtp.err" ] &&
		tail -n 20 "$SRV_DIR/smtp.err" >&2
	exit 1
}

srv_init() {
	SRV_DIR=$1
	mkdir -p "$SRV_DIR/dovecot/run" "$SRV_DIR/mail" ||
		srv_die "cannot make $SRV_DIR"
	: >"$SRV_DIR/dovecot/users"
	: >"$SRV_DIR/smtp-tempfail"
	: >"$SRV_DIR/smtp-reject"
	: >"$SRV_DIR/smtp.log"
	if [ "$(id -u)" -eq 0 ]; then
		# Dovecot will not serve mail as root: mail belongs to nobody.
		SRV_UID=nobody
		SRV_GID=$(id -gn nobody)
		SRV_LOGIN_USER=dovenull
		SRV_INTERNAL_USER=dovecot
		id dovenull >/dev/null 2>&1 && id dovecot >/dev/null 2>&1 ||
			srv_die "the dovecot users are missing (is dovecot-core installed?)"
		chown "$SRV_UID:$SRV_GID" "$SRV_DIR/mail"
		# Every directory above the mail must be traversable by nobody.
		local d=$SRV_DIR
		while [ "$d" != / ] && [ -n "$d" ]; do
			[ -O "$d" ] && chmod o+x "$d"
			d=$(dirname "$d")
		done
	else
		SRV_UID=$(id -un)
		SRV_GID=$(id -gn)
		SRV_LOGIN_USER=$SRV_UID
		SRV_INTERNAL_USER=$SRV_UID
	fi
	command -v dovecot >/dev/null || srv_die "dovecot is not installed"
	/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null ||
		srv_die "python3-aiosmtpd is not installed"
	SRV_PORT_NEXT=$((20000 + RANDOM % 30000))
}

# srv_user NAME PASS
srv_user() {
	printf '%s:{PLAIN}%s\n' "$1" "$2" >>"$SRV_DIR/dovecot/users"
	mkdir -p "$SRV_DIR/mail/$1/Maildir/"{tmp,new,cur}
	chown -R "$SRV_UID:$SRV_GID" "$SRV_DIR/mail/$1"
}

srv_tls() {
	local t=$SRV_DIR/tls
	mkdir -p "$t"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=hexpost test CA" \
		-keyout "$t/ca.key" -out "$t/ca.pem" \
		-addext basicConstraints=critical,CA:TRUE \
		-addext keyUsage=critical,keyCertSign,cRLSign >/dev/null 2>&1 ||
		srv_die "openssl: test CA"
	openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
		-keyout "$t/server.key" -out "$t/server.csr" >/dev/null 2>&1 ||
		srv_die "openssl: server key"
	printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$t/ext"
	openssl x509 -req -in "$t/server.csr" -CA "$t/ca.pem" -CAkey "$t/ca.key" \
		-CAcreateserial -days 2 -extfile "$t/ext" -out "$t/server.pem" \
		>/dev/null 2>&1 || srv_die "openssl: server certificate"
	chmod 644 "$t/server.key"
	SRV_CA=$t/ca.pem
	SRV_CERT=$t/server.pem
	SRV_KEY=$t/server.key
}

# SRV_PORT: a port nothing listens on now (the server may still lose a
# race for it: callers retry).
srv_port() {
	local p
	while :; do
		p=$SRV_PORT_NEXT
		SRV_PORT_NEXT=$((p + 1))
		[ "$SRV_PORT_NEXT" -gt 60000 ] && SRV_PORT_NEXT=20000
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || break
	done
	SRV_PORT=$p
}

# srv_greeting PORT PATTERN PID: wait (10 s) for a greeting line matching
# PATTERN on PORT, while PID lives. 0 greeted, 1 the process died, 2 timeout.
srv_greeting() {
	local port=$1 pat=$2 pid=$3 i line
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || return 1
		if exec 3<>"/dev/tcp/127.0.0.1/$port"; then
			line=
			IFS= read -r -t 2 line <&3
			exec 3>&- 3<&-
			case $line in $pat) return 0 ;; esac
		fi 2>/dev/null
		sleep 0.1
	done
	return 2
}

srv_forget() {
	local keep=() p
	for p in "${SRV_PIDS[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	SRV_PIDS=("${keep[@]}")
}

# srv_kill PID: TERM, then KILL after 5 s; waits for it.
srv_kill() {
	local pid=$1 i
	[ -n "$pid" ] || return 0
	kill -CONT "$pid" 2>/dev/null
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	srv_forget "$pid"
	return 0
}

# The children of PID (Dovecot's login and imap processes).
srv_children() {
	local c
	for c in /proc/[0-9]*/stat; do
		awk -v p="$1" '$4 == p { print $1 }' "$c" 2>/dev/null
	done
}

dovecot_conf() {
	local tls=$1
	cat <<EOF
instance_name = hexpost-test-$$-$IMAP_PORT
base_dir = $SRV_DIR/dovecot/run
state_dir = $SRV_DIR/dovecot/state
log_path = $SRV_DIR/dovecot/log
info_log_path = $SRV_DIR/dovecot/log
protocols = imap
listen = 127.0.0.1
default_login_user = $SRV_LOGIN_USER
default_internal_user = $SRV_INTERNAL_USER
auth_mechanisms = plain login
passdb {
  driver = passwd-file
  args = scheme=PLAIN $SRV_DIR/dovecot/users
}
userdb {
  driver = static
  args = uid=$SRV_UID gid=$SRV_GID home=$SRV_DIR/mail/%u
}
mail_location = maildir:~/Maildir
first_valid_uid = 1
mail_fsync = always
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $IMAP_PORT
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${IMAPS_PORT:-0}
  }
  chroot =
}
service anvil {
  chroot =
}
EOF
	if [ "$tls" = tls ]; then
		cat <<EOF
ssl = required
ssl_cert = <$SRV_CERT
ssl_key = <$SRV_KEY
disable_plaintext_auth = yes
EOF
	else
		printf 'ssl = no\ndisable_plaintext_auth = no\n'
	fi
}

# dovecot_start [tls]: (re)start on the same ports if it ran before.
dovecot_start() {
	local tls=${1:-${DOVECOT_TLS:-}} try rc
	DOVECOT_TLS=$tls
	for try in 1 2 3 4 5; do
		if [ -z "${IMAP_PORT_FIXED:-}" ]; then
			srv_port
			IMAP_PORT=$SRV_PORT
		fi
		if [ "$tls" = tls ] && [ -z "${IMAP_PORT_FIXED:-}" ]; then
			srv_port
			IMAPS_PORT=$SRV_PORT
		elif [ "$tls" != tls ]; then
			IMAPS_PORT=0
		fi
		dovecot_conf "$tls" >"$SRV_DIR/dovecot/dovecot.conf"
		dovecot -F -c "$SRV_DIR/dovecot/dovecot.conf" \
			>>"$SRV_DIR/dovecot/stdout" 2>&1 &
		DOVECOT_PID=$!
		SRV_PIDS+=("$DOVECOT_PID")
		srv_greeting "$IMAP_PORT" '\* OK*' "$DOVECOT_PID"
		rc=$?
		if [ "$rc" -eq 0 ]; then
			IMAP_PORT_FIXED=1
			return 0
		fi
		srv_kill "$DOVECOT_PID"
		DOVECOT_PID=
		[ -n "${IMAP_PORT_FIXED:-}" ] && sleep 1
	done
	cat "$SRV_DIR/dovecot/stdout" >&2
	srv_die "dovecot did not start"
}

dovecot_stop() {
	srv_kill "${DOVECOT_PID:-}"
	DOVECOT_PID=
}

# Freeze Dovecot and every process it started (a server that hangs).
dovecot_pause() {
	local p
	kill -STOP "$DOVECOT_PID"
	for p in $(srv_children "$DOVECOT_PID"); do
		kill -STOP "$p" 2>/dev/null
	done
}

dovecot_resume() {
	local p
	for p in $(srv_children "$DOVECOT_PID"); do
		kill -CONT "$p" 2>/dev/null
	done
	kill -CONT "$DOVECOT_PID"
}

# Kill Dovecot and its children at once (SIGKILL: a crash or power cut of
# the server), then start it again on the same ports.
dovecot_crash_restart() {
	local p kids
	kids=$(srv_children "$DOVECOT_PID")
	kill -KILL "$DOVECOT_PID" $kids 2>/dev/null
	wait "$DOVECOT_PID" 2>/dev/null
	srv_forget "$DOVECOT_PID"
	for p in $kids; do
		while kill -0 "$p" 2>/dev/null; do sleep 0.05; done
	done
	dovecot_start
}

smtp_script() {
	cat <<'EOF'
# The test SMTP server (aiosmtpd): see tests/e2e/lib-servers.sh.
import asyncio, os, pwd, signal, sys, time
from email.parser import BytesHeaderParser
from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

top, port, tls = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "tls"
owner = pwd.getpwnam(sys.argv[4])

def users():
    with open(os.path.join(top, "dovecot", "users")) as f:
        return {l.split(":", 1)[0].lower(): l.split("}", 1)[1].strip()
                for l in f if ":" in l}

def listed(name, addr):
    try:
        with open(os.path.join(top, name)) as f:
            return addr.lower() in (l.strip().lower() for l in f)
    except FileNotFoundError:
        return False

class Handler:
    async def handle_RCPT(self, server, session, envelope, address, options):
        if listed("smtp-tempfail", address):
            return "451 4.3.0 try again later"
        if listed("smtp-reject", address):
            return "550 5.7.1 delivery not authorized"
        if address.lower() not in users() or "/" in address:
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        data = envelope.original_content.replace(b"\r\n", b"\n")
        mid = BytesHeaderParser().parsebytes(data).get("Message-ID", "")
        for rcpt in envelope.rcpt_tos:
            md = os.path.join(top, "mail", rcpt.lower(), "Maildir")
            name = "%d.M%dP%d.test" % (time.time(), time.monotonic_ns(), os.getpid())
            tmp = os.path.join(md, "tmp", name)
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.chown(tmp, owner.pw_uid, owner.pw_gid)
            os.rename(tmp, os.path.join(md, "new", name))
            with open(os.path.join(top, "smtp.log"), "a") as log:
                log.write("from=<%s> to=<%s> id=%s\n" % (envelope.mail_from, rcpt, mid.strip()))
        return "250 OK delivered"

def authenticate(server, session, envelope, mechanism, data):
    ok = isinstance(data, LoginPassword) and \
        users().get(data.login.decode().lower()) == data.password.decode()
    return AuthResult(success=ok)

kw = {}
if tls:
    import ssl
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(os.path.join(top, "tls", "server.pem"),
                        os.path.join(top, "tls", "server.key"))
    kw = dict(tls_context=ctx, require_starttls=True, auth_required=True,
              auth_require_tls=True, authenticator=authenticate)
else:
    kw = dict(auth_require_tls=False)

loop = asyncio.new_event_loop()
asyncio.set_event_loop(loop)
server = loop.run_until_complete(loop.create_server(
    lambda: SMTP(Handler(), hostname="smtp.test", **kw), "127.0.0.1", port))
loop.add_signal_handler(signal.SIGTERM, loop.stop)
loop.run_forever()
EOF
}

# smtp_start [tls]: (re)start on the same port if it ran before.
smtp_start() {
	local tls=${1:-${SMTP_TLS:-}} try rc
	SMTP_TLS=$tls
	smtp_script >"$SRV_DIR/smtpd.py"
	for try in 1 2 3 4 5; do
		if [ -z "${SMTP_PORT_FIXED:-}" ]; then
			srv_port
			SMTP_PORT=$SRV_PORT
		fi
		/usr/bin/python3 "$SRV_DIR/smtpd.py" "$SRV_DIR" "$SMTP_PORT" \
			"${tls:-plain}" "$SRV_UID" 2>>"$SRV_DIR/smtp.err" &
		SMTP_PID=$!
		SRV_PIDS+=("$SMTP_PID")
		srv_greeting "$SMTP_PORT" '220 *' "$SMTP_PID"
		rc=$?
		if [ "$rc" -eq 0 ]; then
			SMTP_PORT_FIXED=1
			return 0
		fi
		srv_kill "$SMTP_PID"
		SMTP_PID=
		[ -n "${SMTP_PORT_FIXED:-}" ] && sleep 1
	done
	srv_die "the SMTP server did not start"
}

smtp_stop() {
	srv_kill "${SMTP_PID:-}"
	SMTP_PID=
}

smtp_pause() {
	kill -STOP "$SMTP_PID"
}

smtp_resume() {
	kill -CONT "$SMTP_PID"
}

smtp_crash_restart() {
	kill -KILL "$SMTP_PID" 2>/dev/null
	wait "$SMTP_PID" 2>/dev/null
	srv_forget "$SMTP_PID"
	smtp_start
}

srv_stop_all() {
	local p
	for p in "${SRV_PIDS[@]}"; do
		# Dovecot's children go with it (shutdown_clients).
		srv_kill "$p"
	done
	SRV_PIDS=()
}

# srv_folder USER NAME: a Maildir++ folder (Maildir/.NAME).
srv_folder() {
	mkdir -p "$SRV_DIR/mail/$1/Maildir/.$2/"{tmp,new,cur}
	chown -R "$SRV_UID:$SRV_GID" "$SRV_DIR/mail/$1/Maildir/.$2"
}

# srv_put USER FILE: as an MDA would (tmp/, then a rename into new/).
srv_put() {
	srv_put_md "$SRV_DIR/mail/$1/Maildir" "$2"
}

srv_put_folder() {
	srv_put_md "$SRV_DIR/mail/$1/Maildir/.$2" "$3"
}

srv_put_md() {
	local md=$1 name
	shift
	set -- "" "$@"
	SRV_SEQ=$((${SRV_SEQ:-0} + 1))
	name=$(date +%s).M${SRV_SEQ}P$$.put
	cp "$2" "$md/tmp/$name" || srv_die "srv_put $2"
	chown "$SRV_UID:$SRV_GID" "$md/tmp/$name"
	mv "$md/tmp/$name" "$md/new/$name" || srv_die "srv_put $2"
}

srv_files() {
	local md=$SRV_DIR/mail/$1/Maildir
	find "$md/new" "$md/cur" -type f 2>/dev/null | sort
}

srv_count() {
	srv_files "$1" | wc -l
}
