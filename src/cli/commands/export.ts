import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { withStore } from '../../store/index.ts';
import { exportArchive, exportWarc, type ExportFormat } from '../../archive/export.ts';
import { UserError } from '../../util/errors.ts';
import { parseTime, plural } from '../../util/units.ts';
import { EXIT } from '../../util/exit-codes.ts';
import { streamSink } from '../../util/stream-sink.ts';
import { summaryOf } from './index.ts';

export function register(program: Command): void {
  program
    .command('export')
    .description(summaryOf('export'))
    .option('--data <dir>', 'data directory', 'data')
    .option('--db <url>', 'metadata store: postgres://…')
    .option('--format <format>', 'nquads | turtle | prolog | warc', 'nquads')
    .option('--at <time>', 'the archive as it was at this time (ISO 8601)')
    .option('--provenance', 'add the PROV-O description of each fetch (graph dm:provenance)')
    .option('-o, --output <file>', 'write here instead of standard output')
    .action(async (flags) => {
      const format = flags.format as ExportFormat | 'warc';
      if (!['nquads', 'turtle', 'prolog', 'warc'].includes(format)) throw new UserError(`--format '${flags.format}' is not one of nquads, turtle, prolog, warc`);
      if (format === 'warc' && (flags.at || flags.provenance)) throw new UserError('--at and --provenance apply to the RDF formats; --format warc writes every archived record (leave them out)');
      const dataDir = path.resolve(flags.data);
      const at = flags.at ? parseTime(flags.at, '--at') : undefined;
      if (format === 'warc') {
        await withStore(dataDir, flags.db, async (store) => {
          const out = flags.output ? fs.createWriteStream(flags.output) : process.stdout;
          try {
            // Waits for the stream to drain: an archive's records are far more than memory should buffer.
            const r = await exportWarc(store, dataDir, streamSink(out));
            process.stderr.write(`exported ${plural(r.records, 'record')} from ${plural(r.files, 'WARC file')}\n`);
            for (const p of r.problems) process.stderr.write(`skipped a damaged stretch: ${p} (run datamonitor verify)\n`);
            if (r.problems.length) process.exitCode = EXIT.problems;
          } finally {
            if (flags.output) await new Promise((r) => (out as fs.WriteStream).end(r));
          }
        }, { mustExist: true, readonly: true });
        return;
      }
      await withStore(dataDir, flags.db, async (store) => {
        const out = flags.output ? fs.createWriteStream(flags.output) : process.stdout;
        try {
          // As for WARC: the output is the archive's size, so it goes out as fast as the stream takes it.
          const r = await exportArchive(store, dataDir, format, streamSink(out), { at, provenance: flags.provenance });
          process.stderr.write(`exported ${plural(r.quads, 'quad')} from ${plural(r.documents, 'document')}\n`);
        } finally {
          if (flags.output) await new Promise((r) => (out as fs.WriteStream).end(r));
        }
      }, { mustExist: true, readonly: true });
    });
}
