#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/html.sh [BUILD] — `perfkit report --html` on a large perf.data: the
# page's size, the time to write it beside `perfkit report --stdio` (the same
# reading of the file, measured in the same run), and the time to its first
# view in headless Chromium (playwright-core from tests/browser): from the
# start of navigation to the page's first drawn view (flame graph, table,
# the hottest function's details), median of RUNS fresh loads, beside the
# load time of `perfkit flamegraph`'s SVG of the same file.
#   HTML_DATA=FILE   the perf.data (default /work/big/big.data, 2.4 M samples)
#   RUNS=N           page loads per page (default 5)
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
TOP=$PWD
PK=$TOP/$BUILD/perfkit
DATA=${HTML_DATA:-/work/big/big.data}
RUNS=${RUNS:-5}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
W=$(mktemp -d "${TMPDIR:-/tmp}/perfkit-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
[ -x "$PK" ] || { echo "build $PK first (make BUILD=$BUILD)" >&2; exit 1; }
[ -f "$DATA" ] || { echo "no $DATA: set HTML_DATA=FILE (a perf.data)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time (GNU time) not installed" >&2; exit 1; }

echo "input: $DATA, $(du -h "$DATA" | cut -f1)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
cat "$DATA" >/dev/null

# t NAME CMD... — CPU seconds (user + sys) into NAME, wall into NAME_wall
t() {
	local name=$1; shift
	/usr/bin/time -f '%U %S %e %M' -o "$W/time" "$@" >/dev/null 2>&1
	read -r u s e m < <(tail -1 "$W/time")
	printf -v "$name" '%.2f' "$(echo "$u + $s" | bc -l)"
	printf -v "${name}_wall" '%.1f' "$e"
	printf -v "${name}_rss" '%s' "$((m / 1024))"
}
t html "$PK" report --html -o "$W/p.html" -i "$DATA"
t stdio "$PK" report --stdio -i "$DATA"
t svg "$PK" flamegraph "$DATA" -o "$W/p.svg"
size=$(stat -c %s "$W/p.html")
printf '%-40s %8s %8s %8s\n' command "CPU s" "wall s" "peak MB" \
	"perfkit report --html" "$html" "$html_wall" "$html_rss" \
	"perfkit report --stdio" "$stdio" "$stdio_wall" "$stdio_rss" \
	"perfkit flamegraph (SVG)" "$svg" "$svg_wall" "$svg_rss"
echo "--html / --stdio CPU: $(echo "scale=2; $html / $stdio" | bc -l)x"
echo "page: $size bytes ($(echo "scale=2; $size / 1048576" | bc -l) MB; aim < 10 MB), SVG: $(stat -c %s "$W/p.svg") bytes"
grep -o '"samples":[0-9]*' "$W/p.html" | head -1 | sed 's/^"samples":/samples: /'
grep -o '"pruned":[0-9]*,"nodes":[0-9]*' "$W/p.html" | sed 's/^/call-tree nodes left out (under 0.01 %) of all: /'

if ! command -v node >/dev/null || [ ! -x "$CHROMIUM" ] ||
   [ ! -f "$TOP/tests/browser/node_modules/playwright-core/package.json" ]; then
	echo "first view: skipped (node, chromium or tests/browser's playwright-core missing: scripts/install-deps)"
	exit 0
fi
cat >"$W/view.js" <<'JS'
const { chromium } = require(process.env.PW);
const url = require("url"), path = require("path"), fs = require("fs"), os = require("os");
(async () => {
	const prof = fs.mkdtempSync(path.join(os.tmpdir(), "pk-chromium-"));
	const ctx = await chromium.launchPersistentContext(prof, { executablePath: process.env.CHROMIUM, headless: true,
		viewport: { width: 1280, height: 900 },
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"] });
	const out = {};
	for (const [k, f, ready] of [["html", process.argv[2], "body[data-ready='1']"], ["svg", process.argv[3], null]]) {
		const v = [];
		for (let i = 0; i < Number(process.env.RUNS); i++) {
			const page = await ctx.newPage();
			await page.goto(url.pathToFileURL(f).href, { waitUntil: "load", timeout: 60000 });
			if (ready) {
				await page.waitForSelector(ready, { timeout: 60000 });
				v.push(await page.evaluate(() => window.pkFirstViewMs));
			} else {
				v.push(await page.evaluate(() => performance.getEntriesByType("navigation")[0].loadEventEnd));
			}
			await page.close();
		}
		v.sort((a, b) => a - b);
		out[k] = v;
	}
	// interactions on the page: ms of the handler and the layout it forces
	const page = await ctx.newPage();
	await page.goto(url.pathToFileURL(process.argv[2]).href);
	await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
	out.ops = await page.evaluate(() => {
		const r = {}, t = (name, fn) => { const t0 = performance.now(); fn(); void document.body.offsetHeight; r[name] = performance.now() - t0; };
		const input = (id, v) => { const e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event("input")); };
		const fr = Array.from(document.querySelectorAll("#pk-graph .pk-fr")).filter(d => d.dataset.node !== "0")
			.sort((a, b) => parseFloat(b.style.width) - parseFloat(a.style.width));
		t("zoom (click a frame)", () => fr[Math.min(3, fr.length - 1)].click());
		t("reset zoom", () => document.getElementById("pk-reset").click());
		t("search", () => input("pk-search", "alloc"));
		t("icicle", () => document.getElementById("pk-view-icicle").click());
		t("sort by Self", () => document.querySelector('#pk-table th[data-col="self"]').click());
		t("filter", () => input("pk-filter", "tree"));
		t("select a function", () => document.querySelector("#pk-table tbody tr").click());
		return r;
	});
	console.log(JSON.stringify(out));
	await ctx.close();
	fs.rmSync(prof, { recursive: true, force: true });
})();
JS
res=$(PW=$TOP/tests/browser/node_modules/playwright-core CHROMIUM=$CHROMIUM RUNS=$RUNS node "$W/view.js" "$W/p.html" "$W/p.svg")
node -e '
const r = JSON.parse(process.argv[1]), med = a => a[a.length >> 1];
console.log("first view, ms from navigation start (median of " + r.html.length + "; aim < 1000):");
console.log("  report --html page, first view drawn: " + med(r.html).toFixed(0) + "  (all: " + r.html.map(x => x.toFixed(0)).join(" ") + ")");
console.log("  flamegraph SVG, load event:           " + med(r.svg).toFixed(0) + "  (all: " + r.svg.map(x => x.toFixed(0)).join(" ") + ")");
console.log("interactions, ms (handler + layout):");
for (const k in r.ops) console.log("  " + k.padEnd(24) + r.ops[k].toFixed(1));
' "$res"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
