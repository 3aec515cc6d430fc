// SPDX-License-Identifier: GPL-2.0-or-later
// report-html.test.js — drive `perfkit report --html`'s page in a real
// browser (Debian's chromium, headless, through playwright-core) with real
// clicks and keys, and check what it shows against the data.
//
//   node report-html.test.js folded  PAGE.html INPUT.folded
//   node report-html.test.js perf    PAGE.html REPORT.txt [ANNOTATE.txt]
//   node report-html.test.js events  PAGE.html REPORT.txt   (two events)
//   node report-html.test.js many    PAGE.html INPUT.folded (over 250 functions)
//   node report-html.test.js diff    PAGE.html OLD.folded NEW.folded
//   node report-html.test.js mkhostile OUT.folded
//   node report-html.test.js hostile PAGE.html HOSTILE.folded
//
// folded: the expected tree, Self/Children, callers and callees are
// computed here from INPUT.folded, never read from the page.  perf: the
// table against `perfkit report --stdio --sort dso,sym -g none` (REPORT.txt)
// and the annotation against `perfkit annotate --stdio` of the hottest
// function.  diff: the colours, the toggle and the largest changes against
// the two folded files.  hostile: names built to break out of the page
// (mkhostile writes them) must show as text and run nothing.
// Prints "ok - WHAT" / "not ok - WHAT" lines and "# ..." diagnostics
// (tests/e2e/0422-report-html.t numbers them).
// Environment: CHROMIUM (default /usr/bin/chromium).
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const url = require("url");

const [mode, ...args] = process.argv.slice(2);
let failed = 0, tag = "";
function check(cond, what, detail) {
	console.log((cond ? "ok - " : "not ok - ") + tag + what);
	if (!cond) {
		failed++;
		if (detail !== undefined)
			for (const l of String(detail).split("\n").slice(0, 20)) console.log("#   " + l.slice(0, 300));
	}
	return cond;
}
function same(got, want, what) {
	const g = JSON.stringify(got), w = JSON.stringify(want);
	return check(g === w, what, "got:  " + g + "\nwant: " + w);
}
const pct = (v, t) => t ? (100 * v / t).toFixed(2) + "%" : "0.00%";
const signed = d => (d > 0 ? "+" : d < 0 ? "\u2212" : "\u00b1") + Math.abs(d).toFixed(2) + "pp";
const fmtInt = n => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

// ---- hostile names ----------------------------------------------------
const LONG = "long" + "A".repeat(100000) + "</script><script>window.pkPwned=9</script>";
function hostileNames() {
	return [
		Buffer.from('<b>bold</b>&amp&#60"\'', "utf8"),
		Buffer.from("</script><script>window.pkPwned=1</script>", "utf8"),
		Buffer.from("<!--<script>window.pkPwned=2</script>-->", "utf8"),
		Buffer.from('<img src=x onerror="window.pkPwned=3">', "utf8"),
		Buffer.from('"+(window.pkPwned=4)+"\u2028x\u2029y', "utf8"),
		Buffer.from("<svg onload=window.pkPwned=5>", "utf8"),
		Buffer.from("esc\x1b[31mred\x1b[0m\\u0041\\", "utf8"),
		Buffer.concat([Buffer.from("bad"), Buffer.from([0xff, 0xfe]), Buffer.from("utf8"), Buffer.from([0xc3]), Buffer.from("(")]),
		Buffer.from("javascript:window.pkPwned=6", "utf8"),
		Buffer.from(LONG, "utf8"),
	];
}
// (folded names hold no ';', the frame separator)
// what the page shows for a name: invalid UTF-8 bytes as U+FFFD, one each
// (these inputs have no sequence where the WHATWG and perfkit rules differ)
const shown = b => b.toString("utf8");

