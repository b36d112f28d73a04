/** `datamonitor import`: WARC files made elsewhere into an archive (src/crawler/import-warc.ts). */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { importWarcs } from '../../crawler/import-warc.ts';
import { openStore } from '../../store/index.ts';
import { UserError } from '../../util/errors.ts';
import { ProgressLine } from '../progress.ts';
import { compactMetadata } from '../compact.ts';
import { plural } from '../../util/units.ts';
import { EXIT } from '../../util/exit-codes.ts';
import { summaryOf } from './index.ts';

export function register(program: Command): void {
  program
    .command('import')
    .description(summaryOf('import'))
    .argument('<warc...>', 'WARC files, gzipped or not')
    .option('--data <dir>', 'data directory', 'data')
    .option('--db <url>', 'metadata store: postgres://…')
    .option('--json', 'print the summary as JSON')
    .action(async (files: string[], flags: { data: string; db?: string; json?: boolean }) => {
      for (const f of files) if (!fs.existsSync(f) || !fs.statSync(f).isFile()) throw new UserError(`'${f}' is not a file: give WARC files (.warc or .warc.gz)`, EXIT.noInput);
      const dataDir = path.resolve(flags.data);
      fs.mkdirSync(dataDir, { recursive: true });
      const store = await openStore(dataDir, flags.db);
      const progress = new ProgressLine();
      let s;
      try {
        s = await importWarcs(files, { dataDir, store, onProgress: (p) => progress.update(`importing: file ${p.files}/${files.length}, ${p.copied} records kept, ${p.imported} versions`) });
      } finally {
        progress.done();
        await store.close();
      }
      if (!flags.db) await compactMetadata(dataDir);
      if (s.unreadable.length) process.exitCode = EXIT.problems;
      if (flags.json) return void process.stdout.write(JSON.stringify(s, null, 2) + '\n');
      const lines = [
        `${s.copied} of ${plural(s.records, 'record')} in ${plural(s.files, 'file')} kept byte for byte in ${s.seconds.toFixed(1)} s; ` +
          `${s.imported} of ${s.responses + s.revisits} responses and revisits (${plural(s.responses, 'response')}, ${plural(s.revisits, 'revisit')}) archived: ` +
          `${s.new} new, ${s.changed} changed, ${s.unchanged} unchanged, ${plural(s.redirects, 'redirect')}, ${plural(s.errors, 'error')}` +
          (s.fetchedFor ? `, ${s.fetchedFor} fetched for a document (contexts, proofs, representations)` : ''),
      ];
      if (s.skipped.alreadyImported) lines.push(`${s.skipped.alreadyImported} records not copied: the archive already holds them (same WARC-Record-ID and bytes)`);
      if (s.skipped.revisitWithoutPayload) lines.push(`${s.skipped.revisitWithoutPayload} revisits kept as records, not versions: the response they refer to is not in the archive (import the crawl's earlier files first, or with them)`);
      if (s.skipped.notNewer) lines.push(`${s.skipped.notNewer} kept as records, not versions: not newer than the archive's last capture of their URL (give the files oldest first)`);
      if (s.skipped.notHttp) lines.push(`${s.skipped.notHttp} kept as records, not versions: no http(s) URL or HTTP response in the record`);
      for (const u of s.unreadable) lines.push(`unreadable: ${u} (every other record is archived)`);
      lines.push(`Next: datamonitor query --data ${flags.data} 'SELECT …'   or   datamonitor verify --data ${flags.data}`);
      process.stdout.write(lines.join('\n') + '\n');
    });
}
