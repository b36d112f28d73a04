import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { withStore } from '../../store/index.ts';
import { exportArchive, type ExportFormat } from '../../archive/export.ts';
import { UserError } from '../../util/errors.ts';
import { parseTime } from '../../util/units.ts';

export function register(program: Command): void {
  program
    .command('export')
    .description('write the archived RDF: N-Quads with a graph per document, one Turtle file, or Prolog facts')
    .option('--data <dir>', 'data directory', 'data')
    .option('--db <url>', 'metadata store: postgres://…')
    .option('--format <format>', 'nquads | turtle | prolog', 'nquads')
    .option('--at <time>', 'the archive as it was at this time (ISO 8601)')
    .option('--provenance', 'add the PROV-O description of each fetch (graph dm:provenance)')
    .option('-o, --output <file>', 'write here instead of standard output')
    .action(async (flags) => {
      const format = flags.format as ExportFormat;
      if (!['nquads', 'turtle', 'prolog'].includes(format)) throw new UserError(`--format '${flags.format}' is not one of nquads, turtle, prolog`);
      const dataDir = path.resolve(flags.data);
      const at = flags.at ? parseTime(flags.at, '--at') : undefined;
      await withStore(dataDir, flags.db, async (store) => {
        const out = flags.output ? fs.createWriteStream(flags.output) : process.stdout;
        try {
          const r = await exportArchive(store, dataDir, format, (s) => out.write(s), { at, provenance: flags.provenance });
          process.stderr.write(`exported ${r.quads} quads from ${r.documents} documents\n`);
        } finally {
          if (flags.output) await new Promise((r) => (out as fs.WriteStream).end(r));
        }
      }, { mustExist: true, readonly: true });
    });
}
