#!/bin/bash
# audit_vectors: the spec's vectors, recomputed by independent Python:
#  - the reference implementation in docs/AUDIT.md ("Python reference"),
#    extracted from the document and run: it asserts every dice, seed
#    chain and window-key vector and prints "ok";
#  - contrib/hexpost-audit.py's Ed25519 against the variant the spec
#    settles (the same vectors as tests/unit/test_ed25519.c for libsodium):
#    a valid signature verifies; S + L, the small-order identity forgery
#    and a non-canonical key are refused;
#  - the dice-log and seed-chain vector files are what the reference
#    writes (their BLAKE2b-256 as the spec gives them).
# Usage: bash audit_vectors.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u
SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
fail() { echo "audit_vectors: FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || fail "python3 is not installed"

out=$(python3 - "$SRC/docs/AUDIT.md" <<'PY' 2>&1
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r"### Python reference.*?```python\n(.*?)```", s, re.S)
exec(compile(m.group(1), "AUDIT.md", "exec"), {"__name__": "__main__"})
PY
) || fail "the reference in docs/AUDIT.md: $out"
[ "$out" = ok ] || fail "the reference printed: $out"

python3 - "$SRC" <<'PY' || fail "Ed25519 variant or vector files"
import hashlib, importlib.util, sys
src = sys.argv[1]
spec = importlib.util.spec_from_file_location(
    "hpa", src + "/contrib/hexpost-audit.py")
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
pk = bytes.fromhex(
    "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8")
sig = bytes.fromhex(
    "59203e9ff7fa2112ebdd831704b67f982ede212fd8d4f22d569b0b7fecd48a49"
    "14c16f0276b9738a1f7297f20c89114455e93abaaa663e5a1c96682ad804e400")
assert m.ed25519_verify(pk, b"hexpost", sig)
s = int.from_bytes(sig[32:], "little") + m.L
assert not m.ed25519_verify(pk, b"hexpost", sig[:32] + s.to_bytes(32, "little"))
ident = b"\x01" + bytes(31)
assert not m.ed25519_verify(ident, b"hexpost", ident + bytes(32))
nc = (m.P + 1).to_bytes(32, "little")
assert not m.ed25519_verify(nc, b"hexpost", nc + bytes(32))
# Base64: canonical only (unused bits zero), as libsodium decodes it.
assert m.b64("AAE=") == b"\x00\x01"
for bad in ("AAF=", "AB==", "AAE", "AA=E"):
    try:
        m.b64(bad)
    except (m.Bad, ValueError):
        continue
    raise AssertionError("accepted " + bad)
def b2(path):
    return hashlib.blake2b(open(path, "rb").read(), digest_size=32).hexdigest()
v = src + "/tests/data/audit-vectors/"
assert b2(v + "dice-log.txt") == (
    "af770b9eb8d491937d9ea904d7919b708aac6b017ddd4ecf9a0c15837fe8ce62")
assert b2(v + "chain.txt") == (
    "751c93a48237e75b06f02c079603b765d4fbdd8f022b8c89079dd063144ff00d")
# Order file headers (docs/AUDIT.md, "Settled questions"): an empty
# nonce may be given again, filled or not; a filled one may not; after the
# first order an unknown "key: value" line is an order, a known header an
# error. tests/unit/test_orders.c checks hexpost's parser on the same.
H = b"campaign: demo\nturn: 3\nwindow: blue\nside: blue\n"
for ok in (b"nonce:\nnonce: x\n", b"nonce:\nnonce:\n",
           b"fire 1\nfoo: bar\n", b"nonce: x\nfire 1\nx-y: z\n"):
    assert m.order_header(H + ok) == ("demo", 3, "blue", "blue"), ok
for bad in (b"nonce: x\nnonce:\n", b"nonce: x\nnonce: y\n",
            b"fire 1\nnonce: x\n", b"fire 1\nTurn: 3\n", b"foo: bar\n"):
    try:
        m.order_header(H + bad)
    except m.Bad:
        continue
    raise AssertionError("accepted %r" % bad)
