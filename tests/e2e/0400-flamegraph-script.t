#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The page's script (zoom, search, case toggle, URL state), run by node
# against a minimal stand-in for the SVG DOM built from a real graph.
. "$(dirname "$0")/lib.sh"

if ! have node || ! have python3; then
	skip "node and python3 are needed to run the page script"
	done_testing; exit
fi

printf 'main;a;b 5\nmain;a;c 3\nmain;d 2\n' >"$T/in.txt"
"$PERFKIT" flamegraph --hash "$T/in.txt" >"$T/g.svg"
sed -n '/<!\[CDATA\[/,/\]\]>/p' "$T/g.svg" | sed '1d;$d' >"$T/page.js"

# the SVG as JSON: ids and attributes of the named elements, and the frames
python3 - "$T/g.svg" >"$T/g.json" <<'PY'
import json, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
ids = {e.get("id"): {"attrs": dict(e.attrib), "text": "".join(e.itertext())}
       for e in root.iter() if e.get("id") and e.get("id") != "frames"}
fr = [e for e in root.iter() if e.get("id") == "frames"][0]
frames = []
for g in fr:
    frames.append({"tag": g.tag.split("}")[-1], "title": g.find(ns + "title").text,
                   "rect": dict(g.find(ns + "rect").attrib), "text": dict(g.find(ns + "text").attrib),
                   "label": "".join(g.find(ns + "text").itertext())})
json.dump({"svg": dict(root.attrib), "frames_attrs": dict(fr.attrib), "ids": ids, "frames": frames}, sys.stdout)
PY

cat >"$T/run.js" <<'JS'
"use strict";
const fs = require("fs");
const data = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const code = fs.readFileSync(process.argv[3], "utf8");
const search = process.argv[4] || "";
function El(tag, attrs, text) {
  this.nodeName = tag; this.attrs = Object.assign({}, attrs || {}); this.children = [];
  this.parentNode = null; this.textContent = text || "";
  const cls = new Set((this.attrs.class || "").split(/\s+/).filter(Boolean));
  this.classList = { add: c => cls.add(c), remove: c => cls.delete(c), contains: c => cls.has(c) };
  this.id = this.attrs.id || "";
}
El.prototype.getAttribute = function (a) { return a in this.attrs ? this.attrs[a] : null; };
El.prototype.setAttribute = function (a, v) { this.attrs[a] = String(v); };
El.prototype.append = function (c) { c.parentNode = this; this.children.push(c); return c; };
El.prototype.querySelector = function (sel) { return this.children.find(c => c.nodeName === sel) || null; };
Object.defineProperty(El.prototype, "firstElementChild", { get() { return this.children[0] || null; } });
Object.defineProperty(El.prototype, "nextElementSibling", { get() {
  const s = this.parentNode.children; return s[s.indexOf(this) + 1] || null; } });
const root = new El("svg", data.svg);
const byId = {};
for (const id in data.ids) byId[id] = root.append(new El("text", data.ids[id].attrs, data.ids[id].text));
const frames = byId.frames = root.append(new El("g", Object.assign({ id: "frames" }, data.frames_attrs)));
for (const f of data.frames) {
  const g = frames.append(new El(f.tag, {}));
  g.append(new El("title", {}, f.title)); g.append(new El("rect", f.rect)); g.append(new El("text", f.text, f.label));
}
const handlers = {}, urls = [];
let promptAnswer = null;
const sandbox = {
  document: { getElementById: id => byId[id] || null, documentElement: root, readyState: "complete",
              addEventListener() {} },
  window: { addEventListener: (t, fn) => { handlers[t] = fn; }, prompt: () => promptAnswer,
            history: null },
  location: { search: search, pathname: "/g.svg" },
  history: { replaceState: (a, b, u) => { urls.push(u); } },
  URLSearchParams,
};
sandbox.window.history = sandbox.history;
new Function("document", "window", "location", "history", "URLSearchParams", code)(
  sandbox.document, sandbox.window, sandbox.location, sandbox.history, URLSearchParams);
