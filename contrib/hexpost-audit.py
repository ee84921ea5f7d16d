#!/usr/bin/python3
"""hexpost-audit: check a hexpost audit bundle with Python's standard library
alone, written from docs/AUDIT.md (not from hexpost's C sources).

    python3 hexpost-audit.py [--pubkey server.pub] [--accept-test-dice]
                             [--player-key SIDE=KEY.pub]...
                             [--moderator-key KEY.pub]
                             [--accept-unsigned-moderation] BUNDLE-DIRECTORY

The server keys: the trusted one (--pubkey, else the bundle's server.pub)
and those the key rotation statements (rotations/) link to it, each
statement signed by its old key and countersigned by its new one. The seed
chain statement (chain.txt), signed by one of those keys when the campaign
was created; each revealed seed must hash to the one before it, back to its
head. For every window: the server's minisign signature of the dice log (pure Python
Ed25519, RFC 8032) by one of those keys, in the order of the chain, the
hash chain, the revealed seed against the
commitment, each order file against its hash and its player's signature,
the dice key, and every roll re-derived from the stream. It does not replay
the game's rules (`hexpost audit --bundle DIR` does). The moderator's
statements (moderator/), each signed by the campaign's moderator key
(moderator.pub; pin the one the moderator gave you with --moderator-key):
an end on record and each proceed must be one, and a side's files change
key only by a replace statement. A statement with no .minisig is an
unsigned moderator action (a campaign without a moderator key): it fails,
as does a key change or an end with no statement, unless
--accept-unsigned-moderation is given. A test campaign
(`dice: test`, made with `campaign new --seed TEXT`) fails unless
--accept-test-dice is given, and is then checked with a loud warning. Exit 0
when all is well, 1 naming the first discrepancy, 2 on usage or unreadable
input.
"""
import base64
import hashlib
import os
import re
import sys

# --- Ed25519 verification (RFC 8032, section 6) -----------------------------

P = 2 ** 255 - 19
L = 2 ** 252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


def _add(a, b):
    x = (a[1] - a[0]) * (b[1] - b[0]) % P
    y = (a[1] + a[0]) * (b[1] + b[0]) % P
    c = 2 * a[3] * b[3] * D % P
    d = 2 * a[2] * b[2] % P
    e, f, g, h = y - x, d - c, d + c, y + x
    return (e * f, g * h, f * g, e * h)


def _mul(s, pt):
    q = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            q = _add(q, pt)
        pt = _add(pt, pt)
        s >>= 1
    return q


def _equal(a, b):
    return ((a[0] * b[2] - b[0] * a[2]) % P == 0
            and (a[1] * b[2] - b[1] * a[2]) % P == 0)


def _recover_x(y, sign):
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P)
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P != 0:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P != 0:
        return None
    if (x & 1) != sign:
        x = P - x
    return x


_GY = 4 * pow(5, P - 2, P) % P
_GX = _recover_x(_GY, 0)
G = (_GX, _GY, 1, _GX * _GY % P)


def _decompress(s):
    y = int.from_bytes(s, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= P:          # not canonical
        return None
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % P)


def _small_order(pt):
    return _equal(_mul(8, pt), (0, 1, 1, 0))


def ed25519_verify(public, msg, sig):
    """RFC 8032 without the cofactor, as libsodium's
    crypto_sign_verify_detached: S < L, A and R canonical and not of small
    order (docs/AUDIT.md, "Settled questions")."""
    if len(public) != 32 or len(sig) != 64:
        return False
    a = _decompress(public)
    r = _decompress(sig[:32])
    if a is None or r is None or _small_order(a) or _small_order(r):
        return False
    s = int.from_bytes(sig[32:], "little")
    if s >= L:
        return False
    h = int.from_bytes(hashlib.sha512(sig[:32] + public + msg).digest(),
                       "little") % L
    return _equal(_mul(s, G), _add(r, _mul(h, a)))


# --- minisign ----------------------------------------------------------------

def b64(text):
    """Standard base64 with "=" padding, canonical only: unused bits of the
    last character must be zero, as libsodium's decoder requires
    (docs/AUDIT.md, "Settled questions")."""
    b = base64.b64decode(text, validate=True)
    if base64.b64encode(b).decode("ascii") != text:
        raise Bad("base64 that is not in canonical form")
    return b


class Bad(Exception):
    """A discrepancy: the audit fails with this message."""


def minisign_lines(text, what, need):
    """The lines of a minisign file as hexpost reads them (docs/AUDIT.md,
    "Settled questions"): LF or CRLF endings, the last one optional; no NUL
    and no CR but before LF; after the first `need` lines only empty
    ones."""
    if "\0" in text:
        raise Bad("%s: a NUL byte" % what)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for i, line in enumerate(lines):
        if line.endswith("\r") and (i + 1 < len(lines) or
                                    text.endswith("\n")):
            line = lines[i] = line[:-1]
        if "\r" in line:
            raise Bad("%s: line %d contains a stray carriage return"
                      % (what, i + 1))
    if len(lines) < need:
        raise Bad("%s: missing line %d" % (what, len(lines) + 1))
    for i, line in enumerate(lines[need:]):
        if line:
            raise Bad("%s: unexpected text on line %d" % (what, need + i + 1))
    return lines[:need]


def parse_pubkey(text):
    lines = [l for l in text.splitlines() if l.strip()]
    if len(lines) > 1 and len(lines[0].encode()) > COMMENT_LINE_MAX:
        raise Bad("public key: the untrusted comment line is too long")
    b = b64(lines[-1])
    if len(b) != 42 or b[:2] != b"Ed":
        raise Bad("not a minisign public key")
    return b[2:10], b[10:]


def keyid_hex(keyid):
    return int.from_bytes(keyid, "little").to_bytes(8, "big").hex().upper()


def minisign_verify(pubtext, sigtext, data):
    """Verify like `minisign -V`; returns the trusted comment."""
    return minisign_verify_key(parse_pubkey(pubtext), sigtext, data)


# Longest untrusted comment line (prefix included, line ending not) and
# longest trusted comment (after its prefix), in bytes, that minisign reads.
COMMENT_LINE_MAX = 1022
TRUSTED_MAX = 1023


def sig_keyid(sigtext):
    """The key id a .minisig says it was made with."""
    lines = minisign_lines(sigtext, "signature", 4)
    sig = b64(lines[1])
    if len(sig) != 74:
        raise Bad("not a minisign signature")
    return sig[2:10]


def minisign_verify_key(key, sigtext, data):
    """minisign_verify with a (keyid, public key) pair."""
    keyid, pk = key
    lines = minisign_lines(sigtext, "signature", 4)
    if not lines[0].startswith("untrusted comment: ") \
            or not lines[2].startswith("trusted comment: "):
        raise Bad("not a minisign signature")
    if len(lines[0].encode()) > COMMENT_LINE_MAX:
        raise Bad("signature: the untrusted comment line is too long")
    if len(lines[2].encode()) - len("trusted comment: ") > TRUSTED_MAX:
        raise Bad("signature: the trusted comment is too long")
    sig = b64(lines[1])
    gsig = b64(lines[3])
    if len(sig) != 74 or len(gsig) != 64:
        raise Bad("not a minisign signature")
    if sig[2:10] != keyid:
        raise Bad("signed by key %s, not by key %s"
                  % (keyid_hex(sig[2:10]), keyid_hex(keyid)))
    if sig[:2] == b"ED":
        msg = hashlib.blake2b(data, digest_size=64).digest()
    elif sig[:2] == b"Ed":
        msg = data
    else:
        raise Bad("unknown signature algorithm")
    if not ed25519_verify(pk, msg, sig[10:]):
        raise Bad("signature verification failed")
    trusted = lines[2][len("trusted comment: "):]
    if not ed25519_verify(pk, sig[10:] + trusted.encode(), gsig):
        raise Bad("trusted comment signature verification failed")
    return trusted