// ---- the model of a folded file --------------------------------------
function model(text) {
	const root = { name: "all", v: 0, kids: new Map(), parent: null, depth: 0 };
	const funcs = new Map(), edges = new Map();
	const f = n => { if (!funcs.has(n)) funcs.set(n, { self: 0, total: 0 }); return funcs.get(n); };
	for (const line of text.split("\n")) {
		if (!line.trim()) continue;
		const sp = line.lastIndexOf(" ");
		const n = Number(line.slice(sp + 1)), st = line.slice(0, sp).split(";");
		let node = root;
		root.v += n;
		for (const name of st) {
			let k = node.kids.get(name);
			if (!k) { k = { name, v: 0, kids: new Map(), parent: node, depth: node.depth + 1 }; node.kids.set(name, k); }
			k.v += n;
			node = k;
		}
		f(st[st.length - 1]).self += n;
		for (const name of new Set(st)) f(name).total += n;
		const pairs = new Set();
		for (let i = 0; i + 1 < st.length; i++) pairs.add(st[i] + "\0" + st[i + 1]);
		for (const p of pairs) edges.set(p, (edges.get(p) || 0) + n);
	}
	const nodes = [];
	(function walk(n) { nodes.push(n); for (const k of n.kids.values()) walk(k); })(root);
	return { root, funcs, edges, nodes, total: root.v };
}
const under = (a, n) => { for (let p = n; p; p = p.parent) if (p === a) return true; return false; };

// the table's order: the column (desc or asc), then Children and Self
// largest first, then name
function order(rows, key, desc) {
	return rows.slice().sort((a, b) => {
		let c = key === "name" ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a[key] - b[key];
		if (desc) c = -c;
		if (!c) c = (b.total - a.total) || (b.self - a.self);
		if (!c) c = a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
		return c;
	}).map(r => r.name);
}