const F = {};
for (const g of frames.children) F[g.children[0].textContent.split(" (")[0]] = g;
const rect = n => F[n].children[1], label = n => F[n].children[2].textContent;
const w = n => parseFloat(rect(n).getAttribute("width")), x = n => parseFloat(rect(n).getAttribute("x"));
let fails = 0, n = 0;
function check(desc, cond) { n++; console.log((cond ? "ok " : "not ok ") + n + " - " + desc); if (!cond) fails++; }
const ev = (t, target, extra) => handlers[t](Object.assign({ target, preventDefault() {}, ctrlKey: false }, extra || {}));
if (search) {
  check("URL state: zoomed into a", w("a") === 1180 && F.d.classList.contains("hide"));
  check("URL state: search for c", rect("c").getAttribute("fill") === "rgb(230,0,230)");
  check("URL state: matched share of the zoomed frame", byId.matched.textContent === "Matched: 37.5%");
} else {
  check("starts unzoomed, unzoom hidden", byId.unzoom.classList.contains("hide"));
  ev("mouseover", rect("b"));
  check("hover shows the tooltip", byId.details.textContent === "Function: b (5 samples, 50.00%)");
  ev("click", rect("a"));
  check("zoom: clicked frame fills the width", x("a") === 10 && w("a") === 1180);
  check("zoom: children scaled", w("b") === 737.5 && x("c") === 747.5);
  check("zoom: unrelated frames hidden", F.d.classList.contains("hide"));
  check("zoom: ancestors dimmed and full width", F.main.classList.contains("parent") && w("main") === 1180);
  check("zoom: labels refitted", label("b") === "b");
  check("zoom: reset button shown", !byId.unzoom.classList.contains("hide"));
  check("zoom: URL keeps the frame", /x=10\.0&y=\d/.test(urls[urls.length - 1]));
  promptAnswer = "^[bc]$";
  ev("keydown", root, { key: "f", ctrlKey: true });
  check("search: matches highlighted", rect("b").getAttribute("fill") === "rgb(230,0,230)" &&
        rect("c").getAttribute("fill") === "rgb(230,0,230)" && rect("a").getAttribute("fill") !== "rgb(230,0,230)");
  check("search: matched share of the zoomed frame", byId.matched.textContent === "Matched: 100%");
  check("search: URL keeps the regex", urls[urls.length - 1].includes("s=%5E%5Bbc%5D%24"));
  ev("click", byId.unzoom);
  check("unzoom: geometry restored", w("a") === 944 && !F.d.classList.contains("hide") && !F.main.classList.contains("parent"));
  check("unzoom: matched share of the total", byId.matched.textContent === "Matched: 80.0%");
  promptAnswer = "B";
  ev("click", byId.search);   // a search is active: clicking clears it
  check("search cleared", byId.matched.textContent === " " && rect("b").getAttribute("fill") !== "rgb(230,0,230)");
  ev("click", byId.search);
  check("case-sensitive search finds nothing", byId.matched.textContent === "Matched: 0.0%");
  ev("click", byId.ignorecase);
  check("ignore case finds b", byId.matched.textContent === "Matched: 50.0%");
  promptAnswer = "(";
  ev("keydown", root, { key: "F3" });
  check("bad regex reported", byId.matched.textContent.startsWith("Bad regex"));
}
console.log("1.." + n);
process.exit(fails ? 1 : 0);
JS

# relay the harness's TAP lines as our own
relay() {
	while IFS= read -r l; do
		case $l in
		"ok "*) ok "${l#ok * - }" ;;
		"not ok "*) not_ok "${l#not ok * - }" ;;
		1..*) ;;
		*) not_ok "script run: $l" ;;
		esac
	done <"$1"
}
node "$T/run.js" "$T/g.json" "$T/page.js" >"$T/out1.tap" 2>&1
relay "$T/out1.tap"

# the URL state run needs frame a's y, read with ../shared's fgframes
if have_shared "$SHARED/tools/fgframes"; then
	ay=$(python3 "$SHARED/tools/fgframes" "$T/g.svg" | awk -F'\t' '$5 ~ /^a \(/ {print $1+0}')
	node "$T/run.js" "$T/g.json" "$T/page.js" "?x=10.0&y=$ay&s=c" >"$T/out2.tap" 2>&1
	relay "$T/out2.tap"
fi

done_testing
