// SPDX-License-Identifier: GPL-2.0-or-later
// flamegraph.test.js — drive perfkit's flame graph page in a real browser
// (Debian's chromium, headless, through playwright-core).
//
//   node flamegraph.test.js GRAPH.svg INPUT.folded [SCREENSHOT-PREFIX]
//
// GRAPH.svg is `perfkit flamegraph INPUT.folded` with the default options
// (width 1200, xpad 10).  The expected frames, widths, matched shares and
// highlighted sets are computed here from INPUT.folded, never read from the
// page.  Prints one line per check, "ok - WHAT" or "not ok - WHAT", and
// "# ..." diagnostics; tests/e2e/0420-flamegraph-browser.t numbers them.
// Environment: CHROMIUM (default /usr/bin/chromium).
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const http = require("http");
const { chromium } = require("playwright-core");

const [svgPath, foldedPath, shotPrefix] = process.argv.slice(2);
if (!svgPath || !foldedPath) {
	console.error("usage: node flamegraph.test.js GRAPH.svg INPUT.folded [SCREENSHOT-PREFIX]");
	process.exit(2);
}

let failed = 0;
let tag = "";
function check(cond, what, detail) {
	console.log((cond ? "ok - " : "not ok - ") + tag + what);
	if (!cond) {
		failed++;
		if (detail !== undefined)
			for (const l of String(detail).split("\n")) console.log("#   " + l);
	}
	return cond;
}
function same(got, want, what) {
	const g = JSON.stringify(got), w = JSON.stringify(want);
	return check(g === w, what, "got:  " + g + "\nwant: " + w);
}
const near = (a, b, eps) => Math.abs(a - b) <= (eps === undefined ? 0.11 : eps);

// ---- the model: the stack tree of the folded input ----------------------
// Every node has a name, its samples (own + children) and its parent.  The
// page titles a frame "NAME (N samples, P.PP%)" and the root "all (N samples,
// 100%)"; names in this input are unique per (name, samples), so the title
// identifies a frame.
const WIDTH = 1200, XPAD = 10, DRAW = WIDTH - 2 * XPAD;
const root = { name: "all", samples: 0, parent: null, kids: new Map(), depth: 0 };
for (const line of fs.readFileSync(foldedPath, "utf8").split("\n")) {
	if (!line.trim()) continue;
	const sp = line.lastIndexOf(" ");
	const n = Number(line.slice(sp + 1));
	let node = root;
	root.samples += n;
	for (const name of line.slice(0, sp).split(";")) {
		let k = node.kids.get(name);
		if (!k) {
			k = { name, samples: 0, parent: node, kids: new Map(), depth: node.depth + 1 };
			node.kids.set(name, k);
		}
		k.samples += n;
		node = k;
	}
}
const nodes = [];
(function walk(n) { nodes.push(n); for (const k of n.kids.values()) walk(k); })(root);
const TOTAL = root.samples;
const titleOf = n => n === root ? `all (${TOTAL} samples, 100%)`
	: `${n.name} (${n.samples} samples, ${(100 * n.samples / TOTAL).toFixed(2)}%)`;
for (const n of nodes) n.title = titleOf(n);
const byTitle = new Map(nodes.map(n => [n.title, n]));
const find = (name, samples) => nodes.find(n => n.name === name && n.samples === samples);
const ancestorOf = (a, n) => { for (let p = n.parent; p; p = p.parent) if (p === a) return true; return false; };
const inSubtree = (top, n) => n === top || ancestorOf(top, n);
const sorted = a => a.slice().sort();

// what the page should show for a search of re, zoomed into zoom (or null)
function expectSearch(re, zoom) {
	const top = zoom || root;
	const shown = n => inSubtree(top, n) || ancestorOf(n, top);
	const hl = nodes.filter(n => shown(n) && re.test(n.name));
	// the share: matched frames in the zoomed subtree, nested ones once
	const counted = hl.filter(n => inSubtree(top, n) &&
		!hl.some(m => m !== n && inSubtree(top, m) && ancestorOf(m, n)));
	const sum = counted.reduce((s, n) => s + n.samples, 0);
	const pct = 100 * sum / top.samples;
	return { text: "Matched: " + (pct >= 99.995 ? "100" : pct.toFixed(1)) + "%",
		 highlighted: sorted(hl.map(n => n.title)) };
}

