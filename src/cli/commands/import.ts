/** `datamonitor import`: WARC files made elsewhere into an archive (src/crawler/import-warc.ts). */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { importWarcs } from '../../crawler/import-warc.ts';
import { openStore } from '../../store/index.ts';
import { UserError } from '../../util/errors.ts';
import { ProgressLine } from '../progress.ts';
import { plural } from '../../util/units.ts';
import { EXIT } from '../../util/exit-codes.ts';

export function register(program: Command): void {
  program
    .command('import')
    .description('archive the HTTP responses of WARC files made elsewhere (Heritrix, wget, Browsertrix, another datamonitor): extracted, versioned and queryable like crawled ones; give the files oldest first')
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
        s = await importWarcs(files, { dataDir, store, onProgress: (p) => progress.update(`importing: file ${p.files}/${files.length}, ${p.imported} responses archived`) });
      } finally {
        progress.done();
        await store.close();
      }
      if (s.unreadable.length) process.exitCode = EXIT.problems;
      if (flags.json) return void process.stdout.write(JSON.stringify(s, null, 2) + '\n');
      const lines = [
        `${s.imported} of ${s.responses} responses and ${s.revisits} revisits in ${plural(s.files, 'file')} archived in ${s.seconds.toFixed(1)} s: ${s.new} new, ${s.changed} changed, ${s.unchanged} unchanged, ${s.errors} errors`,
      ];
      if (s.skipped.revisitWithoutPayload) lines.push(`${s.skipped.revisitWithoutPayload} revisits skipped: the response with their payload was not in the files imported before them (import the crawl's earlier files in the same run)`);
      if (s.skipped.notNewer) lines.push(`${s.skipped.notNewer} skipped: not newer than the archive's last capture of their URL (give the files oldest first)`);
      if (s.skipped.notHttp) lines.push(`${s.skipped.notHttp} skipped: no http(s) URL or HTTP response in the record`);
      for (const u of s.unreadable) lines.push(`unreadable: ${u} (the responses before it are archived)`);
      lines.push(`Next: datamonitor query --data ${flags.data} 'SELECT …'   or   datamonitor verify --data ${flags.data}`);
      process.stdout.write(lines.join('\n') + '\n');
    });
}