# --- the dice (docs/AUDIT.md, "Dice") ----------------------------------------

def b2(msg, size, key=b""):
    return hashlib.blake2b(msg, digest_size=size, key=key).digest()


def commit(seed):
    return b2(b"hexpost-commit-v1\x00" + seed, 32)


def derive_key(seed, campaign, turn, window, hashes):
    msg = (b"hexpost-dice-v1\x00" + campaign.encode() + b"\x00"
           + turn.to_bytes(4, "big") + window.to_bytes(4, "big")
           + len(hashes).to_bytes(4, "big"))
    return b2(msg + b"".join(hashes), 32, seed)


class Dice:
    def __init__(self, key):
        self.key, self.i, self.buf = key, 0, b""

    def byte(self):
        if not self.buf:
            self.buf = b2(b"hexpost-stream-v1\x00"
                          + self.i.to_bytes(8, "big"), 64, self.key)
            self.i += 1
        b, self.buf = self.buf[0], self.buf[1:]
        return b

    def roll(self, sides):
        if sides <= 256:
            limit = 256 - 256 % sides
            while (v := self.byte()) >= limit:
                pass
        else:
            limit = 65536 - 65536 % sides
            while (v := self.byte() << 8 | self.byte()) >= limit:
                pass
        return v % sides + 1


# --- the dice log (docs/AUDIT.md, "Dice log") --------------------------------

def unescape(s):
    out, i = bytearray(), 0
    raw = s.encode()
    while i < len(raw):
        if raw[i:i + 2] == b"\\x":
            out.append(int(raw[i + 2:i + 4], 16))
            i += 4
        else:
            out.append(raw[i])
            i += 1
    try:
        return out.decode()
    except UnicodeDecodeError:
        raise Bad("a roll's purpose is not valid UTF-8")


def parse_log(text):
    lines = text.split("\n")
    if lines[-1] != "":
        raise Bad("the dice log does not end with a newline")
    lines = lines[:-1]
    it = iter(lines)

    def field(key):
        line = next(it, None)
        if line is None or not line.startswith(key + ": "):
            raise Bad("the dice log has no '%s:' line where expected" % key)
        return line[len(key) + 2:]

    if next(it, None) != "hexpost dice log v1":
        raise Bad("not a hexpost dice log v1")
    log = {"campaign": field("campaign"), "turn": int(field("turn"))}
    num, name = field("window").split(" ", 1)
    log["window"], log["window_name"] = int(num), name
    for k in ("previous", "commitment", "seed"):
        log[k] = bytes.fromhex(field(k))
    log["orders"] = []
    log["nonce_form"] = False
    line = next(it, "")
    while line.startswith("order: ") or line.startswith("order-nonce: "):
        # "order-nonce:": hidden orders enter the key through their nonce
        # commitment (docs/AUDIT.md, "Hidden orders").
        if line.startswith("order-nonce: "):
            log["nonce_form"] = True
        side, source, h = line.split(": ", 1)[1].split(" ")
        log["orders"].append((side, source, bytes.fromhex(h)))
        line = next(it, "")
    log["standing"] = []
    while line.startswith("standing: "):
        side, h = line[10:].split(" ")
        log["standing"].append((side, bytes.fromhex(h)))
        line = next(it, "")
    if not line.startswith("key: "):
        raise Bad("the dice log has no 'key:' line")
    log["key"] = bytes.fromhex(line[5:])
    opp = field("opponent")
    log["opponent"] = [] if opp == "-" else opp.split(" ")
    nc = field("next-commitment")
    log["next"] = None if nc == "none" else bytes.fromhex(nc)
    n = int(field("rolls"))
    log["rolls"] = []
    for _ in range(n):
        seq, sides, target, result, purpose = field("roll").split(" ", 4)
        if len(unescape(purpose).encode()) > 119:
            raise Bad("a roll's purpose is longer than 119 bytes")
        log["rolls"].append((int(seq), int(sides), int(target), int(result),
                             unescape(purpose)))
    if next(it, None) != "end" or next(it, None) is not None:
        raise Bad("the dice log does not end with 'end' after %d rolls" % n)
    if format_log(log) != text:
        raise Bad("the dice log is not in canonical form (numbers, spacing "
                  "or hex digits differ from docs/AUDIT.md)")
    if min([log["turn"], log["window"]] + [min(r[:4]) for r in log["rolls"]]
           + [0]) < 0:
        raise Bad("the dice log has a negative number")
    return log


def escape(purpose):
    return "".join("\\x%02x" % b if b < 0x20 or b == 0x7f or b == 0x5c
                   else chr(b) for b in purpose.encode()) \
        .encode("latin-1").decode("utf-8")


def format_log(log):
    """The canonical text of a parsed dice log."""
    out = ["hexpost dice log v1", "campaign: " + log["campaign"],
           "turn: %d" % log["turn"],
           "window: %d %s" % (log["window"], log["window_name"]),
           "previous: " + log["previous"].hex(),
           "commitment: " + log["commitment"].hex(),
           "seed: " + log["seed"].hex()]
    out += ["%s: %s %s %s" % ("order-nonce" if log.get("nonce_form")
                              else "order", side, src, h.hex())
            for side, src, h in log["orders"]]
    out += ["standing: %s %s" % (side, h.hex())
            for side, h in log["standing"]]
    out += ["key: " + log["key"].hex(),
            "opponent: " + (" ".join(log["opponent"]) or "-"),
            "next-commitment: " + (log["next"].hex() if log["next"]
                                   else "none"),
            "rolls: %d" % len(log["rolls"])]
    out += ["roll: %d %d %d %d %s" % (q, s, t, r, escape(pp))
            for q, s, t, r, pp in log["rolls"]]
    return "\n".join(out) + "\nend\n"


def log_comment(log):
    """The trusted comment of the server's signature of a dice log."""
    return "hexpost dice log: campaign %s, turn %d window %d '%s', %d rolls" \
        % (log["campaign"], log["turn"], log["window"], log["window_name"],
           len(log["rolls"]))


def order_header(data):
    """campaign, turn, window and side of an order file's header, read as
    hexpost reads it (docs/AUDIT.md, "Order file headers")."""
    h = order_header_fields(data)
    return h["campaign"], int(h["turn"]), h["window"], h["side"]


def hidden_order_commitment(side, data):
    """The nonce commitment through which an order file of a campaign with
    hidden orders enters the dice key (docs/AUDIT.md, "Hidden orders")."""
    nonce = order_header_fields(data).get("nonce", "")
    return b2(b"hexpost-hidden-order-v1\x00" + side.encode() + b"\x00"
              + nonce.encode(), 32)