// ---- the page -------------------------------------------------------------
const HL = "rgb(230,0,230)";

// every frame as the browser has it: attributes, classes, computed style and
// the rendered box (null when not rendered)
function snapshot(page) {
	return page.evaluate(() => Array.from(document.getElementById("frames").children).map(g => {
		const r = g.querySelector("rect"), t = g.querySelector("text");
		const cs = getComputedStyle(g), b = r.getBoundingClientRect();
		return {
			title: g.querySelector("title").textContent,
			x: parseFloat(r.getAttribute("x")), w: parseFloat(r.getAttribute("width")),
			y: parseFloat(r.getAttribute("y")), fill: r.getAttribute("fill"),
			label: t.textContent, cls: g.getAttribute("class") || "",
			display: cs.display, opacity: parseFloat(cs.opacity),
			box: b.width > 0 ? { x: b.x, w: b.width } : null,
		};
	}));
}
const frameG = (page, title) => page.locator("#frames > g").filter({
	has: page.locator("title", { hasText: new RegExp("^" + title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$") })
});
const text = (page, id) => page.evaluate(i => document.getElementById(i).textContent, id);
const classes = (page, id) => page.evaluate(i => document.getElementById(i).getAttribute("class") || "", id);
const query = page => new URL(page.url()).searchParams;

async function main() {
	const svg = fs.readFileSync(svgPath);
	const server = http.createServer((req, res) => {
		if (new URL(req.url, "http://x").pathname !== "/g.svg") { res.writeHead(404); res.end(); return; }
		res.writeHead(200, { "Content-Type": "image/svg+xml" });
		res.end(svg);
	});
	await new Promise(r => server.listen(0, "127.0.0.1", r));
	const base = `http://127.0.0.1:${server.address().port}/g.svg`;
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), "pk-chromium-"));
	const ctx = await chromium.launchPersistentContext(profile, {
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		headless: true,
		viewport: { width: 1280, height: 400 },
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		       "--disable-background-networking", "--disable-component-update", "--disable-sync"],
	});
	try {
		const page = ctx.pages()[0] || await ctx.newPage();
		page.setDefaultTimeout(5000);
		const errors = [];
		page.on("pageerror", e => errors.push(String(e)));
		await run(page, base, "", shotPrefix);
		// the same again with the file opened directly, as a user does
		await run(page, require("url").pathToFileURL(path.resolve(svgPath)).href, "[file://] ", null);
		tag = "";
		same(errors, [], "no script errors in the page");
	} finally {
		await ctx.close();
		server.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
}

