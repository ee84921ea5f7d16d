# reports_text.py: the text of stored reports, for lib-reports.sh (not a
# test itself). Reports are stored plain, zlib-compressed (\0HPZ, \0HPS),
# against the campaign's first one of the view (\0HPD) or in chains
# against the view's previous one and the moderator's of the same window
# (\0HPE), each maybe stored the same way (src/store.c); or, with nothing
# of its campaign to lean on, against a shared dictionary (\0HPX: a row
# of shared_dicts named by its tag, migration 028; order files too). A
# moderator's report may lean on its window's record too (\0HPR: the
# \0HPE header; the dictionary ends with each event's text and a newline,
# then the dice log's text, records(db)).
import re
import zlib


def plain(b):
    return zlib.decompress(b[8:]) if b[:4] in (b"\0HPZ", b"\0HPS") else b


def shared_dicts(db):
    """sdict(tag): the bytes of shared dictionary tag of sqlite3 db."""
    def sdict(tag):
        r = db.execute("SELECT data FROM shared_dicts WHERE tag = ?",
                       (tag,)).fetchone()
        b = r[0] if r else b""
        return plain(b.encode() if isinstance(b, str) else b)
    return sdict


def xplain(b, sdict):
    """The bytes of \0HPX value b, sdict(tag) giving its dictionary."""
    d = zlib.decompressobj(zdict=sdict(int.from_bytes(b[8:16], "big",
                                                      signed=True)))
    return d.decompress(b[16:]) + d.flush()


def reader(raw, sdict=None, record=None):
    """text(wid, side): the report's bytes, raw(wid, side) giving the row's
    (sdict: shared_dicts(db), for rows stored against one; record:
    records(db), for a moderator's report stored against its window's
    record, \0HPR)."""
    def text(wid, side):
        b = raw(wid, side)
        if b[:4] == b"\0HPX":
            return xplain(b, sdict)
        if b[:4] in (b"\0HPE", b"\0HPR"):
            prev, other = (int.from_bytes(b[8:16], "big"),
                           int.from_bytes(b[16:24], "big"))
            oside = int.from_bytes(b[24:25], "big", signed=True)
            z = ((text(prev, side) if prev else b"") +
                 (text(other, oside) if other else b"") +
                 (record(wid) if b[:4] == b"\0HPR" else b""))
            d = zlib.decompressobj(zdict=z) if z else zlib.decompressobj()
            return d.decompress(b[26:]) + d.flush()
        if b[:4] != b"\0HPD":
            return plain(b)
        d = zlib.decompressobj(zdict=text(int.from_bytes(b[8:16], "big"),
                                          side))
        return d.decompress(b[16:]) + d.flush()
    return text


# Window packs (store_compact, migration 024: a window's events, dice,
# sealed dice and dice log in one row of window_packs, against the
# campaign's previous pack or a shared dictionary), for e2e_unpack and for
# a moderator's report stored against its window's record (\0HPR).
def _blob(b):
    return b.encode() if isinstance(b, str) else b


def pack_raw(db, wid):
    """The decoded bytes of window wid's pack in sqlite3 db."""
    b = _blob(db.execute("SELECT data FROM window_packs WHERE window_id = ?",
                         (wid,)).fetchone()[0])
    if b[:4] == b"\0HPX":
        return xplain(b, shared_dicts(db))
    did = int.from_bytes(b[8:16], "big")
    d = (zlib.decompressobj(zdict=pack_raw(db, did)) if did and did != wid
         else zlib.decompressobj())
    return d.decompress(b[16:]) + d.flush()


def _ditto(cur, prev):
    return b"" if cur == prev else (b"\x01" if cur == b"" else cur)


