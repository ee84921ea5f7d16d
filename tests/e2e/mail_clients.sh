#!/bin/bash
# mail_clients: order files attached as text the way real mail programs
# attach them (issue 12), taken in through a real Dovecot over IMAP, which
# always hands messages out with CRLF line ends whatever the stored file
# holds. Each mail is stored in Dovecot's Maildir once with LF and once with
# CRLF line ends:
#   mutt -a          text/plain, no Content-Transfer-Encoding (7bit)
#   Apple Mail       text/plain, Content-Transfer-Encoding: 7bit, folded
#                    parameters
#   Outlook          quoted-printable, the file written on Windows (CRLF)
#   HTML + 7bit      multipart/alternative text and HTML, then the file 7bit
#   no final newline the file ends without a line end
# Every one is accepted, and the order file stored is exactly the bytes the
# player signed (its BLAKE2b-256, by b2sum, is the stored hash). The IMAP
# server is on 127.0.0.1 without TLS, so imap_starttls = off, as the
# README's loopback setup says.
# Usage: bash mail_clients.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-e2e.sh"
. "$SRC/tests/e2e/lib-servers.sh"
e2e_start mail_clients "${1:?usage: mail_clients.sh /path/to/hexpost}" \
	minisign sqlite3 b2sum perl
e2e_at_exit srv_stop_all

HP_PW=hexpost-pw-$RANDOM$RANDOM
srv_init "$T/srv"
srv_user hexpost@localhost "$HP_PW"
dovecot_start

e2e_datadir
cat >>"$CONF" <<EOF
from = hexpost@localhost
imap = imap://127.0.0.1:$IMAP_PORT/INBOX
imap_user = hexpost@localhost
imap_starttls = off
mail_timeout = 10
EOF
export HEXPOST_IMAP_PASSWORD=$HP_PW

hp() {
	"$HEXPOST" --config "$CONF" "$@" >"$T/out" 2>"$T/err"
}

e2e_keys blue
# A campaign per mail (an accepted file resolves its window); Blue's key
# plays in each, and the file's header says which.
for i in 1 2 3 4 5 6 7 8 9 10; do
	hp campaign new c$i --ruleset fire-and-movement --seed clients-$i ||
		fail "campaign new: $(cat "$T/err")"
	hp player add c$i blue --email blue@example.org --name Bea \
		--key "$T/blue.pub" || fail "player add: $(cat "$T/err")"
done
hp run --once || fail "first run: $(cat "$T/out" "$T/err")"

# order_file NAME NONCE [crlf] [nofinal]: $W/NAME, Blue's file for
# campaign c$N, signed.
order_file() {
	hp orders template c$N --side blue && cp "$T/out" "$W/template.txt" ||
		fail "template"
	grep -qx 'nonce:' "$W/template.txt" || fail "no empty nonce line"
	sed "s/^nonce:\$/nonce: $2/" "$W/template.txt" >"$W/$1"
	case " $* " in *" crlf "*) sed -i 's/$/\r/' "$W/$1" ;; esac
	case " $* " in *" nofinal "*) perl -0777 -pi -e 's/\r?\n\z//' "$W/$1" ;; esac
	minisign -S -s "$T/blue.key" -m "$W/$1" >/dev/null 2>&1 || fail "sign $1"
}

# qp FILE: Outlook's quoted-printable (hard line breaks, '=' as =3D).
qp() {
	tr -d '\r' <"$1" | sed 's/=/=3D/g'
}

