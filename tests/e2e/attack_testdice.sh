#!/bin/bash
# attack_testdice: a test campaign passed off as a real one (issue 11,
# lever 4). A campaign made with `campaign new --seed TEXT` (anyone who
# knows or guesses TEXT knows every die) is played by signed mail; then
#  1. `hexpost audit`, `hexpost audit --bundle` and contrib/hexpost-audit.py
#     each fail it, saying it is a TEST campaign, and pass it with a loud
#     warning only given --accept-test-dice;
#  2. the bundle with its "dice: test" line changed to "dice: random" (the
#     operator hiding it) fails both verifiers: the signed seed chain
#     statement says test dice;
#  3. with the short seed text and one revealed seed, the seeds of the
#     windows to come are computed (the danger the mark warns of).
# Usage: bash attack_testdice.sh /path/to/hexpost  (HEXPOST_SOURCE: source dir)
set -u
. "$(dirname "$0")/lib-attack.sh"
attack_start attack_testdice "${1:?usage: attack_testdice.sh /path/to/hexpost}"

hp campaign new hill --ruleset fire-and-movement --seed demo >"$T/out" ||
	fail "campaign new"
grep -q "for tests and demos only" "$T/out" || fail "no warning at creation"
hp player add hill blue --email blue@example.org --name Bea \
	--key "$T/blue.pub" >/dev/null || fail "player add"
for i in 1 2 3; do
	send hill blue
	hp run --once >"$T/out" 2>"$T/err" || fail "run: $(cat "$T/err")"
done
[ "$(sqlite3 "$DB" "SELECT count(*) FROM dice_logs")" -ge 2 ] || fail "too few windows"

PHRASE="campaign hill is a TEST campaign"
caught_db hill "$PHRASE"
hp audit export hill "$T/bundle" >/dev/null 2>"$T/err" || fail "export: $(cat "$T/err")"
grep -qx "dice: test" "$T/bundle/campaign.txt" || fail "the bundle does not say test dice"
grep -qx "dice: test" "$T/bundle/chain.txt" || fail "the chain statement does not say test dice"
caught "$T/bundle" "$PHRASE"
hp audit hill --accept-test-dice >"$T/out" 2>"$T/err" ||
	fail "audit --accept-test-dice: $(cat "$T/err")"
grep -q "^WARNING: hill is a TEST campaign" "$T/out" || fail "no warning: $(cat "$T/out")"
"$HEXPOST" audit --bundle "$T/bundle" --accept-test-dice >"$T/out" 2>&1 ||
	fail "audit --bundle --accept-test-dice: $(cat "$T/out")"
grep -q "^WARNING: .* is a TEST campaign" "$T/out" || fail "no warning: $(cat "$T/out")"
python3 "$PYAUDIT" --accept-test-dice "$T/bundle" >"$T/out" 2>&1 ||
	fail "hexpost-audit.py --accept-test-dice: $(cat "$T/out")"
grep -q "WARNING: a TEST campaign" "$T/out" || fail "no warning: $(cat "$T/out")"

# The operator hides the mark in the bundle.
cp -r "$T/bundle" "$T/b2"
sed -i 's/^dice: test$/dice: random/' "$T/b2/campaign.txt"
caught "$T/b2" "the signed seed chain statement says 'test' dice"

# Why it matters: the text "demo" and the first revealed seed give every
# seed to come (docs/AUDIT.md, "Seeds" and "Seed chain").
S1=$(sqlite3 "$DB" "SELECT lower(hex(seed)) FROM windows ORDER BY id LIMIT 1")
S2=$(sqlite3 "$DB" "SELECT lower(hex(seed)) FROM windows ORDER BY id LIMIT 1 OFFSET 1")
got=$(python3 - "$S1" <<'PY'
import hashlib, sys
def b2(m, n, key=b""):
    return hashlib.blake2b(m, digest_size=n, key=key).digest()
def link(s):
    return b2(b"hexpost-chain-v1\x00" + s, 32)
tail = b2(b"hexpost-seed-v1\x00hill\x00" + bytes(8), 32, b2(b"demo", 32))
chain = [tail]
for _ in range(65536):
    chain.append(link(chain[-1]))
chain.reverse()               # chain[k] = seed k, chain[0] = head
k = chain.index(bytes.fromhex(sys.argv[1]))
print(chain[k + 1].hex())
PY
)
[ "$got" = "$S2" ] || fail "the next seed was not predicted: $got vs $S2"
echo "attack_testdice: ok"
