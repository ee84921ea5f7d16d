#!/bin/bash
# export_json: `hexpost export NAME --side S --json` validates against
# docs/export.schema.json (python3-jsonschema, Draft 2020-12) for both
# shipped rulesets, every side and the moderator, before the first turn,
# mid-game and after the end; a side's export holds the units its ASCII map
# shows and no other (Portable Wargame: Red's hidden units stay out of
# Blue's), its open window's order template when it must send one, and the
# same picture data as `hexpost picture --text`.
# Usage: bash export_json.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-golden.sh"
golden_start export_json "${1:?usage: export_json.sh /path/to/hexpost}"
python3 -c 'import jsonschema' 2>/dev/null ||
	fail "python3-jsonschema is missing (scripts/deps.sh installs it)"

# valid FILE...: each file validates against the schema (status).
valid() {
	python3 - "$SRC/docs/export.schema.json" "$@" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
for path in sys.argv[2:]:
    doc = json.load(open(path))
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
    for e in errs[:5]:
        print("%s: %s at %s" % (path, e.message, list(e.path)))
    if errs:
        sys.exit(1)
PY
}
check() {
	valid "$@" || fail "$* does not validate against the schema"
}

# A document that breaks the schema is caught (the check can fail).
echo '{"format": "hexpost-export", "version": 1}' >"$T/bad.json"
if valid "$T/bad.json" >/dev/null 2>&1; then
	fail "an incomplete document passed the schema"
fi

for rs in fire-and-movement portable-modern; do
	rm -f "$T/game.db"
	golden_new g "$rs" 7
	hp export g --side blue --json >"$T/$rs-start.json"
	check "$T/$rs-start.json"
	python3 - "$T/$rs-start.json" <<'PY' || fail "$rs: start"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["last_window"] is None, "a last window before the first turn"
assert d["open_window"]["template"], "no order template for blue"
assert "side: blue" in d["open_window"]["template"]
PY
	for turn in 1 2; do
		hp orders suggest g --side blue >"$T/orders.txt"
		hp orders submit g "$T/orders.txt" >/dev/null
		hp turn resolve g >/dev/null
	done
	for s in blue red moderator; do
		hp export g --side $s --json >"$T/$rs-$s.json"
		hp map g --side $s >"$T/$rs-$s.map"
		hp picture g --side $s --text >"$T/$rs-$s.pic"
	done
	check "$T/$rs-blue.json" "$T/$rs-red.json" "$T/$rs-moderator.json"
	python3 - "$T/$rs" <<'PY' || fail "$rs: the export is not the side's view"
import json, re, sys
base = sys.argv[1]
for side in ("blue", "red", "moderator"):
    d = json.load(open(base + "-%s.json" % side))
    pic = open(base + "-%s.pic" % side).read()
    ids = sorted(u["id"] for u in d["units"])
    pic_ids = sorted(re.findall(r"^unit \S+ side \S+ \[([^]]*)\]", pic, re.M))
    assert ids == pic_ids, (side, ids, pic_ids)
    assert d["map_text"] == open(base + "-%s.map" % side).read()[
        :len(d["map_text"])], side
    assert d["last_window"]["events"], "no events"
    assert (d["viewer"]["side"] is None) == (side == "moderator")
    tmpl = d["open_window"]["template"]
    assert (tmpl is not None) == (side == "blue"), (side, tmpl)
b = json.load(open(base + "-blue.json"))
m = json.load(open(base + "-moderator.json"))
assert len(b["units"]) <= len(m["units"])
if "portable" in base:
    # Red's units Blue is shown are those Blue's ASCII map names.
    shown = open(base + "-blue.map").read()
    red = [u["id"] for u in b["units"] if u["side"] == "red"]
    hidden = [u["id"] for u in m["units"] if u["side"] == "red"
              and u["id"] not in red]
    assert hidden, "every red unit is in blue's view: nothing to test"
    for i in red:
        assert re.search(r"\b%s\b" % i, shown), i
    for i in hidden:
        assert not re.search(r"\b%s:" % i, shown), i
PY
done
# After the end: no open window; still valid.
golden_play g
hp export g --side blue --json >"$T/end.json"
check "$T/end.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
assert d["open_window"] is None and d["status"] == "finished" and d["result"]' \
	"$T/end.json" || fail "the finished game's export"
echo "export_json: OK"
