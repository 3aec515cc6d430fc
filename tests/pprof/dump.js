// SPDX-License-Identifier: GPL-2.0-or-later
// dump.js FILE.pb.gz — decode a gzip-compressed pprof profile with the
// pprof-format package and print its symbolic content, tab-separated:
//   mapping <file> <has_functions> <has_filenames> <has_line_numbers> <has_inline_frames>
//   function <id> <name> <system_name> <filename>
//   loc <id> <0xaddress> <mapping file> <self> <lines>
// one loc line per location, by self value (last sample type, as leaf)
// descending then id; <lines> is the inline chain innermost first,
// "name@file:line" joined by "|".  Also checks what readers rely on:
// every id referred to exists, ids are unique and non-zero.  Exit 1 with
// a message when the file does not decode or does not check.
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require('pprof-format');

const fail = (m) => { console.error(`dump.js: ${process.argv[2]}: ${m}`); process.exit(1); };
let prof;
try {
	prof = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[2])));
} catch (e) {
	fail(e.message);
}
const str = (i) => {
	const s = prof.stringTable.strings[Number(i)];
	if (s === undefined) fail(`string index ${i} out of range`);
	return s;
};
const byId = (list, what) => {
	const m = new Map();
	for (const o of list) {
		const id = BigInt(o.id);
		if (id === 0n || m.has(id)) fail(`${what} id ${id} zero or repeated`);
		m.set(id, o);
	}
	return m;
};
const maps = byId(prof.mapping, 'mapping');
const fns = byId(prof.function, 'function');
const locs = byId(prof.location, 'location');
const last = prof.sampleType.length - 1;
const self = new Map();
for (const s of prof.sample) {
	for (const id of s.locationId)
		if (!locs.has(BigInt(id))) fail(`sample refers to missing location ${id}`);
	if (s.locationId.length) {
		const id = BigInt(s.locationId[0]);
		self.set(id, (self.get(id) || 0n) + BigInt(s.value[last]));
	}
}
const flag = (b) => (b ? 1 : 0);
for (const m of prof.mapping)
	console.log(['mapping', str(m.filename), flag(m.hasFunctions), flag(m.hasFilenames),
		flag(m.hasLineNumbers), flag(m.hasInlineFrames)].join('\t'));
for (const f of prof.function)
	console.log(['function', f.id, str(f.name), str(f.systemName), str(f.filename)].join('\t'));
const rows = prof.location.map((l) => {
	const m = maps.get(BigInt(l.mappingId));
	if (!m) fail(`location ${l.id} refers to missing mapping ${l.mappingId}`);
	if (!l.line.length) fail(`location ${l.id} has no line`);
	const lines = l.line.map((ln) => {
		const f = fns.get(BigInt(ln.functionId));
		if (!f) fail(`location ${l.id} refers to missing function ${ln.functionId}`);
		return `${str(f.name)}@${str(f.filename)}:${ln.line}`;
	});
	return { id: BigInt(l.id), self: self.get(BigInt(l.id)) || 0n,
		text: ['loc', l.id, '0x' + BigInt(l.address).toString(16), str(m.filename),
			self.get(BigInt(l.id)) || 0n, lines.join('|')].join('\t') };
});
rows.sort((a, b) => (b.self > a.self ? 1 : b.self < a.self ? -1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
for (const r of rows) console.log(r.text);