def order_header_fields(data):
    """The header of an order file as a dict, checked as hexpost checks
    it."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    h = {}
    body = False
    for line in data.decode("utf-8").split("\n"):
        line = line.split("#", 1)[0].strip(" \t\n\v\f\r")
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z-]+):[ \t]*(.*)", line, re.S)
        known = m is not None and m.group(1).lower() in (
            "campaign", "turn", "window", "side", "nonce", "chain",
            "sequence")
        if body or m is None:
            # After the first order an unknown "key: value" line is an
            # order (the ruleset's to judge); a known header is an error
            # (docs/AUDIT.md, "Settled questions").
            if known:
                raise Bad("header '%s:' after the first order"
                          % m.group(1).lower())
            body = True
            continue
        key = m.group(1).lower()
        if not known:
            raise Bad("unknown header '%s:'" % m.group(1))
        if key in h and (key != "nonce" or h[key]):
            raise Bad("header '%s:' given twice" % key)
        h[key] = m.group(2)
    for key in ("campaign", "turn", "window", "side"):
        if not h.get(key):
            raise Bad("missing header '%s:'" % key)
    # An optional "-", decimal digits (leading zeros allowed), 0..100000
    # (docs/AUDIT.md, "Settled questions").
    if (not re.fullmatch(r"-?[0-9]+", h["turn"])
            or not 0 <= int(h["turn"]) <= 100000):
        raise Bad("bad 'turn:' header")
    if "chain" in h and not re.fullmatch(r"[0-9a-f]{64}", h["chain"]):
        raise Bad("bad 'chain:' header")
    # Standing orders only: 1 to 18 ASCII digits, not all zeros
    # (docs/AUDIT.md, "Standing orders' sequence").
    if "sequence" in h:
        if (not re.fullmatch(r"[0-9]{1,18}", h["sequence"])
                or int(h["sequence"]) == 0):
            raise Bad("bad 'sequence:' header")
        if h["window"].lower() != "standing":
            raise Bad("header 'sequence:' belongs only in standing orders")
    return h


def check_standing_seq(seen, where, wnames, i, side, data):
    """A standing file used in window i against the newest standing file
    of the side used before (docs/AUDIT.md, "Standing orders' sequence"):
    an older signed file put back in force fails."""
    seq = int(order_header_fields(data).get("sequence", "0"))
    h = b2(data, 32)
    if side in seen:
        pseq, ph, pi = seen[side]
        if seq < pseq or (seq == pseq and h != ph):
            raise Bad("%s: %s's standing orders have %s, but standing "
                      "orders of sequence %d were in force in %s: an older "
                      "standing file was put back in force"
                      % (where, side, "sequence %d" % seq if seq else
                         "no sequence", pseq, wnames[pi]))
    if seq and (side not in seen or seq > seen[side][0]):
        seen[side] = (seq, h, i)


def order_chain(data):
    """The seed chain head an order file's "chain:" header names, or
    None (read as order_header reads the header)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for line in data.decode("utf-8").split("\n"):
        line = line.split("#", 1)[0].strip(" \t\n\v\f\r")
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z-]+):[ \t]*(.*)", line, re.S)
        if m is None:
            return None
        if m.group(1).lower() == "chain":
            return m.group(2)
    return None


# --- key rotation (docs/AUDIT.md, "Key rotation") ---------------------------

ROTATION_MAGIC = "hexpost key rotation v1"


def key_line(key):
    return base64.b64encode(b"Ed" + key[0] + key[1]).decode()