async function run(page, base, runTag, shotPrefix) {
	tag = runTag;
	console.log("# " + (await page.context().browser()?.version?.() || "chromium") + ", " + base);
	await page.goto(base);
	await page.waitForFunction(() => document.getElementById("frames") !== null);

	// -- the page as drawn
	const orig = await snapshot(page);
	const origBy = new Map(orig.map(f => [f.title, f]));
	same(sorted(orig.map(f => f.title)), sorted(nodes.map(n => n.title)),
	     "the page has one frame per node of the input's stack tree");
	const rootF = origBy.get(root.title);
	check(rootF && near(rootF.x, XPAD) && near(rootF.w, DRAW) && rootF.box && near(rootF.box.w, DRAW, 0.5),
	      `the root frame spans the drawing width (${DRAW} px)`, JSON.stringify(rootF));
	const badW = orig.filter(f => !byTitle.has(f.title) || !near(f.w, byTitle.get(f.title).samples * DRAW / TOTAL, 0.15));
	same(badW.map(f => f.title), [], "every frame's width is its share of the drawing width");
	check((await page.locator("#unzoom").boundingBox()) === null, "Reset Zoom is hidden before any zoom");

	// -- hover shows the details line
	const parse = find("parse", 25), compute = find("compute", 45);
	await frameG(page, parse.title).hover();
	same(await text(page, "details"), "Function: " + parse.title, "hovering a frame shows its details");

	// -- click to zoom
	async function checkZoom(z, what) {
		const now = await snapshot(page);
		const zf = now.find(f => f.title === z.title);
		check(zf && near(zf.x, XPAD) && near(zf.w, DRAW) && zf.box && near(zf.box.x, XPAD, 0.5) && near(zf.box.w, DRAW, 0.5),
		      `${what}: the zoomed frame "${z.name}" spans the full drawing width`, JSON.stringify(zf));
		const zo = origBy.get(z.title), scale = DRAW / zo.w;
		const bad = [];
		for (const f of now) {
			const n = byTitle.get(f.title), o = origBy.get(f.title);
			if (inSubtree(z, n)) {   // rescaled around the zoomed frame
				const x = XPAD + (o.x - zo.x) * scale, w = o.w * scale;
				if (!near(f.x, x, 0.15) || !near(f.w, w, 0.15) || f.display === "none" || f.opacity !== 1 || !f.box)
					bad.push(f.title + " should be rescaled to x=" + x.toFixed(1) + " w=" + w.toFixed(1));
			} else if (ancestorOf(n, z)) {   // dimmed, full width
				if (!/\bparent\b/.test(f.cls) || f.opacity !== 0.5 || !near(f.w, DRAW) || !f.box)
					bad.push(f.title + " should be a dimmed full-width parent");
			} else if (!/\bhide\b/.test(f.cls) || f.display !== "none" || f.box) {
				bad.push(f.title + " should be hidden");
			}
		}
		same(bad, [], `${what}: the subtree is rescaled, ancestors dimmed, every other frame hidden`);
		await page.mouse.move(0, 0);   // not hovering it: its own style, not :hover
		check((await page.locator("#unzoom").boundingBox()) !== null &&
		      await page.evaluate(() => getComputedStyle(document.getElementById("unzoom")).opacity) === "1",
		      `${what}: Reset Zoom is shown, fully opaque`);
		const q = query(page);
		same([q.get("x"), q.get("y")], [zo.x.toFixed(1), String(zo.y)], `${what}: the URL holds the zoom (x, y)`);
		return now;
	}
	await frameG(page, parse.title).click();
	await page.waitForFunction(() => !/\bhide\b/.test(document.getElementById("unzoom").getAttribute("class") || ""));
	const zoomed = await checkZoom(parse, "click");
	const lt = find("Lex_token", 5);
	same(zoomed.find(f => f.title === lt.title).label, "Lex_token",
	     "a label cut with '..' at full size is written in full once its frame is wide enough");

	// -- the URL restores the zoom on reload
	await page.reload();
	await page.waitForFunction(() => !/\bhide\b/.test(document.getElementById("unzoom").getAttribute("class") || ""));
	await checkZoom(parse, "reload");

	// -- reset zoom: the button, or a click on the (dimmed) root frame
	async function checkUnzoomed(what) {
		await page.waitForFunction(() => /\bhide\b/.test(document.getElementById("unzoom").getAttribute("class") || ""))
			.catch(() => {});
		const now = await snapshot(page);
		same(now.filter(f => {
			const o = origBy.get(f.title);
			return f.x !== o.x || f.w !== o.w || f.label !== o.label || f.display === "none" || f.opacity !== 1 || !f.box;
		}).map(f => f.title), [], `${what} puts every frame back where it was drawn`);
		check((await page.locator("#unzoom").boundingBox()) === null, `${what} hides Reset Zoom`);
		same([query(page).get("x"), query(page).get("y")], [null, null], `${what} clears the zoom from the URL`);
	}
	await page.locator("#unzoom").click();
	await checkUnzoomed("Reset Zoom");
	await frameG(page, parse.title).click();
	await checkZoom(parse, "click again");
	await frameG(page, root.title).click();
	await checkUnzoomed("a click on the root frame");

	// -- search
	async function checkSearch(re, zoom, what) {
		const want = expectSearch(re, zoom);
		await page.waitForFunction(t => document.getElementById("matched").textContent === t, want.text)
			.catch(() => {});
		same(await text(page, "matched"), want.text, `${what}: the matched share`);
		const now = await snapshot(page);
		same(sorted(now.filter(f => f.fill === HL).map(f => f.title)), want.highlighted,
		     `${what}: the highlighted frames`);
		same(now.filter(f => f.fill !== HL && f.fill !== origBy.get(f.title).fill).map(f => f.title), [],
		     `${what}: the other frames keep their colour`);
	}
	page.once("dialog", d => d.accept("lex"));
	await page.locator("#search").click();
	await checkSearch(/lex/, null, 'search "lex" through the Search button');
	check(/\bshow\b/.test(await classes(page, "search")), "the Search button stays lit while a search is on");
	same([query(page).get("s"), query(page).get("i")], ["lex", null], "the URL holds the search");

	await page.keyboard.press("Control+i");
	await checkSearch(/lex/i, null, "Ctrl-I (ignore case)");
	check(/\bshow\b/.test(await classes(page, "ignorecase")), "the ic button is lit when ignoring case");
	same(query(page).get("i"), "1", "the URL holds the ignore-case flag");

	await page.locator("#ignorecase").click();
	await checkSearch(/lex/, null, "the ic button (case-sensitive again)");
	check(!/\bshow\b/.test(await classes(page, "ignorecase")), "the ic button is dim when case-sensitive");

	let asked = null;
	page.once("dialog", d => { asked = d.defaultValue(); d.accept("parse|lex"); });
	await page.keyboard.press("Control+f");
	await checkSearch(/parse|lex/, null, 'Ctrl-F "parse|lex" (nested matches counted once)');
	same(asked, "lex", "the search prompt offers the current regex");
	if (shotPrefix) await page.screenshot({ path: shotPrefix + "-search.png" });

	// -- search inside a zoom: the share is of the zoomed frame
	await frameG(page, compute.title).click();
	await checkSearch(/parse|lex/, compute, 'zoomed into "compute", the search share is of that frame');

	page.once("dialog", d => d.accept("("));
	await page.keyboard.press("Control+f");
	await page.waitForFunction(() => /^Bad regex/.test(document.getElementById("matched").textContent)).catch(() => {});
	check(/^Bad regex/.test(await text(page, "matched")), "a bad regex is reported in the matched line");

	// -- Esc clears the search, then the zoom
	await page.keyboard.press("Escape");
	const cleared = await snapshot(page);
	same(cleared.filter(f => f.fill !== origBy.get(f.title).fill).map(f => f.title), [],
	     "Esc clears the search highlight");
	same([(await text(page, "matched")).trim(), query(page).get("s")], ["", null],
	     "Esc clears the matched line and the search in the URL");
	await page.keyboard.press("Escape");
	await page.waitForFunction(() => /\bhide\b/.test(document.getElementById("unzoom").getAttribute("class") || ""));
	same((await snapshot(page)).filter(f => f.w !== origBy.get(f.title).w).map(f => f.title), [],
	     "a second Esc resets the zoom");

	// -- state given in the URL
	const co = origBy.get(compute.title);
	await page.goto(`${base}?x=${co.x.toFixed(1)}&y=${co.y}&s=LEX&i=1`);
	await page.waitForFunction(() => /Matched/.test(document.getElementById("matched").textContent));
	await checkZoom(compute, "URL ?x&y&s=LEX&i=1");
	await checkSearch(/LEX/i, compute, "URL ?x&y&s=LEX&i=1");
	check(/\bshow\b/.test(await classes(page, "ignorecase")), "URL i=1 lights the ic button");
	if (shotPrefix) await page.screenshot({ path: shotPrefix + "-zoom.png" });
}

main().then(() => process.exit(failed ? 1 : 0), e => {
	console.log("not ok - the browser test ran to its end");
	for (const l of String(e && e.stack || e).split("\n")) console.log("#   " + l);
	process.exit(1);
});
