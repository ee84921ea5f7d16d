#!/bin/bash
# layers: modules call only downward. Reads the layer table of
# docs/ARCHITECTURE.md §1.1 and checks every #include "x.h" of src/ and
# include/: the included module's layer is not above the includer's, every
# module is in a layer, and the includes have no cycle. Then shows that
# the check fails on an upward include, an unknown module and a cycle (in a
# copy of the sources).
# Usage: bash layers.sh [/path/to/hexpost] (the binary is not used)
set -u

SRC=${HEXPOST_SOURCE:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "layers: SKIP: no python3"; exit 0; }
T=$(mktemp -d "${TMPDIR:-/tmp}/hexpost-layers.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

fail() {
	echo "layers: FAIL: $*" >&2
	exit 1
}

cat >"$T/check.py" <<'EOF'
import os, re, sys

root = sys.argv[1]
doc = open(os.path.join(root, "docs/ARCHITECTURE.md")).read()
m = re.search(r"<!-- layers:[^>]*-->\n(.*?)<!-- /layers -->", doc, re.S)
if not m:
    sys.exit("layers: no layer table in docs/ARCHITECTURE.md")
layer = {}
for row in m.group(1).splitlines():
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    if len(cells) < 2 or not re.match(r"\d+ ", cells[0]):
        continue
    n = int(cells[0].split()[0])
    for mod in cells[1].split():
        if mod in layer:
            sys.exit("layers: %s is in two layers" % mod)
        layer[mod] = n
if not layer:
    sys.exit("layers: the layer table is empty")

def ruleset(base):
    """Is base a ruleset (src/rules/base.c or src/rules/base/)?"""
    r = os.path.join(root, "src", "rules", base)
    return base not in layer and (os.path.exists(r + ".c") or
                                  os.path.isdir(r))

def module(path):
    """The module a file of src/ or include/ belongs to."""
    rel = os.path.relpath(path, root)
    parts = rel.split(os.sep)
    base = os.path.splitext(parts[-1])[0]
    if parts[0] == "src" and len(parts) >= 3 and parts[1] == "rules":
        return "rules/" + (parts[2] if len(parts) > 3 else base)
    if base == "util":
        return "hexpost"
    if ruleset(base):
        return "rules/" + base
    if base not in layer and "_" in base and base.split("_")[0] in layer:
        return base.split("_")[0]
    return base

def level(mod):
    if mod in layer:
        return layer[mod]
    if mod.startswith("rules/") and "rules/*" in layer:
        return layer["rules/*"]
    return None

# A ruleset's header in include/ (fam.h, pw.h) is that ruleset's.
def header_module(name):
    base = os.path.splitext(name)[0]
    return "rules/" + base if ruleset(base) else base

errors, edges = [], {}
files = []
for d in ("src", "include"):
    for dp, dn, fn in os.walk(os.path.join(root, d)):
        dn.sort()
        for f in sorted(fn):
            if f.endswith((".c", ".h")):
                files.append(os.path.join(dp, f))
for path in files:
    src = module(path)
    ls = level(src)
    if ls is None:
        errors.append("%s: module %s is in no layer of docs/ARCHITECTURE.md "
                      "1.1" % (os.path.relpath(path, root), src))
        continue
    for i, line in enumerate(open(path, errors="replace"), 1):
        inc = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not inc:
            continue
        name = inc.group(1)
        if not os.path.exists(os.path.join(root, "include", name)):
            continue      # a header private to its directory
        dst = header_module(name)
        if dst == src:
            continue
        ld = level(dst)
        where = "%s:%d" % (os.path.relpath(path, root), i)
        if ld is None:
            errors.append("%s: includes %s, module %s in no layer" %
                          (where, name, dst))
        elif ld > ls:
            errors.append("%s: %s (layer %d) includes %s (layer %d): upward"
                          % (where, src, ls, dst, ld))
        edges.setdefault(src, {}).setdefault(dst, where)

# No cycle among modules (same-layer includes are allowed, circles not).
state, stack = {}, []
def visit(u):
    state[u] = 1
    stack.append(u)
    for v in sorted(edges.get(u, {})):
        if state.get(v) == 1:
            cyc = stack[stack.index(v):] + [v]
            errors.append("cycle: " + " -> ".join(cyc) + " (" + ", ".join(
                edges[a][b] for a, b in zip(cyc, cyc[1:])) + ")")
        elif v not in state:
            visit(v)
    stack.pop()
    state[u] = 2
for u in sorted(edges):
    if u not in state:
        visit(u)
for e in errors:
    print("layers: " + e)
print("layers: %d files, %d modules in %d layers, %d module includes" %
      (len(files), len(set(layer)), len(set(layer.values())),
       sum(len(v) for v in edges.values())))
sys.exit(1 if errors else 0)
EOF

python3 "$T/check.py" "$SRC" >"$T/out" 2>&1 || { cat "$T/out" >&2; fail "the sources break the layers"; }
cat "$T/out"

# The check itself fails where it must: on a copy of the sources.
copy() {
	rm -rf "$T/src-copy"
	mkdir -p "$T/src-copy/docs"
	cp -r "$SRC/src" "$SRC/include" "$T/src-copy/"
	cp "$SRC/docs/ARCHITECTURE.md" "$T/src-copy/docs/"
}
# An upward include: the lifecycle calling reports again.
copy
sed -i 's/#include "turn.h"/#include "turn.h"\n#include "report.h"\n#include "deadline.h"/' \
    "$T/src-copy/src/turn.c"
python3 "$T/check.py" "$T/src-copy" >"$T/out" 2>&1 && fail "an upward include passed"
grep -qF "src/turn.c:" "$T/out" && grep -qF "turn (layer 4) includes deadline (layer 5): upward" "$T/out" ||
	{ cat "$T/out" >&2; fail "the upward include is not named"; }
# A module in no layer.
copy
printf '#include "store.h"\n' >"$T/src-copy/src/stray.c"
python3 "$T/check.py" "$T/src-copy" >"$T/out" 2>&1 && fail "a module in no layer passed"
grep -qF "src/stray.c: module stray is in no layer" "$T/out" ||
	{ cat "$T/out" >&2; fail "the stray module is not named"; }
# A cycle inside one layer.
copy
sed -i 's/#include "mail.h"/#include "mail.h"\n#include "fault.h"/' "$T/src-copy/src/mail.c"
python3 "$T/check.py" "$T/src-copy" >"$T/out" 2>&1 && fail "a cycle passed"
grep -qE "cycle: (fault -> mail -> fault|mail -> fault -> mail)" "$T/out" ||
	{ cat "$T/out" >&2; fail "the cycle is not named"; }

echo "layers: ok"
