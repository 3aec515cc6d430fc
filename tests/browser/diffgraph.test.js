// SPDX-License-Identifier: GPL-2.0-or-later
// diffgraph.test.js — drive perfkit's noise-aware differential flame graph
// (`perfkit diff-folded -o DIFF.svg --json TABLE.json OLD… -- NEW…`) in a
// real browser (Debian's chromium, headless, through playwright-core).
//
//   node diffgraph.test.js DIFF.svg TABLE.json
//
// The expected colours and tooltips come from TABLE.json (the same run's
// table), never from the page: a significant function's frames are red (it
// grew) or blue (it shrank) and carry class "sig", every other frame is grey
// with class "nosig"; each tooltip says before, after, change with its
// interval, p and q.  Hovering shows the tooltip in the details line,
// clicking zooms.  Prints "ok - WHAT" / "not ok - WHAT" lines; the TAP
// wrapper is tests/e2e/0619-diff-folded-browser.t.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const url = require("url");
const { chromium } = require("playwright-core");

const [svgPath, jsonPath] = process.argv.slice(2);
if (!svgPath || !jsonPath) {
	console.error("usage: node diffgraph.test.js DIFF.svg TABLE.json");
	process.exit(2);
}
let failed = 0;
function check(cond, what, detail) {
	console.log((cond ? "ok - " : "not ok - ") + what);
	if (!cond) {
		failed++;
		if (detail !== undefined)
			for (const l of String(detail).split("\n")) console.log("#   " + l);
	}
	return cond;
}
const table = JSON.parse(fs.readFileSync(jsonPath, "utf8"));
const rows = new Map(table.rows.map(r => [r.name, r]));
const GREY = "rgb(200,200,200)";
const rgb = s => (s.match(/^rgb\((\d+),(\d+),(\d+)\)$/) || []).slice(1).map(Number);

async function main() {
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), "pk-chromium-"));
	const ctx = await chromium.launchPersistentContext(profile, {
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		headless: true,
		viewport: { width: 1280, height: 400 },
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		       "--disable-background-networking", "--disable-component-update", "--disable-sync"],
	});
	try {
		const page = ctx.pages()[0] || await ctx.newPage();
		page.setDefaultTimeout(5000);
		const errors = [];
		page.on("pageerror", e => errors.push(String(e)));
		await page.goto(url.pathToFileURL(path.resolve(svgPath)).href);
		await page.waitForFunction(() => document.getElementById("frames") !== null);
		const frames = await page.evaluate(() => Array.from(document.getElementById("frames").children).map(g => {
			const r = g.querySelector("rect"), d = g.querySelector("desc");
			return { title: g.querySelector("title").textContent, name: d ? d.textContent : null,
				 fill: r.getAttribute("fill"), cls: g.getAttribute("class") || "",
				 shown: r.getBoundingClientRect().width > 0 };
		}));
		const drawn = frames.filter(f => f.name !== null);
		check(drawn.length >= 5, `the page has the functions' frames (${drawn.length})`);
		check(drawn.every(f => rows.has(f.name)), "every frame is a function of the table",
		      drawn.filter(f => !rows.has(f.name)).map(f => f.name).join(", "));
		const sigNames = table.rows.filter(r => r.significant).map(r => r.name);
		check(sigNames.length >= 1 && sigNames.length < table.rows.length,
		      `the table has significant and non-significant functions (${sigNames.join(", ")})`);
		for (const f of drawn) {
			const r = rows.get(f.name);
			if (!r) continue;
			const c = rgb(f.fill);
			if (r.significant) {
				check(/\bsig\b/.test(f.cls), `${f.name}: significant, class "sig"`, f.cls);
				check(r.change > 0 ? c[0] === 255 && c[2] < 255 : c[2] === 255 && c[0] < 255,
				      `${f.name}: ${r.change > 0 ? "red (grew)" : "blue (shrank)"}`, f.fill);
			} else {
				check(/\bnosig\b/.test(f.cls), `${f.name}: within the noise, class "nosig"`, f.cls);
				check(f.fill === GREY, `${f.name}: grey`, f.fill);
			}
			const want = [`${f.name}: before ${r.before.toFixed(2)} %`, `after ${r.after.toFixed(2)} %`,
				      `change ${r.change >= 0 ? "+" : ""}${r.change.toFixed(2)} %`];
			if (r.p !== null)
				want.push(`[${r.change_ci95[0] >= 0 ? "+" : ""}${r.change_ci95[0].toFixed(2)}, ` +
					  `${r.change_ci95[1] >= 0 ? "+" : ""}${r.change_ci95[1].toFixed(2)}]`, "p = ", "q = ",
					  r.significant ? ", significant" : ", not significant");
			check(want.every(w => f.title.includes(w)), `${f.name}: tooltip with before, after, change ± interval, p`,
			      "got:  " + f.title + "\nwant: " + want.join(" … "));
		}
		check(frames.filter(f => f.fill !== GREY && f.name !== null).every(f => rows.get(f.name).significant),
		      "colour only on significant frames");

		// hover: the tooltip in the details line; click: zoom
		const sig = drawn.find(f => rows.get(f.name).significant && f.shown);
		const loc = page.locator("#frames > g").filter({ has: page.locator("desc", { hasText: new RegExp("^" + sig.name + "$") }) }).first();
		await loc.hover();
		const details = await page.evaluate(() => document.getElementById("details").textContent);
		check(details === "Function: " + sig.title, `hovering ${sig.name} shows its tooltip in the details line`, details);
		await loc.click();
		const zoomed = await page.evaluate(n => {
			for (const g of document.getElementById("frames").children) {
				const d = g.querySelector("desc");
				if (d && d.textContent === n) return parseFloat(g.querySelector("rect").getAttribute("width"));
			}
			return -1;
		}, sig.name);
		check(Math.abs(zoomed - 1180) < 0.5, `clicking ${sig.name} zooms it to the full width`, zoomed);
		check(errors.length === 0, "no script errors in the page", errors.join("\n"));
	} finally {
		await ctx.close();
		fs.rmSync(profile, { recursive: true, force: true });
	}
}
main().then(() => process.exit(failed ? 1 : 0), e => { console.log("not ok - the browser test ran: " + e); process.exit(1); });
