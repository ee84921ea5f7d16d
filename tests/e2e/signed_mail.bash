# Helpers for the daemon's e2e tests (sourced, not a test itself): signed
# files made with the real minisign CLI and mails built byte for byte the
# same on every run, so that two runs of a test can be compared.

# new_key NAME DIR: DIR/NAME.key and DIR/NAME.pub by `minisign -G -W`.
new_key() {
	minisign -G -W -p "$2/$1.pub" -s "$2/$1.key" >/dev/null 2>&1
}

# signed_mail KEY FILE FROM MSGID SUBJECT OUT: sign FILE with KEY (a fixed
# trusted comment, so the signature is the same every time) and write a
# mail to OUT carrying orders.txt and orders.txt.minisig.
signed_mail() {
	local key=$1 file=$2 from=$3 msgid=$4 subject=$5 out=$6
	rm -f "$file.minisig"
	minisign -S -s "$key" -m "$file" -t "hexpost test $msgid" \
		>/dev/null 2>&1 || return 1
	{
		printf 'From: %s\nTo: hexpost@localhost\nSubject: %s\n' \
			"$from" "$subject"
		printf 'Date: Mon, 01 Jan 2024 10:00:00 +0000\n'
		printf 'Message-ID: <%s>\nMIME-Version: 1.0\n' "$msgid"
		printf 'Content-Type: multipart/mixed; boundary="b0"\n\n'
		printf -- '--b0\nContent-Type: text/plain\n\nSigned file.\n\n'
		for part in orders.txt orders.txt.minisig; do
			local src=$file
			[ "$part" = orders.txt.minisig ] && src=$file.minisig
			printf -- '--b0\nContent-Type: text/plain; name="%s"\n' "$part"
			printf 'Content-Disposition: attachment; filename="%s"\n' "$part"
			printf 'Content-Transfer-Encoding: base64\n\n'
			base64 -w 76 "$src"
		done
		printf -- '--b0--\n'
	} >"$out"
}

# deliver MAILDIR FILE NAME: into MAILDIR/new as an MDA would (tmp/ first).
deliver() {
	cp "$2" "$1/tmp/$3" && mv "$1/tmp/$3" "$1/new/$3"
}

# mail_body FILE: the message after its header block (Date: differs from
# run to run, the body does not).
mail_body() {
	awk 'b { print } /^\r?$/ { b = 1 }' "$1"
}
