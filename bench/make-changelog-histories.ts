/**
 * Builds bench/data/changelog-histories.jsonl.gz: real change histories from the upstream GNU-style
 * ChangeLogs that Debian packages install on this machine (/usr/share/doc/PACKAGE/changelog.gz,
 * ChangeLog, ChangeLog.gz; not changelog.Debian.gz, whose entries name no files). Every file an entry
 * names, every folder above it and each ChangeLog itself is a document (src/lab/recrawl/changelog.ts);
 * documents observed for at least 3 years; up to 300 per change-rate band of seed 000's Table 2
 * (src/lab/recrawl/metrics.ts GROUPS), picked by a hash of the id so the choice is reproducible.
 * Identical ChangeLogs shipped by several packages (gcc's runtime libraries) are read once.
 * No network, no package registry: only files already on the machine.
 * Run: node bin/run-ts.mjs bench/make-changelog-histories.ts [DOC_ROOT]
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import { historyRecords, parseChangeLog } from '../src/lab/recrawl/changelog.ts';
import { GROUPS, groupOf } from '../src/lab/recrawl/metrics.ts';

const root = process.argv[2] ?? '/usr/share/doc';
const PER_BAND = 300;
const outDir = path.resolve(import.meta.dirname, 'data');
const bands: Array<Array<ReturnType<typeof historyRecords>[number]>> = GROUPS.map(() => []);
const seen = new Set<string>();
const used: string[] = [];
for (const pkg of fs.readdirSync(root).sort()) {
  for (const name of ['changelog.gz', 'ChangeLog.gz', 'ChangeLog']) {
    const file = path.join(root, pkg, name);
    if (!fs.existsSync(file)) continue;
    const raw = fs.readFileSync(file);
    const text = (name.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8');
    const digest = crypto.createHash('sha256').update(text).digest('hex');
    if (seen.has(digest)) continue;
    seen.add(digest);
    const parsed = parseChangeLog(text, pkg);
    const recs = historyRecords(parsed, pkg);
    if (!recs.length) continue;
    used.push(`${pkg}/${name} (${new Date(parsed.first).toISOString().slice(0, 10)} to ${new Date(parsed.last).toISOString().slice(0, 10)}, sha256 ${digest.slice(0, 12)})`);
    for (const r of recs) {
      const span = Date.parse(r.end) - Date.parse(r.created);
      bands[groupOf(r.changes.length ? span / r.changes.length : Infinity)]!.push(r);
    }
  }
}
const key = (id: string) => crypto.createHash('sha256').update(id).digest('hex');
const chosen = bands.map((b) => b.sort((x, y) => (key(x.id) < key(y.id) ? -1 : 1)).slice(0, PER_BAND));
const lines = chosen.flat().map((r) => JSON.stringify(r));
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, 'changelog-histories.jsonl.gz'), zlib.gzipSync(lines.join('\n') + '\n', { level: 9 }));
const table = GROUPS.map((g, i) => `| ${g.label} | ${bands[i]!.length} | ${chosen[i]!.length} | ${chosen[i]!.reduce((a, r) => a + r.changes.length, 0)} |`);
const md = [
  '# changelog-histories.jsonl.gz: change histories from upstream ChangeLogs',
  '',
  `Made by \`node bin/run-ts.mjs bench/make-changelog-histories.ts\` from the ${used.length} distinct GNU-style ChangeLogs under ${root} on the build machine (Debian 12 packages installed there; no network, no registry). Format: shared/data/README.md's histories (one document a line: id, source, created, end, changes).`,
  '',
  'A document is a file named by a dated entry ("* src/copy.c (copy_reg): …"), a folder above such a file (it changes when one of its files does), or a ChangeLog itself (every entry changes it). created = the first day an entry names it; changes = every later day an entry names it, at noon UTC (entries carry dates, not times: at most one change per document and day); end = the day after the ChangeLog\'s last entry. Only documents observed for at least 3 years; up to 300 per band, chosen by the sha256 of their id.',
  '',
  '| mean change interval | documents available | kept | changes kept |',
  '| --- | ---: | ---: | ---: |',
  ...table,
  '',
  "Bands under 2 days are empty and cannot be filled from such data: a document needs more than one change every other day for 3 years, and a dated entry gives at most one a day. 2 days–1 week has only the documents listed.",
  '',
  'ChangeLogs read:',
  '',
  ...used.map((u) => `- ${u}`),
  '',
].join('\n');
fs.writeFileSync(path.join(outDir, 'CHANGELOG-HISTORIES.md'), md);
console.log(table.join('\n'));