def parse_statement(text):
    """A rotation statement, strictly: it must be its canonical text."""
    lines = text.split("\n")
    names = ("sequence", "old-key-id", "old-key", "new-key-id", "new-key",
             "time")
    if (len(lines) != 9 or lines[0] != ROTATION_MAGIC or lines[7] != "end"
            or lines[8] != ""):
        raise Bad("not a canonical '%s' statement" % ROTATION_MAGIC)
    f = {}
    for name, line in zip(names, lines[1:7]):
        if not line.startswith(name + ": "):
            raise Bad("the rotation statement has no '%s:' line where "
                      "expected" % name)
        f[name] = line[len(name) + 2:]
    st = {"seq": int(f["sequence"]), "time": f["time"]}
    for which in ("old", "new"):
        b = b64(f[which + "-key"])
        if len(b) != 42 or b[:2] != b"Ed":
            raise Bad("the rotation statement's %s-key is not a minisign "
                      "public key" % which)
        st[which] = (b[2:10], b[10:])
        if f[which + "-key-id"] != keyid_hex(b[2:10]):
            raise Bad("the rotation statement's %s-key-id is not the id of "
                      "its %s-key" % (which, which))
    canon = "%s\nsequence: %d\nold-key-id: %s\nold-key: %s\nnew-key-id: " \
        "%s\nnew-key: %s\ntime: %s\nend\n" % (
            ROTATION_MAGIC, st["seq"], keyid_hex(st["old"][0]),
            key_line(st["old"]), keyid_hex(st["new"][0]), key_line(st["new"]),
            st["time"])
    if canon != text or not re.fullmatch(
            r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", st["time"]):
        raise Bad("the rotation statement is not in its canonical form")
    return st


def rotation_comment(st, by_new):
    return "hexpost key rotation %d: %s -> %s, signed by the %s key" % (
        st["seq"], keyid_hex(st["old"][0]), keyid_hex(st["new"][0]),
        "new" if by_new else "old")


def key_chain(bundle, trusted):
    """Check every statement in rotations/ and return the keys the audit
    accepts, in chain order, and the number of statements followed: the
    whole chain if the trusted key is in it, else the trusted key alone."""
    rdir = os.path.join(bundle, "rotations")
    nums = sorted(int(n[:-4]) for n in (os.listdir(rdir)
                                        if os.path.isdir(rdir) else [])
                  if re.fullmatch(r"\d{4,}\.txt", n)
                  and n == "%04d.txt" % int(n[:-4]) and int(n[:-4]) >= 1)
    chain = []
    for i, num in enumerate(nums):
        if num != i + 1:
            raise Bad("key rotation statement %d is missing: the record "
                      "goes on with statement %d" % (i + 1, num))
        base = os.path.join(rdir, "%04d.txt" % num)
        text = read(base)
        try:
            st = parse_statement(text)
        except (ValueError, Bad) as e:
            raise Bad("key rotation statement %d: %s" % (num, e))
        if st["seq"] != num:
            raise Bad("key rotation statement %d says it is statement %d"
                      % (num, st["seq"]))
        if st["old"][0] == st["new"][0]:
            raise Bad("key rotation statement %d hands a key over to "
                      "itself" % num)
        for by_new, suffix in ((False, ".minisig"), (True, ".new.minisig")):
            who = "new" if by_new else "old"
            key = st[who]
            if not os.path.exists(base + suffix):
                raise Bad("key rotation statement %d has no signature by "
                          "its %s key" % (num, who))
            try:
                tc = minisign_verify_key(key, read(base + suffix),
                                         text.encode())
            except Bad as e:
                raise Bad("key rotation statement %d: rotation statement %d "
                          "is not %s %s: %s" % (
                              num, num, "countersigned by the new key"
                              if by_new else "signed by the old key",
                              keyid_hex(key[0]), e))
            if tc != rotation_comment(st, by_new):
                raise Bad("key rotation statement %d: the trusted comment "
                          "of the signature by the %s key is wrong"
                          % (num, who))
        if i == 0:
            chain.append(st["old"])
        elif st["old"] != chain[i]:
            raise Bad("key rotation statement %d hands over from key %s, "
                      "but statement %d handed over to key %s: a statement "
                      "is missing or was changed" % (
                          num, keyid_hex(st["old"][0]), i,
                          keyid_hex(chain[i][0])))
        if any(k[0] == st["new"][0] for k in chain):
            raise Bad("key rotation statement %d hands over to key %s, "
                      "which the chain had before"
                      % (num, keyid_hex(st["new"][0])))
        chain.append(st["new"])
    if trusted in chain:
        return chain, len(nums)
    return [trusted], 0


def chain_link(seed):
    """One link back along the seed chain (docs/AUDIT.md, "Seed chain")."""
    return b2(b"hexpost-chain-v1\x00" + seed, 32)


def parse_chain(text):
    """A seed chain statement, strictly in its canonical form."""
    m = re.fullmatch(r"hexpost seed chain v1\ncampaign: ([^\x00-\x20\x7f:#]+)\n"
                     r"dice: (random|test)\nlength: ([1-9][0-9]{0,9})\n"
                     r"head: ([0-9a-f]{64})\nend\n", text)
    if not m or int(m.group(3)) > 1000000000:
        raise Bad("the seed chain statement is not in the canonical form of "
                  "docs/AUDIT.md, \"Seed chain\"")
    return {"campaign": m.group(1), "test": m.group(2) == "test",
            "length": int(m.group(3)), "head": bytes.fromhex(m.group(4))}


def chain_comment(ch):
    return "hexpost seed chain: campaign %s, %d seeds, %s dice" % (
        ch["campaign"], ch["length"], "test" if ch["test"] else "random")


# Where an order file may come from (docs/AUDIT.md, "Dice log").
SOURCES = ("mail", "cli", "opponent", "standing", "deadline-ai",
           "deadline-hold")


# --- moderator statements (docs/AUDIT.md, "Moderator statements") ----------

MODSTMT_MAGIC = "hexpost moderator statement v1"
MOD_VERBS = ("replace", "proceed", "end", "extend", "deadline")


def parse_modstmt(text):
    """A moderator statement in canonical form, as a dict."""
    lines = text.split("\n")
    keys = ("campaign", "sequence", "window", "turn", "number", "name",
            "action")
    if (len(lines) != 10 or lines[0] != MODSTMT_MAGIC or lines[8] != "end"
            or lines[9] != ""
            or any(not lines[i + 1].startswith(k + ": ")
                   for i, k in enumerate(keys))):
        raise Bad("not a moderator statement (expected the lines '%s', "
                  "campaign:, sequence:, window:, turn:, number:, name:, "
                  "action: and 'end', each ending in LF)" % MODSTMT_MAGIC)
    m = {k: lines[i + 1][len(k) + 2:] for i, k in enumerate(keys)}
    if any(v.startswith(" ") for v in m.values()):
        raise Bad("moderator statement: more than one space after a colon")
    for k in ("sequence", "window", "turn", "number"):
        v = m[k]
        if not v.isdigit() or not v.isascii() or (v[0] == "0" and v != "0"):
            raise Bad("moderator statement: '%s' is not a number" % k)
        m[k] = int(v)
    verb, _, arg = m["action"].partition(" ")
    if verb not in MOD_VERBS or m["sequence"] < 1 or m["window"] < 1:
        raise Bad("moderator statement: action '%s' or a number is not one "
                  "a statement takes" % verb)
    m["verb"], m["arg"] = verb, arg
    return m


def format_modstmt(m):
    """The canonical text of statement m."""
    return ("%s\ncampaign: %s\nsequence: %d\nwindow: %d\nturn: %d\n"
            "number: %d\nname: %s\naction: %s\nend\n"
            % (MODSTMT_MAGIC, m["campaign"], m["sequence"], m["window"],
               m["turn"], m["number"], m["name"],
               m["verb"] + (" " + m["arg"] if m["arg"] else "")))


def deadline_filled(wdir):
    """How many sides of a resolved window a deadline policy filled."""
    try:
        log = parse_log(read(os.path.join(wdir, "dice-log.txt")))
    except (OSError, Bad, ValueError, KeyError, IndexError):
        return 0
    return sum(1 for o in log["orders"] if o[1].startswith("deadline-"))


def mod_action(m):
    """What statement m does, for the message of an unsigned one."""
    if m["verb"] == "replace":
        return "replace of %s" % m["arg"].split(" ")[0]
    return m["verb"] + (" " + m["arg"] if m["arg"] else "")


def unsigned_action(what, window, more=""):
    """The failure naming an unsigned moderator action (docs/AUDIT.md,
    "Unsigned moderator actions")."""
    return Bad("unsigned moderator action: %s in window %d%s; register a "
               "moderator key, or pass --accept-unsigned-moderation"
               % (what, window, more))


def check_statements(bundle, name, wins, nends, end_arg, modpin,
                     accept_unsigned=False):
    """The moderator key against the pinned one and every statement (one
    with no .minisig is unsigned: it fails unless accept_unsigned, and
    comes before any signed one); returns (key id or None, statements,
    sides filled without a proceed statement, unsigned actions)."""
    mpath = os.path.join(bundle, "moderator.pub")
    modpub = read(mpath) if os.path.exists(mpath) else None
    stmts, n = [], 1
    while os.path.exists(os.path.join(bundle, "moderator", "%04d.txt" % n)):
        stmts.append(n)
        n += 1
    gap = os.path.exists(os.path.join(bundle, "moderator",
                                      "%04d.txt" % (n + 1)))
    if modpin is not None:
        pid = keyid_hex(modpin[0])
        if modpub is None:
            raise Bad("you pinned moderator key %s, but campaign %s has no "
                      "moderator key: its moderator actions (replace, "
                      "proceed, end, extensions) are on the server's word"
                      % (pid, name))
        if parse_pubkey(modpub) != modpin:
            raise Bad("campaign %s's moderator key is not the key you "
                      "pinned (%s): the server may have registered a "
                      "moderator key of its own" % (name, pid))
    key = mid = None
    if modpub is not None:
        key = parse_pubkey(modpub)
        mid = keyid_hex(key[0])
    if gap:
        raise Bad("moderator statement %d is missing" % n)
    out, last, ends, proceeded = [], 1, 0, set()
    first_signed, nuns = 0, 0
    for num in stmts:
        path = os.path.join(bundle, "moderator", "%04d.txt" % num)
        text = read(path)
        uns = not os.path.exists(path + ".minisig")
        if not uns and key is None:
            raise Bad("campaign %s has a signed moderator statement (%d) "
                      "but no moderator key" % (name, num))
        if not uns:
            try:
                minisign_verify_key(key, read(path + ".minisig"),
                                    text.encode())
            except (Bad, ValueError, OSError) as e:
                raise Bad("moderator statement %d is not signed by the "
                          "moderator's key %s: %s" % (num, mid, e))
        try:
            m = parse_modstmt(text)
        except Bad as e:
            raise Bad("moderator statement %d: %s" % (num, e))
        if text != format_modstmt(m):
            raise Bad("moderator statement %d is not in canonical form" % num)
        if m["sequence"] != num or m["campaign"] != name:
            raise Bad("moderator statement %d names campaign %s, number %d"
                      % (num, m["campaign"], m["sequence"]))
        if m["window"] < last or m["window"] > len(wins):
            raise Bad("moderator statement %d is for window %d, not one "
                      "from %d to %d (statements follow the windows)"
                      % (num, m["window"], last, len(wins)))
        last = m["window"]
        w = wins[m["window"] - 1]
        wh = "turn %s window %s '%s'" % (w["turn"], w["number"], w["name"])
        if (m["turn"], m["number"], m["name"]) != (
                int(w["turn"]), int(w["number"]), w["name"]):
            raise Bad("moderator statement %d names turn %d window %d '%s', "
                      "but the campaign's window %d is %s"
                      % (num, m["turn"], m["number"], m["name"], m["window"],
                         wh))
        if not uns and not first_signed:
            first_signed = num
        if uns and first_signed:
            raise Bad("moderator statement %d is unsigned, after statement "
                      "%d signed by the moderator's key (once registered, "
                      "the key signs every statement)" % (num, first_signed))
        if uns:
            if not accept_unsigned:
                raise unsigned_action(mod_action(m), m["window"])
            nuns += 1
        wdir = os.path.join(bundle, "windows", "%04d" % m["window"])
        if m["verb"] == "end":
            ends += 1
            if (ends > 1 or nends == 0 or m["window"] != len(wins)
                    or w["state"] == "resolved" or m["arg"] != end_arg):
                raise Bad("moderator statement %d ends the game ('%s') in "
                          "%s, but the end on record is %s"
                          % (num, m["arg"], wh, "'%s'" % end_arg if nends
                             else "none"))
        if m["verb"] == "proceed":
            if w["state"] != "resolved" or deadline_filled(wdir) == 0:
                raise Bad("moderator statement %d says 'proceed %s' in %s, "
                          "but no side of that window was filled (no "
                          "deadline-ai or deadline-hold file)"
                          % (num, m["arg"], wh))
            proceeded.add(m["window"])
        out.append(m)
    if nends and not ends and mid is not None:
        raise Bad("the moderator's end of %s ('%s') is on record, but no "
                  "statement signed by the moderator's key %s ends it: "
                  "whoever runs the server may have ended the game"
                  % (name, end_arg, mid))
    if nends and not ends:
        # No key, and not even an unsigned statement of the end.
        if not accept_unsigned:
            raise unsigned_action("end" + (" " + end_arg if end_arg else ""),
                                  len(wins), " (on record with no statement)")
        nuns += 1
    fills = sum(deadline_filled(os.path.join(bundle, "windows", "%04d" % k))
                for k in range(1, len(wins) + 1)
                if k not in proceeded and wins[k - 1]["state"] == "resolved")
    return mid, out, fills, nuns


def check_seat(seats, stmts, widx, side, source, kid, where, keyless=False):
    """A side's signed file against its seats: its first key until a
    replace statement (in that window, the old or the new key); standing
    files by any key the side had. Without a moderator key (keyless), a
    key change is an unsigned moderator action."""
    cur, hist = seats.setdefault(side, ["", []])
    new = [m["arg"].split(" ")[1] for m in stmts if m["window"] == widx
           and m["verb"] == "replace" and m["arg"].split(" ")[0] == side][-1:]
    if source == "standing" and kid in hist:
        return
    if cur == "" or cur == kid or kid in new:
        if cur == "":
            seats[side] = [kid, hist + [kid]]
        return
    if keyless:
        raise unsigned_action(
            "replace of %s" % side, widx,
            " (%s's order file in %s is signed by key %s, but its key was "
            "%s and no statement on record replaced it)"
            % (side, where, kid, cur))
    raise Bad("%s: %s's order file is signed by key %s, but %s's key was %s "
              "and no statement signed by the moderator's key replaced it: "
              "the server may have seated a key of its own"
              % (where, side, kid, side, cur))


def seat_window(seats, stmts, widx):
    """After window widx: each side a statement replaced has its new key."""
    for m in stmts:
        if m["window"] == widx and m["verb"] == "replace":
            side, kid = m["arg"].split(" ")[:2]
            cur, hist = seats.setdefault(side, ["", []])
            seats[side] = [kid, hist + [kid]]



def kv(path):
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if ": " in line:
                k, v = line.split(": ", 1)
                out.setdefault(k, v)
    return out


def read(path, mode="r"):
    with open(path, mode, **({} if "b" in mode else {"encoding": "utf-8",
                                                      "newline": ""})) as f:
        return f.read()


# --- sealed dice (docs/AUDIT.md, "Sealed dice") -----------------------------

SEALED_MAGIC = "hexpost sealed set v1"
SEALED_ROLLS_MAGIC = "hexpost sealed rolls v1"


def set_sides(sides, mask):
    return "+".join(sd for k, sd in enumerate(sides) if mask >> k & 1)


def sealed_statement(name, test, sides, mask, seed):
    return ("%s\ncampaign: %s\ndice: %s\nset: %d %s\ncommitment: %s\nend\n"
            % (SEALED_MAGIC, name, "test" if test else "random", mask,
               set_sides(sides, mask), commit(seed).hex()))


def sealed_key(set_seed, window_key):
    return b2(b"hexpost-sealed-v1\x00" + window_key, 32, set_seed)


def load_sealed(bundle, name, test, sides, chain):
    """The seeds of the sealed sets ({mask: seed}), each checked against its
    statement, signed by a server key of the chain; {} when the bundle has
    no sealed dice."""
    d = os.path.join(bundle, "sealed")
    if not os.path.isdir(d):
        return {}
    seeds = {}
    for mask in range(1, 1 << len(sides)):
        where = "campaign %s sealed set %d" % (name, mask)
        path = os.path.join(d, "%d.txt" % mask)
        if not os.path.exists(path):
            raise Bad("%s: the set statement is missing (a campaign with "
                      "sealed dice has one per set of sides)" % where)
        if not os.path.exists(os.path.join(d, "%d.seed" % mask)):
            raise Bad("%s: its seed is not revealed: sealed dice are "
                      "audited after the game's end (a bundle carries the "
                      "seeds only then)" % where)
        st = read(os.path.join(d, "%d.seed" % mask))
        if not re.fullmatch(r"[0-9a-f]{64}\n", st):
            raise Bad("%s: the seed file is not 64 hex digits and a newline"
                      % where)
        seed = bytes.fromhex(st[:64])
        text = read(path)
        if text != sealed_statement(name, test, sides, mask, seed):
            raise Bad("%s: the revealed seed does not match the set "
                      "statement's commitment (or the statement is not "
                      "canonical)" % where)
        if not os.path.exists(path + ".minisig"):
            raise Bad("%s: the set statement is not signed" % where)
        sig = read(path + ".minisig")
        kid = sig_keyid(sig)
        if kid not in [k[0] for k in chain]:
            raise Bad("%s: the set statement is signed by a server key no "
                      "rotation statement links to the trusted key" % where)
        try:
            tc = minisign_verify_key(chain[[k[0] for k in chain].index(kid)],
                                     sig, text.encode())
        except (Bad, ValueError) as e:
            raise Bad("%s: the set statement does not match its server "
                      "signature: %s" % (where, e))
        want = "hexpost sealed set: campaign %s, set %d (%s)" % (
            name, mask, set_sides(sides, mask))
        if tc != want:
            raise Bad("%s: the statement's trusted comment is '%s', expected "
                      "'%s'" % (where, tc, want))
        seeds[mask] = seed
    return seeds


def check_sealed_rolls(path, where, name, w, key, seeds):
    """Re-derive every sealed roll of a window; their number."""
    if not os.path.exists(path):
        raise Bad("%s: the sealed rolls are missing" % where)
    text = read(path)
    lines = text.split("\n")
    head = [SEALED_ROLLS_MAGIC, "campaign: " + name, "turn: " + w["turn"],
            "window: %s %s" % (w["number"], w["name"])]
    if lines[:4] != head or not lines[4].startswith("rolls: ") \
            or lines[-2:] != ["end", ""]:
        raise Bad("%s: the sealed rolls are not for this window or not in "
                  "canonical form" % where)
    n = int(lines[4][7:])
    rolls = lines[5:-2]
    if len(rolls) != n:
        raise Bad("%s: the sealed rolls say %d rolls but list %d"
                  % (where, n, len(rolls)))
    streams, count = {}, {}
    for line in rolls:
        if not line.startswith("roll: "):
            raise Bad("%s: bad sealed roll line '%s'" % (where, line))
        mask, seq, sides, target, result, purpose = line[6:].split(" ", 5)
        mask, seq, sides, result = int(mask), int(seq), int(sides), int(result)
        if mask not in seeds:
            raise Bad("%s: a sealed roll of set %d, which does not exist"
                      % (where, mask))
        count[mask] = count.get(mask, 0) + 1
        if seq != count[mask]:
            raise Bad("%s: sealed roll %d of set %d is numbered #%d"
                      % (where, count[mask], mask, seq))
        if mask not in streams:
            streams[mask] = Dice(sealed_key(seeds[mask], key))
        if not 2 <= sides <= 65536:
            raise Bad("%s: sealed roll #%d of set %d has %d sides"
                      % (where, seq, mask, sides))
        got = streams[mask].roll(sides)
        if got != result:
            raise Bad("%s: sealed roll #%d of set %d (d%d, %s) is %d on "
                      "record, but its stream gives %d"
                      % (where, seq, mask, sides, unescape(purpose), result,
                         got))
    return n


def audit(bundle, server_pub_path=None, accept_test=False, pins=(),
          modpin=None, accept_unsigned=False):
    camp = kv(os.path.join(bundle, "campaign.txt"))
    name = camp["campaign"]
    if camp.get("dice") not in ("random", "test"):
        raise Bad("campaign.txt has no 'dice: random' or 'dice: test' line: "
                  "it does not say whether its dice are test dice")
    if camp["dice"] == "test" and not accept_test:
        raise Bad("campaign %s is a TEST campaign: its dice come from "
                  "'campaign new --seed TEXT', so anyone who knows or "
                  "guesses the text knows every die; it proves nothing about "
                  "fair dice (pass --accept-test-dice to check it anyway)"
                  % name)
    trusted = parse_pubkey(read(server_pub_path or
                               os.path.join(bundle, "server.pub")))
    chain, followed = key_chain(bundle, trusted)
    top = -1
    players = set()
    pfile = os.path.join(bundle, "players.txt")
    if os.path.exists(pfile):
        for line in read(pfile).split("\n"):
            if line.startswith("player: "):
                # "player: SIDE KEYID NAME": every key that signed, a
                # replaced player's too (key history).
                side, kid = line[8:].split(" ", 2)[:2]
                players.add((side, kid))
    # Sides a player with a key played: files entered by hand for them
    # must be signed (docs/AUDIT.md, "Signatures by source").
    keyed = {side for side, kid in players} | {sd for sd, k in pins}
    pinned = {}
    for sd, k in pins:
        pinned.setdefault(sd, []).append(k)
    camp_sides = {}
    for line in read(os.path.join(bundle, "campaign.txt")).split("\n"):
        if line.startswith("side: "):
            idx, sd = line[6:].split(" ")[:2]
            camp_sides[int(idx)] = sd
    if sorted(camp_sides) != list(range(len(camp_sides))):
        raise Bad("campaign.txt: the side lines are not 0, 1, ...")
    for sd in pinned:
        if sd not in camp_sides.values():
            raise Bad("--player-key %s=...: %s has no side %s"
                      % (sd, name, sd))
    nw = int(camp["windows"])
    wins = [kv(os.path.join(bundle, "windows", "%04d" % (i + 1),
                            "window.txt")) for i in range(nw)]
    # The seed chain statement: the campaign's first signed word, by a key
    # of the chain, before any log (docs/AUDIT.md, "Seed chain").
    where = "campaign %s" % name
    cpath = os.path.join(bundle, "chain.txt")
    if not os.path.exists(cpath):
        raise Bad("%s has no seed chain statement: its seeds were not fixed "
                  "when it was created, so the server could have chosen each "
                  "one" % where)
    if not os.path.exists(cpath + ".minisig"):
        raise Bad("%s: the seed chain statement is not signed" % where)
    ctext = read(cpath)
    csig = read(cpath + ".minisig")
    kid = sig_keyid(csig)
    if kid not in [k[0] for k in chain]:
        raise Bad("%s: the seed chain statement does not match its server "
                  "signature: it is signed by server key %s, which is not "
                  "the trusted key %s and which no key rotation statement "
                  "links to it" % (where, keyid_hex(kid),
                                   keyid_hex(trusted[0])))
    top = [k[0] for k in chain].index(kid)
    try:
        tc = minisign_verify_key(chain[top], csig, ctext.encode())
    except (Bad, ValueError) as e:
        raise Bad("%s: the seed chain statement does not match its server "
                  "signature: %s" % (where, e))
    sc = parse_chain(ctext)
    if tc != chain_comment(sc):
        raise Bad("%s: the seed chain statement's trusted comment is '%s', "
                  "expected '%s'" % (where, tc, chain_comment(sc)))
    if sc["campaign"] != name:
        raise Bad("%s: the seed chain statement is for campaign %s"
                  % (where, sc["campaign"]))
    if sc["test"] != (camp["dice"] == "test"):
        raise Bad("%s: the signed seed chain statement says '%s' dice, but "
                  "the campaign says it has %s dice"
                  % (where, "test" if sc["test"] else "random",
                     camp["dice"]))
    if sc["length"] < nw:
        raise Bad("%s has %d windows, but its seed chain has only %d seeds"
                  % (where, nw, sc["length"]))
    ctext_all = read(os.path.join(bundle, "campaign.txt"))
    nends = sum(1 for line in ctext_all.split("\n")
                if line.startswith("end:"))
    modid, stmts, fills, nuns = check_statements(
        bundle, name, wins, nends, camp.get("end", ""), modpin,
        accept_unsigned)
    seats = {}
    link = sc["head"]
    prev = bytes(32)
    stats = {"windows": 0, "rolls": 0, "signed": 0, "unsigned": 0,
             "rotations": followed, "test": camp["dice"] == "test",
             "noinput": 0, "modid": modid, "stmts": len(stmts),
             "modpinned": modpin is not None, "fills": fills,
             "sealed_sets": 0, "sealed_rolls": 0, "modunsigned": nuns}
    sides_list = [camp_sides[k] for k in sorted(camp_sides)]
    sealed = load_sealed(bundle, name, camp["dice"] == "test", sides_list,
                         chain)
    stats["sealed_sets"] = len(sealed)
    have_input = False
    seen = {}
    wnames = ["turn %s window %s '%s'" % (w["turn"], w["number"], w["name"])
              for w in wins]
    for i, w in enumerate(wins):
        where = "turn %s window %s '%s'" % (w["turn"], w["number"], w["name"])
        if w["state"] != "resolved":
            if "seed" in w:
                raise Bad("%s: the open window's seed is in the bundle; it "
                          "must stay secret until the window is resolved"
                          % where)
            if i + 1 != nw:
                raise Bad("%s is not resolved, but later windows exist"
                          % where)
            break
        wdir = os.path.join(bundle, "windows", "%04d" % (i + 1))
        logb = read(os.path.join(wdir, "dice-log.txt"), "rb")
        sigtext = read(os.path.join(wdir, "dice-log.txt.minisig"))
        try:
            kid = sig_keyid(sigtext)
            idx = [k[0] for k in chain].index(kid) \
                if kid in [k[0] for k in chain] else -1
            if idx < 0:
                raise Bad("it is signed by server key %s, which is not the "
                          "trusted key %s and which no key rotation "
                          "statement links to it"
                          % (keyid_hex(kid), keyid_hex(trusted[0])))
            tc = minisign_verify_key(chain[idx], sigtext, logb)
        except (Bad, ValueError) as e:
            raise Bad("%s: the dice log does not match its server "
                      "signature: %s" % (where, e))
        if idx < top:
            raise Bad("%s: the dice log is signed by server key %s, which "
                      "key rotation statement %d had replaced: an earlier "
                      "window's log is signed by the later key %s"
                      % (where, keyid_hex(chain[idx][0]), idx + 1,
                         keyid_hex(chain[top][0])))
        top = idx
        try:
            logt = logb.decode("utf-8")
        except UnicodeDecodeError:
            raise Bad("%s: the dice log is not valid UTF-8" % where)
        log = parse_log(logt)
        if (log["campaign"], log["turn"], log["window"],
                log["window_name"]) != (name, int(w["turn"]),
                                        int(w["number"]), w["name"]):
            raise Bad("%s: the dice log is for another window" % where)
        if tc != log_comment(log):
            raise Bad("%s: the dice log signature's trusted comment is '%s', "
                      "expected '%s'" % (where, tc, log_comment(log)))
        if log["previous"] != prev:
            raise Bad("%s: the hash chain is broken" % where)
        if log["commitment"] != bytes.fromhex(w["commitment"]):
            raise Bad("%s: the commitment differs from the published one"
                      % where)
        if log["seed"] != bytes.fromhex(w["seed"]):
            raise Bad("%s: the revealed seed differs from the log's" % where)
        if commit(log["seed"]) != log["commitment"]:
            raise Bad("%s: the revealed seed does not match the commitment"
                      % where)
        if chain_link(log["seed"]) != link:
            raise Bad("%s: the revealed seed is not seed %d of the signed "
                      "seed chain: it does not hash to %s"
                      % (where, i + 1, "the chain's head" if i == 0 else
                         "the previous window's seed"))
        link = log["seed"]
        sides = [camp_sides[k] for k in sorted(camp_sides)]
        mask = int(w["sides"])
        named = {sd for k, sd in enumerate(sides) if mask >> k & 1}
        opp = log["opponent"]
        if (any(o not in sides for o in opp) or len(set(opp)) != len(opp)
                or opp != sorted(opp, key=sides.index)):
            raise Bad("%s: the dice log's opponent line is not a list of "
                      "sides in side order" % where)
        listed = [o[0] for o in log["orders"]]
        if (any(sd not in sides for sd in listed)
                or listed != sorted(set(listed), key=sides.index)):
            raise Bad("%s: the dice log's order lines are not sides in side "
                      "order" % where)
        for sd in sorted(named - set(listed), key=sides.index):
            raise Bad("%s: the window names %s, but the dice log has no "
                      "order file of %s" % (where, sd, sd))
        # Then the standing orders in force when the window opened of the
        # sides it names, in the key after the order files (docs/AUDIT.md,
        # "Dice key"); their files are standing/SIDE.txt.
        stl = [o[0] for o in log["standing"]]
        if (any(sd not in named for sd in stl)
                or stl != sorted(set(stl), key=sides.index)):
            raise Bad("%s: the dice log's standing lines are not sides the "
                      "window names, in side order" % where)
        files = [(sd, src, h, "orders") for sd, src, h in log["orders"]]
        files += [(sd, "standing", h, "standing") for sd, h in
                  log["standing"]]
        hashes = []
        for side, source, h, sub in files:
            if sub == "orders" and (source == "standing") == (side in named):
                raise Bad("%s: %s's order file has source '%s', but the "
                          "window %s that side" % (where, side, source,
                                                   "names" if side in named
                                                   else "does not name"))
            if source == "opponent" and side not in opp:
                raise Bad("%s: %s's order file has source 'opponent', but "
                          "the dice log's opponent line does not list %s"
                          % (where, side, side))
            if source in ("cli", "standing") and side in opp and keyed:
                raise Bad("%s: %s's order file has source '%s', but the "
                          "opponent line lists %s as played by the built-in "
                          "opponent: a file entered by hand for the "
                          "opponent's side could have been chosen to steer "
                          "the dice" % (where, side, source, side))
            if source.startswith("deadline-") and side in opp:
                raise Bad("%s: %s's order file has source '%s', but the "
                          "opponent line lists %s" % (where, side, source,
                                                      side))
            if source not in SOURCES:
                raise Bad("%s: %s's order file has source '%s', which is "
                          "none of %s" % (where, side, source,
                                          ", ".join(SOURCES)))
            path = os.path.join(wdir, sub, side + ".txt")
            data = read(path, "rb")
            if log["nonce_form"]:
                try:
                    hc = hidden_order_commitment(side, data)
                except (Bad, UnicodeDecodeError) as e:
                    raise Bad("%s: %s's order file has no valid header: %s"
                              % (where, side, e))
                if hc != h:
                    raise Bad("%s: %s's order file's nonce commitment is not "
                              "the one in the dice log" % (where, side))
            elif b2(data, 32) != h:
                raise Bad("%s: %s's order file does not hash to the hash in "
                          "the dice log" % (where, side))
            try:
                hc, ht, hw, hs = order_header(data)
            except (Bad, UnicodeDecodeError) as e:
                raise Bad("%s: %s's order file (%s) has no valid order file "
                          "header: %s" % (where, side, source, e))
            if hc != name or hs.lower() != side.lower():
                raise Bad("%s: %s's order file (%s) is for campaign '%s' side"
                          " '%s', not this campaign and side"
                          % (where, side, source, hc, hs))
            fchain = order_chain(data)
            if fchain is not None and fchain != sc["head"].hex():
                raise Bad("%s: %s's order file (%s) names seed chain head "
                          "%s..., not %s... of the campaign's seed chain "
                          "statement: the seed chain was replaced after the "
                          "player got it" % (where, side, source, fchain[:16],
                                             sc["head"].hex()[:16]))
            if source == "standing":
                if hw.lower() != "standing":
                    raise Bad("%s: %s's order file is marked as standing "
                              "orders, but its header is for turn %d window "
                              "'%s', not 'window: standing'"
                              % (where, side, ht, hw))
                check_standing_seq(seen, where, wnames, i, side, data)
            elif (hw.lower() == "standing" or ht != int(w["turn"])
                  or hw.lower() != w["name"].lower()):
                raise Bad("%s: %s's order file (%s) is for turn %d window "
                          "'%s', not this window: a file sent for another "
                          "window was used in this one"
                          % (where, side, source, ht, hw))
            if source == "deadline-hold":
                # The hold policy's fixed file: the header alone, or the
                # header and "hold" (which one the ruleset takes, only a
                # replay by hexpost can tell).
                head = ("campaign: %s\nturn: %s\nwindow: %s\nside: %s\n"
                        % (name, w["turn"], w["name"], side)).encode()
                if data not in (head, head + b"hold\n"):
                    raise Bad("%s: %s's order file is marked as written by "
                              "the hold policy at the deadline, but it is "
                              "not the hold file" % (where, side))
            sig = path + ".minisig"
            if os.path.exists(sig):
                sigtext = read(sig)
                kid = sig_keyid(sigtext)
                kid = keyid_hex(kid)
                if (side, kid) not in players:
                    raise Bad("%s: %s's order file is signed by key %s, "
                              "which is no player's of that side"
                              % (where, side, kid))
                try:
                    minisign_verify(read(os.path.join(bundle, "keys",
                                                      kid + ".pub")),
                                    sigtext, data)
                except Bad as e:
                    raise Bad("%s: the signature of %s's order file does not"
                              " verify: %s" % (where, side, e))
                if side in pinned:
                    sk = parse_pubkey(read(os.path.join(bundle, "keys",
                                                        kid + ".pub")))
                    if sk not in pinned[side]:
                        raise Bad("%s: %s's order file is signed by key %s, "
                                  "which is not a key you pinned for %s: the "
                                  "server may have registered a key of its "
                                  "own" % (where, side, kid, side))
                if modid is not None or not accept_unsigned:
                    check_seat(seats, stmts, i + 1, side, source, kid, where,
                               modid is None)
                stats["signed"] += 1
                have_input = True
            elif source == "mail":
                raise Bad("%s: %s's order file came by mail but has no "
                          "signature" % (where, side))
            elif source in ("cli", "standing") and side in keyed:
                raise Bad("%s: %s's order file (%s) is unsigned, but %s is "
                          "played by a player with a key: a file entered on "
                          "the command line for a player's side must carry "
                          "that player's signature, else whoever runs the "
                          "server could have chosen it to steer the dice"
                          % (where, side, source, side))
            elif source in ("cli", "standing"):
                stats["unsigned"] += 1
            hashes.append(h)
        # The previous log's hash first: every earlier window's files
        # (docs/AUDIT.md, "Dice key").
        key = derive_key(log["seed"], name, log["turn"], log["window"],
                         [log["previous"]] + hashes)
        if key != log["key"]:
            raise Bad("%s: the dice key is not the one derived from the seed "
                      "and the order files" % where)
        dice = Dice(key)
        for n, (seq, sides, target, result, purpose) in enumerate(
                log["rolls"]):
            if seq != n + 1:
                raise Bad("%s: roll %d of the log is numbered #%d" %
                          (where, n + 1, seq))
            got = dice.roll(sides)
            if got != result:
                raise Bad("%s: roll #%d (d%d, %s) is %d in the log, but the "
                          "dice stream gives %d" % (where, seq, sides,
                                                    purpose, result, got))
        if sealed:
            stats["sealed_rolls"] += check_sealed_rolls(
                os.path.join(wdir, "sealed-rolls.txt"), where, name, w, key,
                sealed)
        nxt = bytes.fromhex(wins[i + 1]["commitment"]) if i + 1 < nw else None
        if log["next"] != nxt:
            raise Bad("%s: the next window's commitment differs from the "
                      "log's" % where)
        prev = b2(logb, 32)
        seat_window(seats, stmts, i + 1)
        if not have_input:
            stats["noinput"] += 1
        stats["windows"] += 1
        stats["rolls"] += len(log["rolls"])
    return stats


def main(argv):
    args, pub, accept, pins, modpin = argv[1:], None, False, [], None
    accept_unsigned = False
    while len(args) > 1 and args[0] in ("--pubkey", "--accept-test-dice",
                                        "--player-key", "--moderator-key",
                                        "--accept-unsigned-moderation"):
        if args[0] == "--accept-test-dice":
            accept, args = True, args[1:]
        elif args[0] == "--accept-unsigned-moderation":
            accept_unsigned, args = True, args[1:]
        elif len(args) > 2 and args[0] == "--player-key" and "=" in args[1]:
            pins.append(args[1].split("=", 1))
            args = args[2:]
        elif len(args) > 2 and args[0] == "--pubkey":
            pub, args = args[1], args[2:]
        elif len(args) > 2 and args[0] == "--moderator-key":
            modpin, args = args[1], args[2:]
        else:
            break
    if len(args) != 1 or args[0].startswith("--"):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        s = audit(args[0], pub, accept,
                  [(sd, parse_pubkey(read(f))) for sd, f in pins],
                  parse_pubkey(read(modpin)) if modpin else None,
                  accept_unsigned)
    except Bad as e:
        print("hexpost-audit: FAILED: %s" % e, file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError, UnicodeDecodeError) as e:
        print("hexpost-audit: cannot read the bundle: %s" % e,
              file=sys.stderr)
        return 2
    if s["test"]:
        print("hexpost-audit: WARNING: a TEST campaign (--seed): anyone who "
              "knows the seed text knows every die. These dice prove NOTHING "
              "about fairness; checked only because --accept-test-dice was "
              "given.")
    print("hexpost-audit: OK: %d windows, %d dice re-derived, %d player "
          "signatures verified, %d key rotation statements followed"
          % (s["windows"], s["rolls"], s["signed"], s["rotations"]))
    if s["sealed_sets"]:
        print("hexpost-audit: %d sealed sets checked against their signed "
              "statements, %d sealed dice re-derived"
              % (s["sealed_sets"], s["sealed_rolls"]))
    if s["noinput"]:
        print("hexpost-audit: NOTE: %d windows came before any player's "
              "signed file: their dice depend on no player input and were "
              "fixed, perhaps chosen, when the campaign was created"
              % s["noinput"])
    if s["modid"] is not None:
        print("hexpost-audit: moderator key %s (%s): %d moderator statements "
              "verified; every key change of a side is one of them"
              % (s["modid"], "the key you pinned" if s["modpinned"] else
                 "the campaign's, not pinned: pass --moderator-key",
                 s["stmts"]))
    elif not s["modunsigned"]:
        print("hexpost-audit: NOTE: no moderator key: no moderator action "
              "(replace, proceed, end, extensions) is on record; an "
              "unsigned one would fail the audit")
    if s["modunsigned"]:
        print("hexpost-audit: WARNING: %d unsigned moderator action%s "
              "(replace, proceed, end, extensions) on the server's word, "
              "accepted only because --accept-unsigned-moderation was given"
              % (s["modunsigned"], "" if s["modunsigned"] == 1 else "s"))
    if s["fills"]:
        print("hexpost-audit: NOTE: %d sides filled at a deadline, by the "
              "server's clock: only those players can tell whether a file "
              "was sent in time (acknowledgements name its hash)"
              % s["fills"])
    if s["unsigned"]:
        print("hexpost-audit: %d order files in dice keys are unsigned "
              "(cli or standing: entered by the moderator, not signed by a "
              "player)" % s["unsigned"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
