# reports_text.py: the text of stored reports, for lib-reports.sh (not a
# test itself). Reports are stored plain, zlib-compressed (\0HPZ, \0HPS),
# against the campaign's first one of the view (\0HPD) or in chains
# against the view's previous one and the moderator's of the same window
# (\0HPE), each maybe stored the same way (src/store.c); or, with nothing
# of its campaign to lean on, against a shared dictionary (\0HPX: a row
# of shared_dicts named by its tag, migration 028; order files too).
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


def reader(raw, sdict=None):
    """text(wid, side): the report's bytes, raw(wid, side) giving the row's
    (sdict: shared_dicts(db), for rows stored against one)."""
    def text(wid, side):
        b = raw(wid, side)
        if b[:4] == b"\0HPX":
            return xplain(b, sdict)
        if b[:4] == b"\0HPE":
            prev, other = (int.from_bytes(b[8:16], "big"),
                           int.from_bytes(b[16:24], "big"))
            oside = int.from_bytes(b[24:25], "big", signed=True)
            z = ((text(prev, side) if prev else b"") +
                 (text(other, oside) if other else b""))
            d = zlib.decompressobj(zdict=z) if z else zlib.decompressobj()
            return d.decompress(b[26:]) + d.flush()
        if b[:4] != b"\0HPD":
            return plain(b)
        d = zlib.decompressobj(zdict=text(int.from_bytes(b[8:16], "big"),
                                          side))
        return d.decompress(b[16:]) + d.flush()
    return text
