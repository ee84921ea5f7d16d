# lib-reports.sh: sourced by tests that read stored reports (not a test
# itself); needs python3 (scripts/deps.sh installs it).

# e2e_reports DB SQL: the report texts SQL names (each row: window id, side
# index), one after another as `sqlite3 DB "SELECT body ..."` printed them
# before reports were stored compressed (issue 17: zlib, the later ones
# against the campaign's first report of the view as dictionary).
e2e_reports() {
	python3 - "$1" "$2" <<'PY'
import sqlite3, sys, zlib
db = sqlite3.connect(sys.argv[1])
def raw(wid, side):
    b = db.execute("SELECT body FROM reports WHERE window_id = ? AND "
                   "side_idx = ?", (wid, side)).fetchone()[0]
    return b.encode() if isinstance(b, str) else b
def plain(b):
    return zlib.decompress(b[8:]) if b[:4] in (b"\0HPZ", b"\0HPS") else b
def text(wid, side):
    b = raw(wid, side)
    if b[:4] != b"\0HPD":
        return plain(b)
    d = zlib.decompressobj(zdict=plain(raw(int.from_bytes(b[8:16], "big"), side)))
    return d.decompress(b[16:]) + d.flush()
for wid, side in db.execute(sys.argv[2]).fetchall():
    sys.stdout.write(text(wid, side).decode() + "\n")
PY
}

# e2e_reports_plain DB: store every report of DB as plain text again, as an
# operator editing reports by hand would first (the reader takes plain
# rows as they are; the compressed ones need their dictionary report).
e2e_reports_plain() {
	python3 - "$1" <<'PY'
import sqlite3, sys, zlib
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT window_id, side_idx, body FROM reports").fetchall()
raw = {(w, s): (b.encode() if isinstance(b, str) else b) for w, s, b in rows}
def plain(b):
    return zlib.decompress(b[8:]) if b[:4] in (b"\0HPZ", b"\0HPS") else b
def text(w, s):
    b = raw[(w, s)]
    if b[:4] != b"\0HPD":
        return plain(b)
    d = zlib.decompressobj(zdict=text(int.from_bytes(b[8:16], "big"), s))
    return d.decompress(b[16:]) + d.flush()
out = {k: text(*k).decode() for k in raw}
for (w, s), t in out.items():
    db.execute("UPDATE reports SET body = ? WHERE window_id = ? AND "
               "side_idx = ?", (t, w, s))
db.commit()
PY
}