def pack_rows(db, wid, raw):
    """The rows pack raw (bytes) of window wid stands for, as the tables
    held them: {"events": [(wid, seq, step, phase, text, visible, roll,
    nroll, roll_set)], "dice": [(wid, seq, purpose, sides, target,
    result)], "sealed": [(wid, set_mask, seq, draw, purpose, sides, target,
    result)], "log": {"L": text, "G": signature, "K": key} or {}}."""
    head = b"hexpost window pack 1\n"
    assert raw.startswith(head), "window %d: not a pack" % wid
    pos = len(head)
    out = {"events": [], "dice": [], "sealed": [], "log": {}}

    def line():
        nonlocal pos
        end = raw.index(b"\n", pos)
        f = raw[pos:end].split(b" ")
        pos = end + 1
        return f[0], [int(x) for x in f[1:]]

    def take(n, prev=b""):
        nonlocal pos
        if n < 0:
            return prev
        v = raw[pos:pos + n]
        pos += n
        return v

    def nl():
        nonlocal pos
        assert raw[pos:pos + 1] == b"\n"
        pos += 1
    seq, prev, log = 0, {"E": b"", "D": b"", "S": b""}, {}
    while pos < len(raw):
        tag, v = line()
        tag = tag.decode()
        if tag == "E":
            seq += v[0]
            ph = take(v[6], prev["E"]); tx = take(v[7]); nl()
            out["events"].append((wid, seq, v[1], _ditto(ph, prev["E"]).decode(),
                                  tx.decode(), v[2], v[3], v[4], v[5]))
            prev["E"] = ph
        elif tag == "D":
            prev["dseq"] = prev.get("dseq", 0) + v[0]
            pu = take(v[4], prev["D"]); nl()
            out["dice"].append((wid, prev["dseq"],
                                _ditto(pu, prev["D"]).decode(), v[1], v[2],
                                v[3]))
            prev["D"] = pu
        elif tag == "S":
            prev["draw"] = prev.get("draw", 0) + 1
            pu = take(v[5], prev["S"]); nl()
            out["sealed"].append((wid, v[0], v[1], prev["draw"], pu.decode(),
                                  v[2], v[3], v[4]))
            prev["S"] = pu
        elif tag == "R":
            log["R"] = True
        elif tag == "H":
            log["H"] = v[0]
        else:
            val = take(v[0]); nl()
            log[tag] = None if v[0] < 0 else val.decode()
    if log.get("H"):
        # Hashes left out of the dice log, stored elsewhere: the log
        # before it, the window's commitment, seed and key, the next
        # window's commitment.
        refs = db.execute("SELECT (SELECT l.hash FROM dice_logs l WHERE "
            "l.campaign_id = w.campaign_id AND l.window_id < w.id ORDER BY "
            "l.window_id DESC LIMIT 1), w.commitment, w.seed, w.dice_key, "
            "(SELECT n.commitment FROM windows n WHERE n.campaign_id = "
            "w.campaign_id AND n.id > w.id ORDER BY n.id LIMIT 1) FROM "
            "windows w WHERE w.id = ?", (wid,)).fetchone()
        text = log["L"]
        for i, name in enumerate(("previous", "commitment", "seed", "key",
                                  "next-commitment")):
            if log["H"] & (1 << i):
                key = "\n%s: \n" % name
                k = text.index(key) + len(key) - 1
                text = text[:k] + refs[i].hex() + text[k:]
        log["L"] = text
    if log.get("R"):
        # The public rolls are the dice log's roll lines.
        pu_prev = b""
        for l in log["L"].encode().split(b"\n"):
            if not l.startswith(b"roll: "):
                continue
            f = l[6:].split(b" ", 4)
            pu = re.sub(rb"\\x([0-9a-f]{2})",
                        lambda m: bytes([int(m.group(1), 16)]), f[4])
            out["dice"].append((wid, int(f[0]), _ditto(pu, pu_prev).decode(),
                                int(f[1]), int(f[2]), int(f[3])))
            pu_prev = pu
    if "L" in log:
        out["log"] = {"L": log["L"], "G": log.get("G"), "K": log.get("K")}
    return out


def records(db):
    """record(wid): window wid's record in sqlite3 db, as a moderator's
    report stored against it (\0HPR) leans on it: each event's text and a
    newline, then the dice log's text (from the rows, or its pack)."""
    def record(wid):
        packed = db.execute("SELECT count(*) FROM sqlite_master WHERE name "
                            "= 'window_packs'").fetchone()[0] and \
            db.execute("SELECT count(*) FROM window_packs WHERE window_id "
                       "= ?", (wid,)).fetchone()[0]
        rows = pack_rows(db, wid, pack_raw(db, wid)) if packed else None
        if rows is not None:
            ev = [r[4] for r in rows["events"]]
        else:
            ev = [t for (t,) in db.execute(
                "SELECT text FROM events WHERE window_id = ? ORDER BY seq",
                (wid,)).fetchall()]
        out = b"".join(_blob(t) + b"\n" for t in ev)
        r = db.execute("SELECT text FROM dice_logs WHERE window_id = ?",
                       (wid,)).fetchone()
        if r is not None:
            t = _blob(r[0])
            if t == b"\0HPK":
                t = _blob(rows["log"]["L"]) if rows else b""
            elif t[:4] == b"\0HPX":
                t = xplain(t, shared_dicts(db))
            else:
                t = plain(t)
            out += t
        return out
    return record
