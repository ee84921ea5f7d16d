#!/bin/bash
# web_chromium: the campaign web archive (`hexpost web DIR`) in a real
# browser. A finished fire-and-movement game and a Portable Wargame game in
# progress (fog of war) are written out; headless Chromium (Debian's
# `chromium`) renders the index and both campaign pages (--dump-dom: the
# page structure; a check page of our own loads every picture the pages
# show and writes each one's naturalWidth, which must be > 0), and takes a
# screenshot of each, kept in the build directory as test artefacts
# (test-artefacts/web/). Before the end nothing hidden appears: the public
# picture's units are in every side's view, and every event the page lists
# is in every side's report; after the end every side's view, the reports
# and the audit bundle are there, and the bundle audits clean.
# Usage: bash web_chromium.sh /path/to/hexpost   (HEXPOST_SOURCE: source dir)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/e2e/lib-golden.sh"
golden_start web_chromium "${1:?usage: web_chromium.sh /path/to/hexpost}"
command -v chromium >/dev/null || fail "chromium is missing (scripts/deps.sh)"
ART=$(cd "$(dirname "$HEXPOST")" && pwd)/test-artefacts/web
rm -rf "$ART" && mkdir -p "$ART" || fail "mkdir $ART"

# browse MODE FILE OUT: chromium --headless on file FILE; MODE dump (the
# DOM after load into OUT) or shot (a screenshot OUT).
browse() {
	local mode=$1 file=$2 out=$3
	local args=(--headless --no-sandbox --disable-gpu --hide-scrollbars
		--user-data-dir="$T/chromium" --virtual-time-budget=4000)
	if [ "$mode" = dump ]; then
		timeout 40 chromium "${args[@]}" --dump-dom "file://$file" \
			>"$out" 2>>"$T/chromium.log" || fail "chromium --dump-dom $file"
	else
		timeout 40 chromium "${args[@]}" --window-size=1000,1400 \
			--screenshot="$out" "file://$file" >>"$T/chromium.log" 2>&1 ||
			fail "chromium --screenshot $file"
		[ -s "$out" ] || fail "no screenshot of $file"
	fi
}

# A data directory with a server key: the dice logs are signed.
"$HEXPOST" init --datadir "$T/d" >/dev/null 2>&1 || fail "init --datadir"
hp() {
	"$HEXPOST" --config "$T/d/hexpost.conf" "$@" || fail "hexpost $* exited $?"
}
hp campaign new hill --ruleset fire-and-movement --seed 11 >/dev/null
hp player add hill blue --email blue@example.org >/dev/null
golden_play hill
hp campaign new crossing --ruleset portable-modern --seed 5 >/dev/null
hp player add crossing blue --email pw@example.org >/dev/null
for turn in 1 2; do
	hp orders suggest crossing --side blue >"$T/orders.txt"
	hp orders submit crossing "$T/orders.txt" >/dev/null
	hp turn resolve crossing >/dev/null
done
hp web "$T/site" >/dev/null
S=$T/site
# Writing it again changes nothing and rewrites no file.
before=$(stat -c '%y %i' "$T/site/index.html" "$T/site/hill/now.png")
hp web "$T/site" >/dev/null
[ "$before" = "$(stat -c '%y %i' "$T/site/index.html" \
    "$T/site/hill/now.png")" ] || fail "an unchanged file was rewritten"
# The daemon refreshes an archive after each pass (web_dir).
echo "web_dir = site2" >>"$T/d/hexpost.conf"
hp run --once >/dev/null
[ -f "$T/d/site2/crossing/index.html" ] || fail "run --once wrote no web_dir"
cmp -s "$T/d/site2/index.html" "$S/index.html" ||
	fail "the daemon's archive differs from hexpost web's"