// ---- the page ----------------------------------------------------------
async function withPage(file, fn) {
	const { chromium } = require("playwright-core");
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), "pk-chromium-"));
	const ctx = await chromium.launchPersistentContext(profile, {
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		headless: true,
		viewport: { width: 1280, height: 900 },
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		       "--disable-background-networking", "--disable-component-update", "--disable-sync"],
	});
	const href = url.pathToFileURL(path.resolve(file)).href;
	const errors = [], requests = [], dialogs = [];
	try {
		const page = ctx.pages()[0] || await ctx.newPage();
		page.setDefaultTimeout(10000);
		page.on("pageerror", e => errors.push(String(e)));
		page.on("request", r => { if (r.url() !== href) requests.push(r.url()); });
		page.on("dialog", d => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
		await page.goto(href);
		const ready = await page.waitForSelector("body[data-ready='1']", { timeout: 20000 }).then(() => true, () => false);
		check(ready, "the page draws its first view");
		if (ready) await fn(page);
		same(errors, [], "no script errors in the page");
		same(requests, [], "the page loads nothing (no network, no other file)");
		same(dialogs, [], "no dialog opened");
	} finally {
		await ctx.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
}

const text = (page, sel) => page.locator(sel).first().textContent();
// the drawn frames: node, name, box, classes, background
const frames = page => page.evaluate(() => Array.from(document.querySelectorAll("#pk-graph .pk-fr")).map(d => ({
	node: Number(d.dataset.node), name: d.textContent, x: parseFloat(d.style.left), w: parseFloat(d.style.width),
	y: parseFloat(d.style.top), dim: d.classList.contains("pk-dim"), match: d.classList.contains("pk-match"),
	bg: d.style.background || getComputedStyle(d).backgroundColor,
})));
const graphWidth = page => page.evaluate(() => document.getElementById("pk-graph").clientWidth);
// the table: the text of every cell, by row
const tableRows = (page, sel) => page.evaluate(s => Array.from(document.querySelectorAll(s + " tbody tr")).map(r =>
	Array.from(r.cells).map(c => c.textContent)), sel);
const cols = page => page.evaluate(() => Array.from(document.querySelectorAll("#pk-table thead th")).map(t => t.dataset.col));
// the frame drawn for a model node: same name, widest at that depth
async function frameOf(page, n) {
	const fs_ = (await frames(page)).filter(f => f.name === n.name && !f.dim);
	fs_.sort((a, b) => b.w - a.w);
	return fs_[0];
}
const near = (a, b, eps) => Math.abs(a - b) <= (eps === undefined ? 1.01 : eps);

// ---- folded: every view against the model ----------------------------
async function testFolded(page, m) {
	const W = await graphWidth(page);
	const T = m.total;
	check((await text(page, "#pk-info")).includes(fmtInt(T) + " samples"), "the header names the total samples");

	// the table, default order: Children, then Self
	const cs = await cols(page);
	same(cs, ["total", "self", "selfc", "name", "dso"], "the table's columns");
	const rows = [...m.funcs].map(([name, f]) => ({ name, self: f.self, total: f.total }));
	let got = await tableRows(page, "#pk-table");
	same(got.map(r => r[3]), order(rows, "total", true), "table: one row per function, by Children");
	same(got.map(r => [r[3], r[0], r[1], r[2]]),
	     order(rows, "total", true).map(n => [n, pct(m.funcs.get(n).total, T), pct(m.funcs.get(n).self, T), fmtInt(m.funcs.get(n).self)]),
	     "table: Children, Self and Samples of every function");

	// sorting: Self (largest first), again (smallest first), Symbol (A-Z)
	await page.locator('#pk-table th[data-col="self"]').click();
	got = await tableRows(page, "#pk-table");
	same(got.map(r => r[3]), order(rows, "self", true), "sort: a click on Self orders by Self, largest first");
	await page.locator('#pk-table th[data-col="self"]').click();
	got = await tableRows(page, "#pk-table");
	same(got.map(r => r[3]), order(rows, "self", false), "sort: a second click reverses it");
	await page.locator('#pk-table th[data-col="name"]').click();
	got = await tableRows(page, "#pk-table");
	same(got.map(r => r[3]), order(rows, "name", false), "sort: Symbol orders by name");
	await page.locator('#pk-table th[data-col="total"]').click();

	// filter
	await page.locator("#pk-filter").click();
	await page.keyboard.type("MA");
	got = await tableRows(page, "#pk-table");
	const want = order(rows.filter(r => r.name.toLowerCase().includes("ma")), "total", true);
	same(got.map(r => r[3]), want, "filter: \"MA\" keeps the functions whose name holds it (any case)");
	check((await text(page, "#pk-table-info")).startsWith(want.length + " matching of " + rows.length),
	      "filter: the count of matching functions", await text(page, "#pk-table-info"));
	await page.locator("#pk-filter").fill("");
	same((await tableRows(page, "#pk-table")).length, rows.length, "filter: emptied, every function is back");

	// callers and callees of functions picked in the table
	for (const fn of ["tokenize", "recurse", "matmul", "compute"]) {
		await page.locator("#pk-table tbody tr").filter({ has: page.locator(`td:text-is("${fn}")`) }).click();
		same(await text(page, "#pk-fn-name"), fn, `select ${fn}: its name shown`);
		const tot = m.funcs.get(fn).total;
		for (const [id, side] of [["#pk-callers", 0], ["#pk-callees", 1]]) {
			const exp = [...m.edges].filter(([k]) => k.split("\0")[side === 0 ? 1 : 0] === fn)
				.map(([k, v]) => [k.split("\0")[side], v])
				.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
				.map(([n, v]) => [pct(v, tot), pct(v, T), n]);
			const g = (await tableRows(page, id)).filter(r => r.length === 4).map(r => r.slice(0, 3));
			same(g, exp, `select ${fn}: its ${side ? "callees" : "callers"} with their shares`);
		}
	}
	// a callee row leads to that function (compute's largest callee)
	const first = [...m.edges].filter(([k]) => k.startsWith("compute\0")).sort((a, b) => b[1] - a[1])[0][0].split("\0")[1];
	await page.locator("#pk-callees tbody tr").first().click();
	same(await text(page, "#pk-fn-name"), first, "a click on a callee selects that function");

	// flame graph: unzoomed, every node of the model is drawn at its width
	let fr = await frames(page);
	const drawn = fr.filter(f => !f.dim);
	same(drawn.length, m.nodes.length, "flame graph: one frame per node of the stack tree");
	const root = fr.find(f => f.name === "all");
	check(root && near(root.x, 0) && near(root.w, W), "flame graph: the root spans the width");
	const maxd = Math.max(...m.nodes.map(n => n.depth));
	check(root && root.y === maxd * 17, "flame graph: the root at the bottom", root && root.y);
	const compute = m.nodes.filter(n => n.name === "compute").sort((a, b) => b.v - a.v)[0];
	const cf = await frameOf(page, compute);
	check(cf && near(cf.w, W * compute.v / T, 1.5), "flame graph: a frame's width is its share", cf && cf.w);

	// tooltip on hover (the widest compute frame)
	const gb = await page.locator("#pk-graph").boundingBox();
	await page.mouse.move(gb.x + cf.x + cf.w / 2, gb.y + cf.y + 8);
	same(await text(page, "#pk-tip"), `compute (${fmtInt(compute.v)} samples, ${pct(compute.v, T)})`,
	     "hover: the tooltip names the frame, its samples and share");

	// click-zoom into compute (the widest)
	await page.mouse.click((await page.locator("#pk-graph").boundingBox()).x + cf.x + cf.w / 2,
			       (await page.locator("#pk-graph").boundingBox()).y + cf.y + 8);
	fr = await frames(page);
	const z = fr.find(f => f.name === "compute" && !f.dim);
	check(z && near(z.x, 0) && near(z.w, W), "zoom: the clicked frame spans the width", z && JSON.stringify(z));
	same(fr.filter(f => f.dim).map(f => f.name).sort(), ["all", "main"], "zoom: its ancestors are drawn dimmed");
	const sub = m.nodes.filter(n => under(compute, n));
	same(fr.filter(f => !f.dim).map(f => f.name).sort(), sub.map(n => n.name).sort(), "zoom: only its subtree is drawn");
	const mm = compute.kids.get("matmul"), mmf = fr.find(f => f.name === "matmul" && !f.dim && f.y === z.y - 17 && f.w > W / 2);
	check(mmf && near(mmf.w, W * mm.v / compute.v, 1.5), "zoom: a child's width is its share of the zoomed frame", mmf && mmf.w);
	same(await text(page, "#pk-fn-name"), "compute", "zoom: the clicked function is selected");
	await page.keyboard.press("Escape");
	fr = await frames(page);
	same(fr.filter(f => !f.dim).length, m.nodes.length, "Escape: back to the whole graph");
	// zoom again, the button resets
	await page.locator("#pk-graph .pk-fr", { hasText: /^parse$/ }).first().click();
	same((await frames(page)).filter(f => !f.dim).map(f => f.name).sort(),
	     m.nodes.filter(n => under(m.root.kids.get("main").kids.get("parse"), n)).map(n => n.name).sort(), "zoom into parse");
	await page.locator("#pk-reset").click();
	same((await frames(page)).filter(f => !f.dim).length, m.nodes.length, "Reset zoom: the whole graph");

	// search: "/" focuses the box
	await page.keyboard.press("/");
	check(await page.evaluate(() => document.activeElement && document.activeElement.id === "pk-search"), "'/' focuses the search box");
	for (const q of ["mat", "^(tokenize|write)$", "e"]) {
		await page.locator("#pk-search").fill("");
		await page.keyboard.type(q);
		const re = new RegExp(q);
		fr = await frames(page);
		same(fr.filter(f => f.match).map(f => f.name).sort(), m.nodes.filter(n => n !== m.root && re.test(n.name)).map(n => n.name).sort(),
		     `search ${q}: the matching frames are highlighted`);
		let mv = 0;
		(function walk(n) { if (n !== m.root && re.test(n.name)) { mv += n.v; return; } for (const k of n.kids.values()) walk(k); })(m.root);
		same(await text(page, "#pk-matched"), "Matched: " + pct(mv, T), `search ${q}: the matched share (nested matches once)`);
	}
	await page.locator("#pk-search").fill("");
	check(!(await frames(page)).some(f => f.match), "search emptied: nothing highlighted");
	await page.locator("#pk-table").click();
	await page.keyboard.press("Control+f");
	check(await page.evaluate(() => document.activeElement && document.activeElement.id === "pk-search"), "Ctrl-F focuses the search box");

	// icicle: root on top, deeper frames below; zoom works there too
	await page.locator("#pk-view-icicle").click();
	fr = await frames(page);
	same(await page.evaluate(() => document.getElementById("pk-graph").dataset.view), "icicle", "icicle: switched");
	const r2 = fr.find(f => f.name === "all");
	check(r2 && r2.y === 0, "icicle: the root on top");
	const nc = await frameOf(page, m.root.kids.get("main").kids.get("parse").kids.get("tokenize").kids.get("next_char"));
	check(nc && nc.y === 4 * 17, "icicle: a depth-4 frame in the 5th row", nc && nc.y);
	await page.locator("#pk-graph .pk-fr", { hasText: /^tokenize$/ }).first().click();
	fr = await frames(page);
	const tz = fr.find(f => f.name === "tokenize" && !f.dim);
	check(tz && near(tz.w, W) && tz.y === 3 * 17, "icicle: zoom on tokenize, full width in its row");
	await page.locator("#pk-view-flame").click();
	same(await page.evaluate(() => document.getElementById("pk-graph").dataset.view), "flame", "back to the flame graph");
	await page.keyboard.press("Escape");
}

// ---- perf.data: the table against perfkit report --stdio ---------------
// the rows of report's table (with symbols) and its event count
function reportRows(rep) {
	const ec = rep.match(/^# Event count \(approx\.\): (\d+)/m), want = [];
	for (const l of rep.split("\n")) {
		const r = l.match(/^\s+([\d.]+%)\s+([\d.]+%)\s+(\S+)\s+\[[.k]\] (.+)$/);
		// rows of a symbol; an address is not one (perf's "%#llx" prints 0 as
		// 16 zeros, no 0x: the end of some kernels' user call chains)
		if (r && !/^(0x)?[0-9a-f]{16}$/.test(r[4])) want.push({ children: r[1], self: r[2], dso: r[3], sym: r[4] });
	}
	return { total: ec && Number(ec[1]), want };
}
async function checkTable(page, want) {
	const got = await tableRows(page, "#pk-table");
	const idx = new Map(got.map(r => [r[3] + "\0" + r[4].replace(/^.*\//, ""), r]));
	let bad = [];
	for (const w of want) {
		const g = idx.get(w.sym + "\0" + w.dso);
		if (!g || !near(parseFloat(g[0]), parseFloat(w.children), 0.0101) || !near(parseFloat(g[1]), parseFloat(w.self), 0.0101))
			bad.push(JSON.stringify(w) + " page: " + JSON.stringify(g && g.slice(0, 3)));
	}
	same(bad, [], `table: Children and Self of ${want.length} functions as perfkit report --stdio prints them`);
}
async function testPerf(page, reportTxt, annotateTxt) {
	const { total, want } = reportRows(fs.readFileSync(reportTxt, "utf8"));
	check(total && (await text(page, "#pk-info")).includes("total " + fmtInt(total)), "the header's total is report's event count", total);
	check(want.length >= 3, "report --stdio gave rows to compare", want.length);
	await checkTable(page, want);
	// the hottest function by Self is selected, annotated
	const hot = want.slice().sort((a, b) => parseFloat(b.self) - parseFloat(a.self))[0];
	same(await text(page, "#pk-fn-name"), hot.sym, "the hottest function is selected first");
	const callers = await tableRows(page, "#pk-callers");
	check(callers.length >= 1, "its callers are listed");
	if (annotateTxt) {
		const asm = await tableRows(page, "#pk-asm");
		check(asm.length > 3, "its instructions are shown", asm.length);
		const sum = asm.reduce((s, r) => s + (parseFloat(r[0]) || 0), 0);
		check(near(sum, 100, 0.3), "the instructions' shares add up to 100 % of its Self", sum);
		// every instruction's share as perfkit annotate --stdio prints it
		const at = fs.readFileSync(annotateTxt, "utf8"), want = new Map();
		for (const l of at.split("\n")) {
			const r = l.match(/^\s*([\d.]+)\s*:\s*([0-9a-f]+):/);
			if (r) want.set(parseInt(r[2], 16), parseFloat(r[1]));
		}
		const gotm = new Map(asm.map(r => [parseInt(r[1], 16), parseFloat(r[0]) || 0]));
		check(want.size > 3 && want.size === gotm.size, "as many instructions as perfkit annotate shows", want.size + " vs " + gotm.size);
		const bad = [...want].filter(([a, p]) => !gotm.has(a) || !near(gotm.get(a), p, 0.0101));
		same(bad.map(([a, p]) => a.toString(16) + ": " + p + " page " + gotm.get(a)), [],
		     "every instruction's share as perfkit annotate --stdio prints it");
		const src = await tableRows(page, "#pk-src");
		check(src.some(r => r[0] && r[2].trim().length > 0), "hot source lines are shown with their text");
	}
}

// ---- two events: the selector, each against its part of report --stdio --
async function testEvents(page, reportTxt) {
	const parts = fs.readFileSync(reportTxt, "utf8").split(/^(?=# Samples: )/m).slice(1);
	const names = parts.map(p => p.match(/of event '([^']+)'/)[1]);
	const opts = await page.evaluate(() => Array.from(document.querySelectorAll("#pk-profile option")).map(o => o.textContent));
	same(opts, names, "events: one choice per event, as report prints them");
	for (let i = 0; i < parts.length; i++) {
		await page.locator("#pk-profile").selectOption(String(i));
		const { total, want } = reportRows(parts[i]);
		const info = await text(page, "#pk-info");
		check(info.includes(" of " + names[i] + ",") && info.includes("total " + fmtInt(total)),
		      `events: ${names[i]} chosen, the header says it and its total`, info);
		await checkTable(page, want);
		same(await page.evaluate(() => document.getElementById("pk-graph").dataset.profile), String(i), `events: the graph of ${names[i]}`);
	}
}

// ---- many functions: 250 rows drawn, "Show more" draws the rest ------
async function testMany(page, m) {
	const n = m.funcs.size;
	same((await tableRows(page, "#pk-table")).length, 250, "many: the table draws 250 rows first");
	same(await text(page, "#pk-table-info"), n + " functions, the first 250 shown", "many: it says so");
	await page.locator("#pk-more").click();
	const rows = [...m.funcs].map(([name, f]) => ({ name, self: f.self, total: f.total }));
	same((await tableRows(page, "#pk-table")).map(r => r[3]), order(rows, "total", true), "many: Show more draws every row, in order");
	check(!(await page.locator("#pk-more").isVisible()), "many: no more to show");
}

// ---- report's --no-children --sort sym --percent-limit L: the table by
// Self, then name; functions under L % of the total left out -----------
async function testLimit(page, m, limit) {
	const rows = [...m.funcs].map(([name, f]) => ({ name, self: f.self, total: f.total }));
	const kept = rows.filter(r => 100 * r.self / m.total >= limit);
	check(kept.length > 0 && kept.length < rows.length, "limit: the limit leaves some functions out", kept.length + " of " + rows.length);
	const want = kept.slice().sort((a, b) => (b.self - a.self) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(r => r.name);
	same((await tableRows(page, "#pk-table")).map(r => r[3]), want, "limit: the rows at or over the limit, by Self then name");
	same(await page.evaluate(() => document.querySelector("#pk-table th.pk-desc").dataset.col), "self", "limit: sorted by Self (--no-children)");
	check((await text(page, "#pk-table-info")).includes((rows.length - kept.length) + " under " + limit + " % left out"),
	      "limit: the table says how many are left out", await text(page, "#pk-table-info"));
}

// ---- --diff ------------------------------------------------------------
async function testDiff(page, mo, mn) {
	const W = await graphWidth(page);
	same(await page.evaluate(() => document.getElementById("pk-graph").dataset.profile), "1", "diff: opens on NEW");
	check((await page.locator("#pk-after").getAttribute("class") || "").includes("pk-on"), "diff: the After button is on");
	check((await text(page, "#pk-info")).startsWith("After (NEW)"), "diff: the header says After");
	// largest changes: by |Δ Self| (share points)
	const names = new Set([...mo.funcs.keys(), ...mn.funcs.keys()]);
	const ch = [...names].map(n => {
		const a = mo.funcs.get(n) || { self: 0, total: 0 }, b = mn.funcs.get(n) || { self: 0, total: 0 };
		return { n, ds: 100 * b.self / mn.total - 100 * a.self / mo.total, dc: 100 * b.total / mn.total - 100 * a.total / mo.total };
	}).sort((x, y) => Math.abs(y.ds) - Math.abs(x.ds) || Math.abs(y.dc) - Math.abs(x.dc));
	const got = await tableRows(page, "#pk-changes-table");
	same(got.slice(0, 6).map(r => [r[6], r[2], r[5]]), ch.slice(0, 6).map(c => [c.n, signed(c.ds), signed(c.dc)]),
	     "diff: the largest changes, with their Δ Self and Δ Children");
	// colours: tokenize grew (red), compute;matmul shrank (blue)
	const rgb = s => (s.match(/\d+/g) || []).map(Number);
	let fr = await frames(page);
	const tok = fr.find(f => f.name === "tokenize"), mat = fr.filter(f => f.name === "matmul").sort((a, b) => b.w - a.w)[0];
	const [tr, tg, tb] = rgb(tok.bg), [mr, mg, mb] = rgb(mat.bg);
	check(tr === 255 && tg < 255 && tb === tg, "diff: a frame that grew is red", tok.bg);
	check(mb === 255 && mr < 255 && mr === mg, "diff: a frame that shrank is blue", mat.bg);
	check(fr.some(f => f.name === "compress"), "diff: a frame only in NEW is drawn in After");
	// the tooltip gives both shares and the change
	const tn = mn.root.kids.get("main").kids.get("parse").kids.get("tokenize"), to = mo.root.kids.get("main").kids.get("parse").kids.get("tokenize");
	const gb = await page.locator("#pk-graph").boundingBox();
	await page.mouse.move(gb.x + tok.x + tok.w / 2, gb.y + tok.y + 8);
	same(await text(page, "#pk-tip"), `tokenize (${fmtInt(tn.v)} samples, ${pct(tn.v, mn.total)}); before ${pct(to.v, mo.total)}, ` +
	     `after ${pct(tn.v, mn.total)}, ${signed(100 * tn.v / mn.total - 100 * to.v / mo.total)}`, "diff: the tooltip gives before, after and the change");
	const Wn = W * mn.root.kids.get("main").kids.get("parse").v / mn.total;
	const pf = fr.find(f => f.name === "parse");
	check(pf && near(pf.w, Wn, 1.5), "diff: After's widths are NEW's shares", pf && pf.w);
	// the toggle
	await page.locator("#pk-before").click();
	same(await page.evaluate(() => document.getElementById("pk-graph").dataset.profile), "0", "toggle: Before draws OLD");
	check((await text(page, "#pk-info")).startsWith("Before (OLD)"), "toggle: the header says Before");
	fr = await frames(page);
	check(!fr.some(f => f.name === "compress"), "toggle: a frame only in NEW is gone in Before");
	const pf0 = fr.find(f => f.name === "parse");
	check(pf0 && near(pf0.w, W * mo.root.kids.get("main").kids.get("parse").v / mo.total, 1.5), "toggle: Before's widths are OLD's shares", pf0 && pf0.w);
	const t0 = (await tableRows(page, "#pk-table")).find(r => r[4] === "matmul" || r[3] === "matmul");
	check(t0 && t0[1] === pct(mo.funcs.get("matmul").self, mo.total), "toggle: the table shows OLD's Self", t0 && t0.join("|"));
	const tok0 = fr.find(f => f.name === "tokenize");
	check(tok0 && rgb(tok0.bg)[0] === 255 && rgb(tok0.bg)[2] < 255, "toggle: the colours still say what grew", tok0 && tok0.bg);
	await page.locator("#pk-after").click();
	same(await page.evaluate(() => document.getElementById("pk-graph").dataset.profile), "1", "toggle: After again");
	// a row of the changes table selects the function
	await page.locator("#pk-changes-table tbody tr").first().click();
	same(await text(page, "#pk-fn-name"), ch[0].n, "diff: a click in the changes selects that function");
}

// ---- hostile names ------------------------------------------------------
async function testHostile(page, names) {
	same(await page.evaluate(() => typeof window.pkPwned), "undefined", "hostile: no injected script ran");
	same(await page.evaluate(() => document.scripts.length), 2, "hostile: the page has its two script blocks only");
	same(await page.evaluate(() => document.querySelectorAll("img, svg, b, iframe, object").length), 0, "hostile: no element made from a name");
	const want = names.map(shown);
	const got = (await tableRows(page, "#pk-table")).map(r => r[3]);
	const missing = want.filter(n => !got.includes(n));
	same(missing.map(n => n.slice(0, 60)), [], "hostile: every name in the table, as text");
	const fr = (await frames(page)).map(f => f.name);
	same(want.filter(n => !fr.includes(n)).map(n => n.slice(0, 60)), [], "hostile: every name in the flame graph, as text");
	// select them one by one
	for (let i = 0; i < want.length; i++) {
		await page.evaluate(i => document.querySelectorAll("#pk-table tbody tr")[i].click(),
				    got.indexOf(want[i]));
		same((await text(page, "#pk-fn-name")) === want[i], true, `hostile: name ${i} shown as text when selected`);
	}
	same(await page.evaluate(() => typeof window.pkPwned), "undefined", "hostile: still nothing ran after selecting each");
	await page.locator("#pk-search").fill("script");
	const fm = (await frames(page)).filter(f => f.match).map(f => f.name);
	same(fm.length, want.filter(n => /script/.test(n)).length, "hostile: search finds the names with 'script'");
	await page.locator("#pk-filter").fill("<img");
	same((await tableRows(page, "#pk-table")).map(r => r[3]), want.filter(n => n.toLowerCase().includes("<img")), "hostile: the filter matches markup as text");
}

async function main() {
	if (mode === "mkhostile") {
		const lines = hostileNames().map((n, i) => Buffer.concat([Buffer.from("main;"), n, Buffer.from(" " + (10 + i) + "\n")]));
		lines.push(Buffer.concat([Buffer.from("main;"), hostileNames()[1], Buffer.from(";leaf 5\n")]));
		fs.writeFileSync(args[0], Buffer.concat(lines));
		return;
	}
	const page = args[0];
	if (mode === "folded") await withPage(page, p => testFolded(p, model(fs.readFileSync(args[1], "utf8"))));
	else if (mode === "perf") await withPage(page, p => testPerf(p, args[1], args[2]));
	else if (mode === "limit") await withPage(page, p => testLimit(p, model(fs.readFileSync(args[1], "utf8")), Number(args[2])));
	else if (mode === "many") await withPage(page, p => testMany(p, model(fs.readFileSync(args[1], "utf8"))));
	else if (mode === "events") await withPage(page, p => testEvents(p, args[1]));
	else if (mode === "diff") await withPage(page, p => testDiff(p, model(fs.readFileSync(args[1], "utf8")), model(fs.readFileSync(args[2], "utf8"))));
	else if (mode === "hostile") await withPage(page, p => testHostile(p, hostileNames()));
	else { console.error("usage: see the head of report-html.test.js"); process.exit(2); }
}
main().then(() => process.exit(failed ? 1 : 0), e => { console.log("not ok - the test ran to its end"); console.log("# " + String(e.stack || e).split("\n").join("\n# ")); process.exit(1); });