# mail CLIENT NAME: $W/NAME.eml, built the way CLIENT builds it, LF.
mail() {
	local c=$1 f=$W/$2 s=$W/$2.minisig n=$2
	{
		printf 'From: Bea <blue@example.org>\nTo: hexpost@localhost\n'
		printf 'Subject: orders %s\nDate: Mon, 01 Jan 2024 10:00:00 +0000\n' "$n"
		printf 'Message-ID: <%s.%s@players.example>\nMIME-Version: 1.0\n' "$n" "$RANDOM"
		case $c in
		mutt)
			printf 'Content-Type: multipart/mixed; boundary="mutt-B"\n'
			printf 'Content-Disposition: inline\nUser-Agent: Mutt/2.2.9\n\n'
			printf -- '--mutt-B\nContent-Type: text/plain; charset=us-ascii\n'
			printf 'Content-Disposition: inline\n\nMy orders.\n\n'
			printf -- '--mutt-B\nContent-Type: text/plain; charset=us-ascii\n'
			printf 'Content-Disposition: attachment; filename="orders.txt"\n\n'
			cat "$f"; printf '\n'
			printf -- '--mutt-B\nContent-Type: text/plain; charset=us-ascii\n'
			printf 'Content-Disposition: attachment; filename="orders.txt.minisig"\n\n'
			cat "$s"; printf -- '\n--mutt-B--\n' ;;
		apple)
			printf 'Content-Type: multipart/mixed;\n\tboundary="Apple-Mail=_5E1F"\n\n'
			printf -- '--Apple-Mail=_5E1F\nContent-Transfer-Encoding: 7bit\n'
			printf 'Content-Type: text/plain;\n\tcharset=us-ascii\n\nOrders.\n\n'
			printf -- '--Apple-Mail=_5E1F\nContent-Disposition: attachment;\n'
			printf '\tfilename=orders.txt\nContent-Type: text/plain;\n'
			printf '\tx-unix-mode=0644;\n\tname="orders.txt"\n'
			printf 'Content-Transfer-Encoding: 7bit\n\n'
			cat "$f"; printf '\n'
			printf -- '--Apple-Mail=_5E1F\nContent-Disposition: attachment;\n'
			printf '\tfilename=orders.txt.minisig\nContent-Type: application/octet-stream;\n'
			printf '\tname="orders.txt.minisig"\nContent-Transfer-Encoding: 7bit\n\n'
			cat "$s"; printf -- '\n--Apple-Mail=_5E1F--\n' ;;
		outlook)
			printf 'Content-Type: multipart/mixed;\n\tboundary="_004_OL"\n\n'
			printf -- '--_004_OL\nContent-Type: text/plain; charset="us-ascii"\n'
			printf 'Content-Transfer-Encoding: quoted-printable\n\nOrders.\n\n'
			printf -- '--_004_OL\nContent-Type: text/plain; name="orders.txt"\n'
			printf 'Content-Disposition: attachment; filename="orders.txt"\n'
			printf 'Content-Transfer-Encoding: quoted-printable\n\n'
			qp "$f"; printf '\n'
			printf -- '--_004_OL\nContent-Type: application/octet-stream; name="orders.txt.minisig"\n'
			printf 'Content-Disposition: attachment; filename="orders.txt.minisig"\n'
			printf 'Content-Transfer-Encoding: quoted-printable\n\n'
			qp "$s"; printf -- '\n--_004_OL--\n' ;;
		html)
			printf 'Content-Type: multipart/mixed; boundary="M"\n\n--M\n'
			printf 'Content-Type: multipart/alternative; boundary="A"\n\n--A\n'
			printf 'Content-Type: text/plain; charset=utf-8\n\nOrders.\n--A\n'
			printf 'Content-Type: text/html; charset=utf-8\n\n<p>Orders.</p>\n--A--\n\n'
			printf -- '--M\nContent-Type: text/plain; charset=utf-8; name=orders.txt\n'
			printf 'Content-Disposition: attachment; filename=orders.txt\n'
			printf 'Content-Transfer-Encoding: 7bit\n\n'
			cat "$f"; printf '\n'
			printf -- '--M\nContent-Type: text/plain; name=orders.txt.minisig\n'
			printf 'Content-Disposition: attachment; filename=orders.txt.minisig\n'
			printf 'Content-Transfer-Encoding: 7bit\n\n'
			cat "$s"; printf -- '\n--M--\n' ;;
		esac
	} >"$W/$n.eml"
}

N=0
# one CLIENT LINE-ENDS [crlf] [nofinal]: a new file mailed by CLIENT, put in
# Dovecot with LINE-ENDS (lf or crlf), taken in over IMAP: accepted, and
# stored as signed.
one() {
	local c=$1 ends=$2 want got
	shift 2
	N=$((N + 1))
	STEP=$c-$ends-$N
	order_file "f$N.txt" "$c-$ends-$N" "$@"
	mail "$c" "f$N.txt"
	[ "$ends" = crlf ] && sed -i 's/$/\r/' "$W/f$N.txt.eml"
	srv_put hexpost@localhost "$W/f$N.txt.eml"
	hp run --once || fail "run: $(cat "$T/out" "$T/err")"
	grep -qxF "mail in: 1 accepted, 0 refused, 0 ignored, 0 duplicate, 0 deferred" \
		"$T/out" || fail "not accepted: $(cat "$T/out" "$T/err"; sqlite3 "$DB" \
		"SELECT detail FROM messages ORDER BY id DESC LIMIT 1")"
	want=$(b2sum -l 256 "$W/f$N.txt" | cut -d' ' -f1)
	got=$(sqlite3 "$DB" "SELECT lower(hex(hash)) FROM orders WHERE source = 'mail'
	    ORDER BY id DESC LIMIT 1")
	[ "$got" = "$want" ] || fail "stored file $got is not the signed $want"
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM order_signatures WHERE
	    lower(hex(hash)) = '$want'")" = 1 ] || fail "no signature recorded"
}

for ends in lf crlf; do
	one mutt $ends
	one apple $ends
	one outlook $ends crlf
	one html $ends
	one mutt $ends nofinal
done
STEP=final
[ "$(sqlite3 "$DB" "SELECT count(*) FROM messages WHERE outcome =
    'accepted'")" = 10 ] || fail "not every mail accepted"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM outbox WHERE kind = 'refusal'")" \
    = 0 ] || fail "a refusal was sent"
exit 0