[ -f "$S/index.html" ] && [ -f "$S/style.css" ] || fail "no index or style"
! grep -qi '<script' "$S/index.html" "$S"/*/index.html ||
	fail "the site uses a script"

# Nothing hidden before the end (Portable Wargame: Red's units out of
# Blue's sight, events of one side's only).
for s in blue red; do
	hp picture crossing --side $s --text >"$T/view-$s.txt"
	for t in 1 2; do
		hp report crossing --turn $t --side $s >>"$T/report-$s.txt"
	done
done
hp picture crossing --side public --text >"$T/view-public.txt"
hp picture crossing --text >"$T/view-moderator.txt"
python3 - "$T" "$S/crossing/index.html" <<'PY' || fail "hidden information on the site"
import html, re, sys
t, page = sys.argv[1], open(sys.argv[2]).read()
def units(name):  # without the state, which the public view narrows
    return set(re.sub(r" state \d+$", "", l.strip())
               for l in open("%s/view-%s.txt" % (t, name))
               if l.startswith(("unit ", "marker ")))
pub = units("public")
assert pub, "an empty public view"
assert pub <= units("blue") and pub <= units("red"), pub - units("blue")
assert units("moderator") - units("blue"), "blue sees all: nothing tested"
reports = {s: open("%s/report-%s.txt" % (t, s)).read() for s in ("blue", "red")}
events = [html.unescape(e) for e in re.findall(r"<li>(.*?)</li>", page)]
assert len(events) > 5, events
for e in events:
    for s, r in reports.items():
        assert e in r, "%r is not in %s's reports" % (e, s)
assert "shown after the end" in page or "dice-log.txt" in page
PY
[ ! -e "$S/crossing/audit" ] || fail "an audit bundle before the end"
ls "$S/crossing" | grep -q -- '-blue\.svg' && fail "a side's picture before the end"

# After the end: every side's view, the reports, the bundle.
for f in now.svg now-blue.svg now-red.png t1-w1-blue.svg t1-w1-red.png \
    t1-w1-public.svg; do
	[ -s "$S/hill/$f" ] || fail "no $f in the finished campaign"
done
[ -n "$(ls "$S/hill/audit")" ] || fail "an empty audit bundle"
ls "$S/hill" | grep -q 't[0-9]*-w[0-9]*-blue\.svg' || fail "no per-turn side view"
grep -q "report</summary>" "$S/hill/index.html" || fail "no reports revealed"
"$HEXPOST" audit --bundle "$S/hill/audit" --accept-test-dice >"$T/audit" 2>&1 ||
	fail "the bundle does not audit: $(tail -3 "$T/audit")"

# The browser: structure, pictures loading, screenshots.
browse dump "$S/index.html" "$T/index.dom"
python3 - "$T/index.dom" <<'PY' || fail "index structure"
import re, sys
d = open(sys.argv[1]).read()
assert '<table id="campaigns">' in d
rows = re.findall(r'<a href="([^"]+)/index.html">', d)
assert sorted(rows) == ["crossing", "hill"], rows
assert "finished" in d or "RESULT" in d or "wins" in d.lower() or "draw" in d.lower()
PY
for c in hill crossing; do
	browse dump "$S/$c/index.html" "$T/$c.dom"
	grep -q '<h2>Open window</h2>\|<h2>Audit bundle</h2>' "$T/$c.dom" ||
		fail "$c: no open window nor audit section"
	grep -q '<section class="window"' "$T/$c.dom" || fail "$c: no turns"
done
python3 - "$S" "$T" <<'PY' || fail "the check page"
import re, sys
site, t = sys.argv[1], sys.argv[2]
imgs = []
for c in ("hill", "crossing"):
    d = open("%s/%s.dom" % (t, c)).read()
    srcs = re.findall(r'<img class="map" src="([^"]+)"', d)
    assert len(srcs) >= 2, (c, srcs)
    imgs += ["%s/%s/%s" % (site, c, s) for s in srcs]
    imgs += ["%s/%s/%s" % (site, c, s.replace(".svg", ".png")) for s in srcs[:1]]
imgs.append(site + "/hill/no-such-picture.png")   # the check can fail
with open(t + "/check.html", "w") as f:
    f.write('<!DOCTYPE html><html><body><pre id="out">pending</pre>\n')
    for i, s in enumerate(imgs):
        f.write('<img id="i%d" src="file://%s">\n' % (i, s))
    f.write("""<script>
window.addEventListener('load', function () {
  var r = [];
  document.querySelectorAll('img').forEach(function (i) {
    r.push(i.getAttribute('src') + ' ' + i.naturalWidth);
  });
  document.getElementById('out').textContent = 'done\\n' + r.join('\\n');
});
</script></body></html>
""")
print(len(imgs))
PY
browse dump "$T/check.html" "$T/check.dom"
python3 - "$T/check.dom" <<'PY' || fail "a picture does not load: $(cat "$T/check.dom" | head -30)"
import re, sys
d = open(sys.argv[1]).read()
assert "done" in d, "the check page did not run"
res = re.findall(r"file://(\S+) (\d+)", d)
assert len(res) >= 5, res
for src, w in res:
    if src.endswith("no-such-picture.png"):
        assert w == "0", "a missing picture loaded"
    else:
        assert int(w) > 300, (src, w)
print(len(res) - 1, "pictures load")
PY
browse shot "$S/index.html" "$ART/index.png"
browse shot "$S/hill/index.html" "$ART/fire-and-movement.png"
browse shot "$S/crossing/index.html" "$ART/portable-wargame.png"
cp "$T/check.dom" "$ART/check.dom.html"
echo "web_chromium: OK (screenshots in $ART)"