# Standing orders' sequence (docs/AUDIT.md): the header's form, and the
# put-back vectors against contrib/hexpost-audit.py's check.
S = b"campaign: demo\nturn: 1\nwindow: standing\nside: red\n"
assert m.order_header_fields(S + b"sequence: 05\n")["sequence"] == "05"
for bad in (H + b"sequence: 1\n", S + b"sequence: 0\n", S + b"sequence: -1\n",
            S + b"sequence: 1234567890123456789\n", S + b"sequence: 1x\n",
            S + b"sequence: 1\nsequence: 2\n", S + b"x 1\nsequence: 1\n"):
    try:
        m.order_header_fields(bad)
    except m.Bad:
        continue
    raise AssertionError("accepted %r" % bad)
st = [S + b"sequence: %d\nnonce: n-%d\npolicy %s\n" % (n, n, p)
      for n, p in ((1, b"nearest"), (2, b"best"))]
assert hashlib.blake2b(st[1], digest_size=32).hexdigest() == (
    "97a99b2ec21339ccf651bacad5a87cb72a052d4e0de22644c241e2a0e1d6872a")
nos = st[0].replace(b"sequence: 1\n", b"")
def put_back(files):
    seen = {}
    for i, f in enumerate(files):
        try:
            m.check_standing_seq(seen, "w%d" % i, ["w%d" % k for k in
                                 range(len(files))], i, "red", f)
        except m.Bad as e:
            assert "an older standing file was put back in force" in str(e)
            return i
    return None
assert put_back([st[0], st[1], st[0]]) == 2
assert put_back([st[0], st[1], st[1]]) is None
assert put_back([st[0], st[0].replace(b"e: 1", b"e: 01")]) == 1
assert put_back([st[0], nos]) == 1
assert put_back([nos, st[0], st[1]]) is None
PY
# minisign files (docs/AUDIT.md, "Settled questions"): LF or CRLF, the last
# line ending optional, empty lines after; the untrusted comment line at
# most 1022 bytes with its prefix, the trusted comment at most 1023 after
# it. tests/unit/test_minisign.c checks hexpost's parser on the same.
command -v minisign >/dev/null || fail "minisign is not installed"
MT=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-vectors.XXXXXX") || exit 1
trap 'rm -rf "$MT"' EXIT
minisign -G -W -p "$MT/k.pub" -s "$MT/k.key" >/dev/null 2>&1 || fail "minisign -G"
printf 'hexpost\n' >"$MT/m.txt"
for n in 1023 1024; do
	minisign -S -s "$MT/k.key" -m "$MT/m.txt" -x "$MT/t$n.minisig" \
		-t "$(head -c $n /dev/zero | tr '\0' x)" >/dev/null 2>&1 ||
		fail "minisign -S -t ($n bytes)"
done
python3 - "$SRC" "$MT" <<'PY' || fail "minisign line rules"
import importlib.util, sys
spec = importlib.util.spec_from_file_location(
    "hpa", sys.argv[1] + "/contrib/hexpost-audit.py")
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
d = sys.argv[2] + "/"
pub, msg = open(d + "k.pub").read(), open(d + "m.txt", "rb").read()
sig = open(d + "t1023.minisig").read()
def ok(s):
    m.minisign_verify(pub, s, msg)
def bad(s):
    try:
        m.minisign_verify(pub, s, msg)
    except (m.Bad, ValueError):
        return
    raise AssertionError("accepted %r" % s[:60])
ok(sig)
ok(sig.replace("\n", "\r\n"))
ok(sig.rstrip("\n"))
ok(sig + "\n\r\n\n")
bad(sig + "x\n")
bad(sig.rstrip("\n") + "\r")
bad(open(d + "t1024.minisig").read())
lines = sig.split("\n")
u = "untrusted comment: "
ok("\n".join([u + "y" * (1022 - len(u))] + lines[1:]))
bad("\n".join([u + "y" * (1023 - len(u))] + lines[1:]))
PY
echo "audit_vectors: ok"
