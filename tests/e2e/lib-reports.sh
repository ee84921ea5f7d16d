# lib-reports.sh: sourced by tests that read stored reports (not a test
# itself); needs python3 (scripts/deps.sh installs it). The reports'
# decoder is reports_text.py, next to this file.
E2E_REPORTS_PY="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/reports_text.py"

# e2e_reports DB SQL: the report texts SQL names (each row: window id, side
# index), one after another as `sqlite3 DB "SELECT body ..."` printed them
# before reports were stored compressed (issue 17: zlib, the later ones
# against earlier reports as dictionary: the campaign's first one of the
# view, or the previous one and the moderator's of the same window, each
# stored the same way; docs/ARCHITECTURE.md, "What the database keeps").
e2e_reports() {
	python3 - "$1" "$2" "$E2E_REPORTS_PY" <<'PY'
import os, sqlite3, sys
sys.path.insert(0, os.path.dirname(sys.argv[3]))
from reports_text import reader, records, shared_dicts
db = sqlite3.connect(sys.argv[1])
def raw(wid, side):
    b = db.execute("SELECT body FROM reports WHERE window_id = ? AND "
                   "side_idx = ?", (wid, side)).fetchone()[0]
    return b.encode() if isinstance(b, str) else b
text = reader(raw, shared_dicts(db), records(db))
for wid, side in db.execute(sys.argv[2]).fetchall():
    sys.stdout.write(text(wid, side).decode() + "\n")
PY
}

