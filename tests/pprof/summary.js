// SPDX-License-Identifier: GPL-2.0-or-later
// summary.js FILE.pb.gz — decode a gzip-compressed pprof profile with the
// pprof-format package (a real reader, independent of perfkit) and print:
//   type <name> <unit> <total>     one line per sample type, summed over samples
//   self <function> <value>        self value (last sample type) of the top 3 leaf functions:
//                                  the leaf location's real function (its last,
//                                  outermost line: inlined functions come first),
//                                  as perfkit report names it
// Exit 1 with a message when the file does not decode.
'use strict';
const fs = require('fs');
const zlib = require('zlib');
const { Profile } = require('pprof-format');

const raw = fs.readFileSync(process.argv[2]);
let prof;
try {
	prof = Profile.decode(zlib.gunzipSync(raw));
} catch (e) {
	console.error(`summary.js: ${process.argv[2]}: ${e.message}`);
	process.exit(1);
}
const str = (i) => prof.stringTable.strings[Number(i)];
if (str(0) !== '') {
	console.error('summary.js: string_table[0] is not ""');
	process.exit(1);
}
const totals = prof.sampleType.map(() => 0n);
const fnById = new Map(prof.function.map((f) => [BigInt(f.id), str(f.name)]));
const locById = new Map(prof.location.map((l) => [BigInt(l.id), l]));
const self = new Map();
const last = prof.sampleType.length - 1;
for (const s of prof.sample) {
	s.value.forEach((v, i) => { totals[i] += BigInt(v); });
	if (!s.locationId.length) continue;
	const loc = locById.get(BigInt(s.locationId[0]));
	if (!loc) { console.error('summary.js: sample refers to a missing location'); process.exit(1); }
	const name = fnById.get(BigInt(loc.line[loc.line.length - 1].functionId));
	self.set(name, (self.get(name) || 0n) + BigInt(s.value[last]));
}
prof.sampleType.forEach((t, i) => console.log(`type ${str(t.type)} ${str(t.unit)} ${totals[i]}`));
[...self.entries()].sort((a, b) => (b[1] > a[1] ? 1 : b[1] < a[1] ? -1 : 0)).slice(0, 3)
	.forEach(([n, v]) => console.log(`self ${n} ${v}`));
