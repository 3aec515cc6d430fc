// SPDX-License-Identifier: GPL-2.0-or-later
// page.js — the script of `perfkit report --html` (src/lib/export/html.h
// describes the data).  It reads the JSON block #pk-data and draws: a flame
// graph or icicle (click a frame to zoom into it, Escape or "Reset zoom" to
// go back, a RegExp search), the functions' table (click a header to sort,
// type in the filter), the selected function's callers, callees and
// annotation, and with --diff the before/after toggle, colours and the
// table of the largest changes.  Every name reaches the page through
// textContent or an attribute value, never as markup.
"use strict";
(function () {
	const D = JSON.parse(document.getElementById("pk-data").textContent);
	const P = D.profiles.length, STRIDE = 2 + 2 * P;
	const FR = D.frames;                    // [name, dso]
	const ROW = 17;                         // pixels per frame row

	// ---- the tree (pre-order: frame, depth, then period, samples per profile)
	const T = D.tree, N = T.length / STRIDE;
	const fOf = new Int32Array(N), dep = new Int32Array(N), par = new Int32Array(N), end = new Int32Array(N);
	const val = [], cnt = [];
	for (let p = 0; p < P; p++) { val.push(new Float64Array(N)); cnt.push(new Float64Array(N)); }
	{
		const st = [];
		let maxd = 0;
		for (let i = 0; i < N; i++) {
			const o = i * STRIDE;
			fOf[i] = T[o]; dep[i] = T[o + 1];
			for (let p = 0; p < P; p++) { val[p][i] = T[o + 2 + 2 * p]; cnt[p][i] = T[o + 3 + 2 * p]; }
			while (st.length && dep[st[st.length - 1]] >= dep[i]) end[st.pop()] = i;
			par[i] = st.length ? st[st.length - 1] : -1;
			st.push(i);
			if (dep[i] > maxd) maxd = dep[i];
		}
		while (st.length) end[st.pop()] = N;
	}
	const nameOf = n => n === 0 ? "all" : FR[fOf[n]][0];

	// ---- per-function sums and call pairs
	const funcs = [];                        // per profile: Map gid -> {self, selfc, total, totalc}
	for (let p = 0; p < P; p++) {
		const a = D.profiles[p].funcs, m = new Map();
		for (let i = 0; i < a.length; i += 5)
			m.set(a[i], { self: a[i + 1], selfc: a[i + 2], total: a[i + 3], totalc: a[i + 4] });
		funcs.push(m);
	}
	const callersOf = new Map(), calleesOf = new Map();
	{
		const E = D.edges, S = 2 + P;
		for (let i = 0; i < E.length; i += S) {
			const e = { caller: E[i], callee: E[i + 1], v: E.slice(i + 2, i + 2 + P) };
			if (!calleesOf.has(e.caller)) calleesOf.set(e.caller, []);
			calleesOf.get(e.caller).push(e);
			if (!callersOf.has(e.callee)) callersOf.set(e.callee, []);
			callersOf.get(e.callee).push(e);
		}
	}

	// ---- state
	const S = {
		prof: D.diff ? P - 1 : 0,            // the profile drawn (diff: NEW)
		zoom: 0, icicle: false, search: "", sel: -1,
		// report's --no-children: Self first; --sort dso,sym: the order of
		// equal rows; --percent-limit: rows under it left out (html.h)
		sortCol: D.children === false ? "self" : "total", sortDesc: true, filter: "",
	};
	const other = () => D.diff ? (S.prof === 0 ? 1 : 0) : -1;

	// ---- helpers
	function el(tag, attrs, text) {
		const e = document.createElement(tag);
		if (attrs) for (const k in attrs) e.setAttribute(k, attrs[k]);
		if (text !== undefined) e.textContent = text;
		return e;
	}
	const pct = (v, t) => t ? (100 * v / t).toFixed(2) + "%" : "0.00%";
	const signed = (d) => (d > 0 ? "+" : d < 0 ? "\u2212" : "\u00b1") + Math.abs(d).toFixed(2) + "pp";
	const total = p => D.profiles[p].total;
	function fmtInt(n) { return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
	function hash(s) {
		let h = 2166136261;
		for (let i = 0; i < s.length && i < 64; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
		return (h >>> 0) / 4294967296;
	}
	function hotColor(n) {
		const nm = nameOf(n), h1 = hash(nm), h2 = hash(nm + "#");
		const dso = n ? FR[fOf[n]][1] : "";
		if (dso === "[kernel.kallsyms]")
			return "rgb(" + (200 + (h1 * 55 | 0)) + "," + (120 + (h2 * 60 | 0)) + ",40)";
		return "rgb(" + (205 + (h1 * 50 | 0)) + "," + (h2 * 230 | 0) + "," + (h1 * 55 | 0) + ")";
	}

	// ---- skeleton
	const body = document.body;
	const head = el("header", { id: "pk-head" });
	head.append(el("h1", { id: "pk-title" }, D.title));
	const info = el("div", { id: "pk-info" });
	head.append(info);
	body.append(head);

	const bar = el("div", { id: "pk-bar" });
	let profSel = null, beforeBtn = null, afterBtn = null;
	if (D.diff) {
		beforeBtn = el("button", { id: "pk-before", type: "button", title: "draw OLD: " + D.profiles[0].input }, "Before");
		afterBtn = el("button", { id: "pk-after", type: "button", title: "draw NEW: " + D.profiles[1].input }, "After");
		bar.append(beforeBtn, afterBtn);
		beforeBtn.addEventListener("click", () => setProfile(0));
		afterBtn.addEventListener("click", () => setProfile(1));
	} else if (P > 1) {
		profSel = el("select", { id: "pk-profile" });
		D.profiles.forEach((p, i) => profSel.append(el("option", { value: String(i) }, p.event)));
		profSel.addEventListener("change", () => setProfile(Number(profSel.value)));
		bar.append(profSel);
	}
	const flameBtn = el("button", { id: "pk-view-flame", type: "button" }, "Flame graph");
	const icicleBtn = el("button", { id: "pk-view-icicle", type: "button" }, "Icicle");
	flameBtn.addEventListener("click", () => { S.icicle = false; drawGraph(); });
	icicleBtn.addEventListener("click", () => { S.icicle = true; drawGraph(); });
	const search = el("input", { id: "pk-search", type: "search", placeholder: "Search (RegExp), / to focus", size: "28" });
	search.addEventListener("input", () => { S.search = search.value; drawGraph(); });
	const reset = el("button", { id: "pk-reset", type: "button" }, "Reset zoom");
	reset.addEventListener("click", () => { S.zoom = 0; drawGraph(); });
	const matched = el("span", { id: "pk-matched" });
	bar.append(flameBtn, icicleBtn, search, reset, matched);
	body.append(bar);

	// the graph scrolls in its box: a few deep stacks do not push the bulk
	// of a flame graph (drawn from the bottom) out of the first view
	const gwrap = el("div", { id: "pk-graph-box" });
	const graph = el("div", { id: "pk-graph" });
	gwrap.append(graph);
	body.append(gwrap);
	const tip = el("div", { id: "pk-tip" });
	body.append(tip);
	const note = el("div", { id: "pk-note" });
	body.append(note);

	const main = el("div", { id: "pk-main" });
	const tsec = el("section", { id: "pk-table-sec" });
	tsec.append(el("h2", null, "Functions"));
	const filter = el("input", { id: "pk-filter", type: "search", placeholder: "Filter by name or DSO", size: "28" });
	filter.addEventListener("input", () => { S.filter = filter.value; drawTable(); });
	const tinfo = el("span", { id: "pk-table-info" });
	tsec.append(filter, tinfo);
	const table = el("table", { id: "pk-table" });
	tsec.append(table);
	const detail = el("section", { id: "pk-detail" });
	main.append(tsec, detail);
	body.append(main);
	let changes = null;
	if (D.diff) {
		changes = el("section", { id: "pk-changes" });
		body.insertBefore(changes, main);
	}

	// ---- flame graph / icicle
	let xs = null, xsProf = -1;
	function layout() {               // x of every node in S.prof's units
		if (xsProf === S.prof) return;
		const v = val[S.prof], cur = new Float64Array(N);
		xs = new Float64Array(N);
		for (let i = 1; i < N; i++) {
			const p = par[i];
			xs[i] = xs[p] + cur[p];
			cur[p] += v[i];
		}
		xsProf = S.prof;
	}
	function searchRe() {
		if (!S.search) return null;
		try { return new RegExp(S.search); } catch (e) {
			const q = S.search.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
			return new RegExp(q);
		}
	}
	function diffColor(n) {
		const o = other(), a = val[o][n] / (total(o) || 1), b = val[S.prof][n] / (total(S.prof) || 1);
		// red: more in NEW than in OLD; blue: less (whichever is drawn)
		const d = S.prof === 1 ? b - a : a - b;
		const k = Math.min(1, Math.abs(d) / (diffMax || 1));
		const c = 255 - Math.round(k * 200);
		return d > 0 ? "rgb(255," + c + "," + c + ")" : d < 0 ? "rgb(" + c + "," + c + ",255)" : "rgb(250,250,250)";
	}
	let diffMax = 0;
	if (D.diff) for (let i = 1; i < N; i++) {
		const d = Math.abs(val[1][i] / (total(1) || 1) - val[0][i] / (total(0) || 1));
		if (d > diffMax) diffMax = d;
	}
	function tipText(n) {
		const p = S.prof, t = total(p);
		let s = nameOf(n) + " (" + fmtInt(cnt[p][n]) + " samples, " + pct(val[p][n], t) + ")";
		if (D.diff) {
			const d = 100 * (val[1][n] / (total(1) || 1) - val[0][n] / (total(0) || 1));
			s += "; before " + pct(val[0][n], total(0)) + ", after " + pct(val[1][n], total(1)) + ", " + signed(d);
		}
		return s;
	}
	function drawGraph() {
		layout();
		const p = S.prof, v = val[p], W = graph.clientWidth || 1200;
		let z = S.zoom;
		if (z && !v[z]) z = S.zoom = 0;      // not in this profile
		const scale = W / (v[z] || 1), x0 = xs[z], zd = dep[z];
		const re = searchRe();
		const items = [];
		let maxd = zd;
		// ancestors of the zoomed frame: full width, dimmed
		for (let a = z; a >= 0; a = par[a]) if (a !== z) items.push([a, 0, W, true]);
		for (let i = z; i < end[z];) {
			const w = v[i] * scale;
			if (w < 0.5 || !v[i]) { i = end[i]; continue; }
			items.push([i, (xs[i] - x0) * scale, w, false]);
			if (dep[i] > maxd) maxd = dep[i];
			i++;
		}
		const rows = maxd + 1;
		graph.style.height = (rows * ROW + 2) + "px";
		const frag = document.createDocumentFragment();
		let mv = 0;
		for (const [n, x, w, dim] of items) {
			const d = dep[n];
			const y = S.icicle ? d * ROW : (maxd - d) * ROW;
			const div = document.createElement("div");
			div.className = "pk-fr" + (dim ? " pk-dim" : "") + (w < 20 ? " pk-narrow" : "");
			div.style.left = x.toFixed(1) + "px";
			div.style.width = Math.max(w - 0.5, 0.5).toFixed(1) + "px";
			div.style.top = y + "px";
			div.dataset.node = n;
			const nm = nameOf(n);
			if (re && n && re.test(nm)) {
				div.classList.add("pk-match");
			} else {
				div.style.background = D.diff ? diffColor(n) : hotColor(n);
			}
			div.textContent = nm;      // CSS cuts it to the frame
			frag.append(div);
		}
		graph.replaceChildren(frag);
		gwrap.scrollTop = S.icicle ? 0 : gwrap.scrollHeight;
		// matched share: frames matching, not counting those under a match
		if (re) {
			const t = total(p);
			for (let i = 1; i < N;) {
				if (v[i] && re.test(nameOf(i))) { mv += v[i]; i = end[i]; } else i++;
			}
			matched.textContent = "Matched: " + pct(mv, t);
		} else {
			matched.textContent = "";
		}
		icicleBtn.classList.toggle("pk-on", S.icicle);
		flameBtn.classList.toggle("pk-on", !S.icicle);
		if (beforeBtn) { beforeBtn.classList.toggle("pk-on", p === 0); afterBtn.classList.toggle("pk-on", p === 1); }
		graph.dataset.zoom = z;
		graph.dataset.view = S.icicle ? "icicle" : "flame";
		graph.dataset.profile = p;
	}
	graph.addEventListener("click", ev => {
		const t = ev.target.closest(".pk-fr");
		if (!t) return;
		const n = Number(t.dataset.node);
		S.zoom = n;
		drawGraph();
		if (n) select(fOf[n]);
	});
	graph.addEventListener("mousemove", ev => {
		const t = ev.target.closest(".pk-fr");
		if (!t) { tip.style.display = "none"; return; }
		tip.textContent = tipText(Number(t.dataset.node));
		tip.style.display = "block";
		tip.style.left = Math.min(ev.pageX + 12, document.documentElement.clientWidth - 420) + "px";
		tip.style.top = (ev.pageY + 14) + "px";
	});
	graph.addEventListener("mouseleave", () => { tip.style.display = "none"; });

	// ---- the functions' table
	function cols() {
		const c = [
			{ key: "total", label: "Children", num: true },
			{ key: "self", label: "Self", num: true },
			{ key: "selfc", label: "Samples", num: true, int: true },
		];
		if (D.diff) c.push({ key: "dself", label: "\u0394 Self", num: true, delta: true });
		c.push({ key: "name", label: "Symbol" }, { key: "dso", label: "Shared Object" });
		return c;
	}
	const rowsCache = [];
	function rowsOf(p) {
		if (rowsCache[p]) return rowsCache[p].slice();
		const m = funcs[p], o = other(), r = [];
		for (const [g, f] of m) {
			const row = { g, name: FR[g][0], dso: FR[g][1], total: f.total, self: f.self, selfc: f.selfc };
			if (D.diff) {
				const fo = funcs[o].get(g);
				const a = 100 * f.self / (total(p) || 1), b = 100 * (fo ? fo.self : 0) / (total(o) || 1);
				row.dself = p === 1 ? a - b : b - a;
			}
			r.push(row);
		}
		rowsCache[p] = r;
		return r.slice();
	}
	// by the column (|value| for a change), then Children and Self
	// (largest first), then name, whichever way the column goes
	function sortRows(r, key, desc) {
		r.sort((a, b) => {
			let c;
			if (key === "name" || key === "dso") c = a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0;
			else if (key === "dself") c = Math.abs(a[key]) - Math.abs(b[key]);
			else c = a[key] - b[key];
			if (desc) c = -c;
			if (!c) c = D.children === false ? b.self - a.self : (b.total - a.total) || (b.self - a.self);
			for (const k of D.sort || []) if (!c) c = a[k] < b[k] ? -1 : a[k] > b[k] ? 1 : 0;
			if (!c) c = a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
			return c;
		});
	}
	let LIMIT = 250;                           // rows drawn; "Show more" adds
	const more = el("button", { id: "pk-more", type: "button" }, "Show more");
	more.addEventListener("click", () => { LIMIT += 1000; drawTable(); });
	function drawTable() {
		const p = S.prof, t = total(p), cs = cols();
		let r = rowsOf(p);
		const q = S.filter.toLowerCase();
		let under = 0;
		if (D.limit > 0) {                   // report's --percent-limit
			const n = r.length;
			r = r.filter(x => 100 * (D.children === false ? x.self : x.total) / (t || 1) >= D.limit);
			under = n - r.length;
		}
		const all = r.length;
		if (q) r = r.filter(x => x.name.toLowerCase().includes(q) || x.dso.toLowerCase().includes(q));
		sortRows(r, S.sortCol, S.sortDesc);
		const thead = el("thead"), tr = el("tr");
		for (const c of cs) {
			const th = el("th", { "data-col": c.key, class: c.num ? "pk-num" : "" }, c.label);
			if (S.sortCol === c.key) th.classList.add(S.sortDesc ? "pk-desc" : "pk-asc");
			th.addEventListener("click", () => {
				if (S.sortCol === c.key) S.sortDesc = !S.sortDesc;
				else { S.sortCol = c.key; S.sortDesc = !!c.num; }
				drawTable();
			});
			tr.append(th);
		}
		thead.append(tr);
		const tb = el("tbody");
		for (const x of r.slice(0, LIMIT)) {
			const row = el("tr", { "data-g": String(x.g) });
			if (x.g === S.sel) row.classList.add("pk-sel");
			for (const c of cs) {
				let text;
				if (c.delta) text = signed(x[c.key]);
				else if (c.int) text = fmtInt(x[c.key]);
				else if (c.num) text = pct(x[c.key], t);
				else text = x[c.key];
				if (c.key === "dso") text = text.replace(/^.*\/(?=.)/, "");   // report's short name
				const td = el("td", { class: c.num ? "pk-num" : "" }, text);
				if (!c.num) td.title = x[c.key];
				if (c.delta) td.classList.add(x[c.key] > 0 ? "pk-up" : x[c.key] < 0 ? "pk-down" : "pk-same");
				row.append(td);
			}
			tb.append(row);
		}
		table.replaceChildren(thead, tb);
		tinfo.textContent = (q ? r.length + " matching of " + all + " functions" : all + " functions") +
			(r.length > LIMIT ? ", the first " + LIMIT + " shown" : "") +
			(under ? ", " + under + " under " + D.limit + " % left out (--percent-limit)" : "");
		more.style.display = r.length > LIMIT ? "" : "none";
	}

	tsec.append(more);
	table.addEventListener("click", ev => {      // one listener for every row
		const r = ev.target.closest("tbody tr");
		if (r && r.dataset.g !== undefined) select(Number(r.dataset.g));
	});

	// ---- the selected function
	function relTable(id, list, key, base, p) {
		const t = el("table", { id, class: "pk-rel" });
		const h = el("tr");
		h.append(el("th", { class: "pk-num" }, "Share"), el("th", { class: "pk-num" }, "of all"),
			el("th", null, "Function"), el("th", null, "Shared Object"));
		t.append(el("thead")); t.firstChild.append(h);
		const tb = el("tbody");
		const l = list.filter(e => e.v[p] > 0).sort((a, b) => b.v[p] - a.v[p] || (FR[a[key]][0] < FR[b[key]][0] ? -1 : 1));
		for (const e of l) {
			const g = e[key], r = el("tr", { "data-g": String(g) });
			r.append(el("td", { class: "pk-num" }, pct(e.v[p], base)), el("td", { class: "pk-num" }, pct(e.v[p], total(p))),
				el("td", { class: "pk-link", title: FR[g][0] }, FR[g][0]),
				el("td", { title: FR[g][1] }, FR[g][1].replace(/^.*\/(?=.)/, "")));
			r.addEventListener("click", () => select(g));
			tb.append(r);
		}
		if (!l.length) {
			const r = el("tr");
			r.append(el("td", { colspan: "4", class: "pk-none" }, "none"));
			tb.append(r);
		}
		t.append(tb);
		return t;
	}
	function annotation(g, all) {
		const a = D.annot[String(g)], box = el("div", { id: "pk-annot" });
		if (!a) {
			box.append(el("p", { class: "pk-none" }, "No annotation: only the hottest functions (Self at least 0.5 %) of a perf.data " +
				"input whose binary was at hand are annotated."));
			return box;
		}
		box.append(el("h3", null, "Source lines"));
		const st = el("table", { id: "pk-src", class: "pk-code" }), sb = el("tbody");
		st.append(sb);
		for (const [file, line, v, text] of a.lines) {
			const r = el("tr", { class: v ? "pk-hot" : "" });
			r.append(el("td", { class: "pk-num" }, v ? pct(v, a.self) : ""),
				el("td", { class: "pk-num pk-ln", title: file }, String(line)),
				el("td", { class: "pk-txt" }, text === null ? file + ":" + line : text));
			sb.append(r);
		}
		box.append(st);
		box.append(el("h3", null, "Instructions (" + a.file + ")"));
		const it = el("table", { id: "pk-asm", class: "pk-code" }), ib = el("tbody");
		it.append(ib);
		// a long function: the first 500 instructions, a button for the rest
		const ASM_MAX = 500;
		const rest = a.insns.length > ASM_MAX ? el("button", { id: "pk-asm-all", type: "button" },
			"Show all " + a.insns.length + " instructions") : null;
		if (rest) rest.addEventListener("click", () => { box.replaceWith(annotation(g, true)); });
		for (const ins of all ? a.insns : a.insns.slice(0, ASM_MAX)) {
			const [addr, v, text, file, line] = ins;
			const r = el("tr", { class: v ? "pk-hot" : "" });
			r.append(el("td", { class: "pk-num" }, v ? pct(v, a.self) : ""),
				el("td", { class: "pk-addr" }, addr),
				el("td", { class: "pk-txt" }, text),
				el("td", { class: "pk-ln" }, file ? file.replace(/^.*\//, "") + ":" + line : ""));
			ib.append(r);
		}
		box.append(it);
		if (rest && !all) box.append(rest);
		return box;
	}
	function select(g) {
		S.sel = g;
		const p = S.prof, f = funcs[p].get(g);
		const kids = [el("h2", { id: "pk-fn-name" }, FR[g][0])];
		const dl = el("div", { id: "pk-fn-info" });
		dl.append(el("span", { class: "pk-dso" }, FR[g][1] || "(no DSO)"), document.createTextNode(" \u2014 "),
			el("span", { id: "pk-fn-children" }, "Children " + pct(f ? f.total : 0, total(p))), document.createTextNode(", "),
			el("span", { id: "pk-fn-self" }, "Self " + pct(f ? f.self : 0, total(p))),
			document.createTextNode(", " + fmtInt(f ? f.totalc : 0) + " samples"));
		kids.push(dl);
		const base = f ? f.total : 0;
		kids.push(el("h3", null, "Callers (share of its Children)"), relTable("pk-callers", callersOf.get(g) || [], "caller", base, p));
		kids.push(el("h3", null, "Callees (share of its Children)"), relTable("pk-callees", calleesOf.get(g) || [], "callee", base, p));
		kids.push(annotation(g));
		detail.replaceChildren(...kids);
		for (const r of table.querySelectorAll("tr.pk-sel")) r.classList.remove("pk-sel");
		const r = table.querySelector('tr[data-g="' + g + '"]');
		if (r) r.classList.add("pk-sel");
		detail.dataset.g = g;
	}

	// ---- --diff: the largest changes
	function drawChanges() {
		if (!changes) return;
		const r = [];
		const gs = new Set([...funcs[0].keys(), ...funcs[1].keys()]);
		for (const g of gs) {
			const a = funcs[0].get(g), b = funcs[1].get(g);
			const sa = 100 * (a ? a.self : 0) / (total(0) || 1), sb = 100 * (b ? b.self : 0) / (total(1) || 1);
			const ca = 100 * (a ? a.total : 0) / (total(0) || 1), cb = 100 * (b ? b.total : 0) / (total(1) || 1);
			r.push({ g, sa, sb, ds: sb - sa, ca, cb, dc: cb - ca });
		}
		r.sort((x, y) => Math.abs(y.ds) - Math.abs(x.ds) || Math.abs(y.dc) - Math.abs(x.dc) || x.g - y.g);
		const t = el("table", { id: "pk-changes-table" });
		const h = el("tr");
		for (const s of ["Self before", "Self after", "\u0394 Self", "Children before", "Children after", "\u0394 Children", "Symbol", "Shared Object"])
			h.append(el("th", { class: s.includes("Sym") || s.includes("Shared") ? "" : "pk-num" }, s));
		t.append(el("thead")); t.firstChild.append(h);
		const tb = el("tbody");
		for (const x of r.slice(0, 50)) {
			const row = el("tr", { "data-g": String(x.g) });
			const dcell = d => { const c = el("td", { class: "pk-num " + (d > 0 ? "pk-up" : d < 0 ? "pk-down" : "pk-same") }, signed(d)); return c; };
			row.append(el("td", { class: "pk-num" }, x.sa.toFixed(2) + "%"), el("td", { class: "pk-num" }, x.sb.toFixed(2) + "%"), dcell(x.ds),
				el("td", { class: "pk-num" }, x.ca.toFixed(2) + "%"), el("td", { class: "pk-num" }, x.cb.toFixed(2) + "%"), dcell(x.dc),
				el("td", { class: "pk-link", title: FR[x.g][0] }, FR[x.g][0]),
				el("td", { title: FR[x.g][1] }, FR[x.g][1].replace(/^.*\/(?=.)/, "")));
			row.addEventListener("click", () => select(x.g));
			tb.append(row);
		}
		t.append(tb);
		changes.replaceChildren(el("h2", null, "Largest changes (share of each profile's total, NEW \u2212 OLD; red: grew, blue: shrank)"), t);
	}

	function drawInfo() {
		const p = D.profiles[S.prof];
		const parts = [];
		if (D.diff) parts.push((S.prof === 0 ? "Before (OLD): " : "After (NEW): ") + p.input);
		else parts.push(p.input);
		parts.push(fmtInt(p.samples) + " samples of " + p.event + ", total " + fmtInt(p.total) + " " + p.unit);
		info.textContent = parts.join(" \u2014 ");
		note.textContent = D.pruned ? "Frames narrower than " + D.minwidth + " % of the total (" + fmtInt(D.pruned) +
			" of " + fmtInt(D.nodes) + " call-tree nodes) are not in this page, as flamegraph.pl's --minwidth " +
			"leaves them out; the table, callers and callees count every sample." :
			"Every frame of the profile is in this page.";
	}
	function setProfile(p) {
		S.prof = p;
		drawInfo();
		drawGraph();
		drawTable();
		if (S.sel >= 0) select(S.sel);
	}

	document.addEventListener("keydown", ev => {
		const inField = ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement;
		if (ev.key === "Escape") {
			if (inField && ev.target.value) return;    // the field clears itself
			S.zoom = 0;
			drawGraph();
		} else if (ev.key === "/" && !inField) {
			ev.preventDefault();
			search.focus();
		} else if ((ev.key === "f" || ev.key === "F") && (ev.ctrlKey || ev.metaKey)) {
			ev.preventDefault();
			search.focus();
			search.select();
		}
	});
	let lastW = 0;
	window.addEventListener("resize", () => { if (graph.clientWidth !== lastW) { lastW = graph.clientWidth; drawGraph(); } });

	drawInfo();
	drawGraph();
	lastW = graph.clientWidth;
	drawTable();
	drawChanges();
	let first = -1, best = -1;
	for (const [g, f] of funcs[S.prof]) if (f.self > best) { best = f.self; first = g; }
	if (first >= 0) select(first);
	// the first view is drawn: ms since navigation started (bench/html.sh)
	window.pkFirstViewMs = performance.now();
	document.body.dataset.ready = "1";
})();
