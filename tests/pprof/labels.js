// SPDX-License-Identifier: GPL-2.0-or-later
// labels.js FILE.pb.gz — decode a gzip-compressed pprof profile with the
// pprof-format package and print what profile --continuous promises:
//   type <name> <unit> <total>          one line per sample type, summed
//   duration <ns>                       duration_nanos
//   mapping <file> <build_id or ->      one line per mapping
//   sample <host> <pid> <comm> <value> <leaf..root function names joined by ;>
//                                       one line per sample (its labels; last value)
// and checks that every id referred to exists.  Exit 1 with a message when
// the file does not decode or does not check.
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require('pprof-format');

const fail = (m) => { console.error(`labels.js: ${process.argv[2]}: ${m}`); process.exit(1); };
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
const byId = (list, what) => new Map(list.map((o) => {
	if (BigInt(o.id) === 0n) fail(`${what} id 0`);
	return [BigInt(o.id), o];
}));
const maps = byId(prof.mapping, 'mapping');
const fns = byId(prof.function, 'function');
const locs = byId(prof.location, 'location');
const totals = prof.sampleType.map(() => 0n);
const last = prof.sampleType.length - 1;
for (const s of prof.sample)
	s.value.forEach((v, i) => { totals[i] += BigInt(v); });
prof.sampleType.forEach((t, i) => console.log(['type', str(t.type), str(t.unit), totals[i]].join('\t')));
console.log(['duration', String(prof.durationNanos)].join('\t'));
for (const m of prof.mapping)
	console.log(['mapping', str(m.filename), str(m.buildId) || '-'].join('\t'));
for (const s of prof.sample) {
	const lab = {};
	for (const l of s.label)
		lab[str(l.key)] = Number(l.str) ? str(l.str) : String(l.num);
	const names = s.locationId.map((id) => {
		const l = locs.get(BigInt(id));
		if (!l) fail(`sample refers to missing location ${id}`);
		if (!maps.has(BigInt(l.mappingId))) fail(`location ${l.id} refers to missing mapping`);
		const ln = l.line[l.line.length - 1];
		const f = ln && fns.get(BigInt(ln.functionId));
		if (!f) fail(`location ${l.id} has no function`);
		return str(f.name);
	});
	console.log(['sample', lab.host, lab.pid, lab.comm, s.value[last], names.join(';')].join('\t'));
}
