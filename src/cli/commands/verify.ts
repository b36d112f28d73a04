/** `datamonitor verify`: the archive's fixity check (src/archive/verify.ts). */
import path from 'node:path';
import type { Command } from 'commander';
import { withStore } from '../../store/index.ts';
import { verifyArchive } from '../../archive/verify.ts';
import { ProgressLine } from '../progress.ts';
import { plural } from '../../util/units.ts';
import { EXIT } from '../../util/exit-codes.ts';
import { summaryOf } from './index.ts';

export function register(program: Command): void {
  program
    .command('verify')
    .description(summaryOf('verify'))
    .option('--data <dir>', 'data directory', 'data')
    .option('--db <url>', 'metadata store: postgres://…')
    .option('--json', 'print the report as JSON')
    .action(async (flags: { data: string; db?: string; json?: boolean }) => {
      const dataDir = path.resolve(flags.data);
      const progress = new ProgressLine();
      const r = await withStore(dataDir, flags.db, (store) => verifyArchive(dataDir, store, { onProgress: (n) => progress.update(`verifying: ${n} log entries read`) }), { mustExist: true, readonly: true });
      progress.done();
      if (r.problemCount > 0) process.exitCode = EXIT.problems;
      if (flags.json) return void process.stdout.write(JSON.stringify(r, null, 2) + '\n');
      const lines = [`${r.records} WARC records of ${r.entries} crawl-log entries checked in ${r.seconds.toFixed(1)} s: ${r.problemCount === 0 ? 'all intact' : `${plural(r.problemCount, 'problem')}`}`];
      for (const p of r.problems) lines.push(`  ${p.kind}: ${p.url} at ${new Date(p.time).toISOString()} (${p.file}@${p.offset}): ${p.detail}`);
      if (r.problemCount > r.problems.length) lines.push(`  … and ${r.problemCount - r.problems.length} more (--json lists the first ${r.problems.length})`);
      if (r.unreferencedFiles.length) lines.push(`${plural(r.unreferencedFiles.length, 'WARC file')} no log entry points to: ${r.unreferencedFiles.slice(0, 10).join(', ')}${r.unreferencedFiles.length > 10 ? ', …' : ''}`);
      if (r.openFiles.length) lines.push(`${r.openFiles.length} WARC file${r.openFiles.length === 1 ? ' is' : 's are'} still open (a crawl is running, or run it again to resume and close them): ${r.openFiles.slice(0, 10).join(', ')}`);
      process.stdout.write(lines.join('\n') + '\n');
    });
}
