#!/bin/bash
# cli_help: the subcommand table of src/main.c is the one source of usage
# text. Every entry of the table (read from the source) answers --help with
# its usage line (exit 0), and 'hexpost help' lists that same line; 'hexpost
# help' lists as many commands as the table has. An unknown command or
# subcommand exits 64 with the whole list; 'help COMMAND' shows the entries
# of that command only.
# Usage: bash cli_help.sh /path/to/hexpost
set -u

. "$(dirname "$0")/lib-e2e.sh"
e2e_start cli_help "${1:?usage: cli_help.sh /path/to/hexpost}"
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
export HEXPOST_DB="$T/none.db"

# The table's entries, "name" or "name sub", from the source.
awk '/^static const struct cmd cmds\[\] = \{/ { on = 1; next }
	on && /^\};/ { exit }
	on && match($0, /^\t\{ "[a-z]+", (NULL|"[a-z]+"),/) {
		split(substr($0, RSTART, RLENGTH), f, "\"")
		print (f[4] == "" ? f[2] : f[2] " " f[4])
	}' "$SRC/src/main.c" >"$T/entries"
n=$(wc -l <"$T/entries")
[ "$n" -ge 20 ] || fail "only $n entries read from the table"

e2e_run 0 help
cp "$T/out" "$T/list"
# Every entry is two lines of the list: its usage, then its help.
[ "$(grep -c '^  [a-z]' "$T/list")" -eq "$n" ] ||
	fail "help lists $(grep -c '^  [a-z]' "$T/list") commands, the table has $n"

while read -r entry; do
	# shellcheck disable=SC2086
	e2e_run 0 $entry --help
	# (moderate parses its own arguments: its usage has no [--db PATH])
	line=$(sed -n 's/^usage: hexpost \(\[--db PATH\] \)\{0,1\}//p' \
	    "$T/err" | head -1)
	[ -n "$line" ] || fail "$entry --help printed no usage line"
	case "$line" in
	"$entry"*) ;;
	*) fail "$entry --help: usage '$line' is not of $entry" ;;
	esac
	grep -qxF -- "  $line" <(sed 's/ *$//' "$T/list") ||
		fail "hexpost help lacks the usage of $entry: $line"
	# shellcheck disable=SC2086
	e2e_run 0 help $entry
	e2e_has out "$line"
done <"$T/entries"

# Unknown commands and subcommands: 64 and the whole list.
for bad in frobnicate "campaign frob" "key" "help frobnicate"; do
	# shellcheck disable=SC2086
	e2e_run 64 $bad
	word=${bad#help }
	e2e_has err "hexpost: unknown command '${word%% *}'"
	sed 's/ *$//' "$T/list" | while IFS= read -r l; do
		grep -qxF -- "$l" <(sed 's/ *$//' "$T/err") ||
			fail "'$bad': the list lacks: $l"
	done || exit 1
done
# help of a command word shows its subcommands only.
e2e_run 0 help campaign
[ "$(grep -c '^usage: ' "$T/out")" -eq "$(grep -c '^campaign ' "$T/entries")" ] ||
	fail "help campaign: $(cat "$T/out")"
e2e_has out "usage: hexpost [--db PATH] campaign show NAME"
# A bad option or argument count: 64 with that command's usage.
e2e_run 64 campaign list extra
e2e_has err "usage: hexpost [--db PATH] campaign list"
e2e_run 64 map --bogus x
e2e_has err "usage: hexpost [--db PATH] map NAME"
# What the table says a command needs: a database, a configuration.
e2e_run 66 campaign list
e2e_has err "no database (run 'hexpost init' first, or give --db)"
e2e_run 78 key generate
e2e_has err "hexpost: key generate needs a configuration (--config FILE): it names server_key and server_pub"

echo "cli_help: ok ($n commands)"
