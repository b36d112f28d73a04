/** `datamonitor rebuild`: a damaged or lost meta.sqlite or versions.sqlite made again from the WARC files (src/crawler/rebuild.ts). */
import path from 'node:path';
import type { Command } from 'commander';
import { NOT_REBUILT, rebuildArchive } from '../../crawler/rebuild.ts';
import { ProgressLine } from '../progress.ts';
import { plural } from '../../util/units.ts';
import { EXIT } from '../../util/exit-codes.ts';
import { META_FILE, VERSIONS_FILE } from '../../util/data-dir.ts';
import { summaryOf } from './index.ts';

export function register(program: Command): void {
  program
    .command('rebuild')
    .description(summaryOf('rebuild'))
    .option('--data <dir>', 'data directory', 'data')
    .option('--force', 'rebuild both files even when they are sound')
    .option('--json', 'print the result as JSON')
    .action(async (flags: { data: string; force?: boolean; json?: boolean }) => {
      const dataDir = path.resolve(flags.data);
      const progress = new ProgressLine();
      let r;
      try {
        r = await rebuildArchive(dataDir, {
          force: flags.force,
          onImport: (s) => progress.update(`reading WARC files: file ${s.files}, ${s.records} records, ${s.imported} captures`),
          onIndex: (p) => progress.update(`indexing versions ${ProgressLine.bar(p.done, p.total)}`),
        });
      } finally {
        progress.done();
      }
      const m = r.meta?.summary;
      if (m?.unreadable.length) process.exitCode = EXIT.problems;
      if (flags.json) return void process.stdout.write(JSON.stringify({ ...r, notRebuilt: r.meta ? NOT_REBUILT : [] }, null, 2) + '\n');
      if (r.nothingToDo) {
        process.stdout.write(`nothing to rebuild: ${path.join(dataDir, META_FILE)} and ${VERSIONS_FILE} are sound (PRAGMA quick_check); --force rebuilds them anyway\n`);
        return;
      }
      const lines: string[] = [];
      for (const moved of r.movedAside) lines.push(`moved aside: ${moved}`);
      if (m) {
        lines.push(`${META_FILE} (${r.meta!.why}) rebuilt from ${plural(m.files, 'WARC file')} (${m.records} records) in ${m.seconds.toFixed(1)} s: ${m.imported} of ${m.responses + m.revisits} responses and revisits are captures again: ${m.new} new, ${m.changed} changed, ${m.unchanged} unchanged, ${m.redirects} redirects, ${m.errors} errors`);
        if (m.rdfNotFound) lines.push(`${plural(m.rdfNotFound, 'version')} logged without RDF: no conversion record in its file holds the graph extracted now (the capture and its record are kept)`);
        if (m.skipped.revisitWithoutPayload) lines.push(`${m.skipped.revisitWithoutPayload} revisits kept as records, not captures: the response they refer to is not in the archive`);
        if (m.skipped.notNewer) lines.push(`${m.skipped.notNewer} responses kept as records, not captures: not newer than their URL's capture before them`);
        for (const u of m.unreadable) lines.push(`unreadable: ${u} (every other record was read)`);
        lines.push('not rebuilt (the WARC files do not hold it):', ...NOT_REBUILT.map((n) => `  - ${n}`));
      }
      if (r.versions) {
        const v = r.versions.result;
        lines.push(`${VERSIONS_FILE} (${r.versions.why}) rebuilt from ${plural(v.rows, 'crawl-log row')}: ${plural(v.versions, 'version')}, ${plural(v.deletions, 'deletion')}${v.failed ? `, ${v.failed} could not be read` : ''}`);
        for (const d of v.diagnostics.slice(0, 5)) lines.push(`  ${d}`);
      }
      lines.push(`Next: datamonitor verify --data ${flags.data}   (the files moved aside can go once you are satisfied)`);
      process.stdout.write(lines.join('\n') + '\n');
    });
}