# e2e_reports_plain DB: store every report of DB as plain text again, as an
# operator editing reports by hand would first (the reader takes plain
# rows as they are; the compressed ones need their dictionary report).
e2e_reports_plain() {
	python3 - "$1" "$E2E_REPORTS_PY" <<'PY'
import os, sqlite3, sys
sys.path.insert(0, os.path.dirname(sys.argv[2]))
from reports_text import reader, records, shared_dicts
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT window_id, side_idx, body FROM reports").fetchall()
raw = {(w, s): (b.encode() if isinstance(b, str) else b) for w, s, b in rows}
text = reader(lambda w, s: raw[(w, s)], shared_dicts(db), records(db))
out = {k: text(*k).decode() for k in raw}
for (w, s), t in out.items():
    db.execute("UPDATE reports SET body = ? WHERE window_id = ? AND "
               "side_idx = ?", (t, w, s))
db.commit()
PY
}
# e2e_unpack DB: every dice log and order file of DB rewritten as plain
# text, as they were stored before issue 17 compressed the long ones (the
# program reads both), so that a test can read or edit them in SQL. A
# compressed value that does not uncompress is left as it is. Packed
# windows (store_compact, migration 024: events, dice, sealed dice and the
# dice log in one row of window_packs) are given their rows back first.
e2e_unpack() {
	python3 - "$1" "$E2E_REPORTS_PY" <<'PY'
import os, sqlite3, sys, zlib
sys.path.insert(0, os.path.dirname(sys.argv[2]))
from reports_text import pack_raw as pack_raw_of, pack_rows
db = sqlite3.connect(sys.argv[1])
def xraw(b):
    # Against a shared dictionary (\0HPX, migration 028).
    r = db.execute("SELECT data FROM shared_dicts WHERE tag = ?",
                   (int.from_bytes(b[8:16], "big", signed=True),)).fetchone()
    z = r[0] if r else b""
    z = z.encode() if isinstance(z, str) else z
    z = zlib.decompress(z[8:]) if z[:4] == b"\0HPZ" else z
    d = zlib.decompressobj(zdict=z)
    return d.decompress(b[16:]) + d.flush()
def pack_raw(wid):
    return pack_raw_of(db, wid)
def unpack_window(wid, raw):
    rows = pack_rows(db, wid, raw)
    db.executemany("INSERT INTO events (window_id, seq, step, phase, text, "
                   "visible, roll, nroll, roll_set) VALUES (?, ?, ?, ?, ?, "
                   "?, ?, ?, ?)", rows["events"])
    db.executemany("INSERT INTO dice (window_id, seq, purpose, sides, "
                   "target, result) VALUES (?, ?, ?, ?, ?, ?)", rows["dice"])
    db.executemany("INSERT INTO sealed_dice (window_id, set_mask, seq, draw, "
                   "purpose, sides, target, result) VALUES (?, ?, ?, ?, ?, "
                   "?, ?, ?)", rows["sealed"])
    log = rows["log"]
    if db.execute("SELECT count(*) FROM dice_logs WHERE window_id = ?",
                  (wid,)).fetchone()[0]:
        db.execute("UPDATE dice_logs SET text = ?, signature = ?, pubkey = ? "
                   "WHERE window_id = ?", (log["L"], log["G"], log["K"], wid))
if db.execute("SELECT count(*) FROM sqlite_master WHERE name = "
              "'window_packs'").fetchone()[0]:
    packs = [(w, pack_raw(w)) for (w,) in
             db.execute("SELECT window_id FROM window_packs").fetchall()]
    for w, r in packs:
        unpack_window(w, r)
    db.execute("DELETE FROM window_packs")
def plain(b):
    if isinstance(b, bytes) and b[:4] == b"\0HPZ":
        try:
            return zlib.decompress(b[8:]).decode()
        except zlib.error:
            return b
    if isinstance(b, bytes) and b[:4] == b"\0HPX":
        try:
            return xraw(b).decode()
        except (zlib.error, UnicodeDecodeError):
            return b
    return b
for table, key, cols in (("dice_logs", "window_id", ("text",)),
                         ("orders", "id", ("raw", "parsed"))):
    for row in db.execute("SELECT %s, %s FROM %s" % (key, ", ".join(cols),
                                                    table)).fetchall():
        for col, val in zip(cols, row[1:]):
            p = plain(val)
            if (col == "parsed" and isinstance(val, bytes) and
                    val[:4] == b"\0HPY"):
                # Against its scope's dictionary (tag, 0: none) and the
                # row's raw file (store_orders_shrink).
                r = plain(row[1])
                r = r.encode() if isinstance(r, str) else r
                tag = int.from_bytes(val[8:16], "big", signed=True)
                try:
                    sd = b""
                    if tag:
                        t = db.execute("SELECT data FROM shared_dicts WHERE "
                                       "tag = ?", (tag,)).fetchone()
                        sd = t[0] if t else b""
                        sd = sd.encode() if isinstance(sd, str) else sd
                        sd = (zlib.decompress(sd[8:]) if sd[:4] == b"\0HPZ"
                              else sd)
                    d = zlib.decompressobj(zdict=sd + r)
                    p = (d.decompress(val[16:]) + d.flush()).decode()
                except (zlib.error, UnicodeDecodeError):
                    p = val
            if p is not val:
                db.execute("UPDATE %s SET %s = ? WHERE %s = ?" % (table, col,
                           key), (p, row[0]))
db.commit()
PY
}

# e2e_report_replace DB WID OLD NEW: every report of window WID rewritten
# as plain text (the program reads both) with OLD replaced by NEW, as
# `UPDATE reports SET body = replace(body, OLD, NEW)` did before reports
# were stored compressed. Every report of DB is stored plain first (the
# later reports are stored against the earlier ones: editing one would
# change how the later ones read).
e2e_report_replace() {
	local side
	e2e_reports_plain "$1" || return 1
	for side in $(sqlite3 "$1" "SELECT side_idx FROM reports WHERE window_id = $2"); do
		e2e_reports "$1" "SELECT window_id, side_idx FROM reports WHERE
		    window_id = $2 AND side_idx = $side" >"$T/.report" || return 1
		python3 - "$1" "$2" "$side" "$3" "$4" "$T/.report" <<'PY' || return 1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
body = open(sys.argv[6]).read()[:-1]  # e2e_reports ends each with a newline
db.execute("UPDATE reports SET body = ? WHERE window_id = ? AND side_idx = ?",
           (body.replace(sys.argv[4], sys.argv[5]), int(sys.argv[2]),
            int(sys.argv[3])))
db.commit()
PY
	done
}
