# reports_text.py: the text of stored reports, for lib-reports.sh (not a
# test itself). Reports are stored plain, zlib-compressed (\0HPZ, \0HPS),
# against the campaign's first one of the view (\0HPD) or in chains
# against the view's previous one and the moderator's of the same window
# (\0HPE), each maybe stored the same way (src/store.c).
import zlib


def plain(b):
    return zlib.decompress(b[8:]) if b[:4] in (b"\0HPZ", b"\0HPS") else b


def reader(raw):
    """text(wid, side): the report's bytes, raw(wid, side) giving the row's."""
    def text(wid, side):
        b = raw(wid, side)
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
