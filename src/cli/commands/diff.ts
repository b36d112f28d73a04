import type { Command } from 'commander';
import { UserError } from '../../util/errors.ts';
import { parseTime } from '../../util/units.ts';
import { diffLines } from '../../versions/diff.ts';
import { withVersions } from './query.ts';
import { summaryOf } from './index.ts';

export interface DiffFlags {
  data: string;
  db?: string;
  from?: string;
  to?: string;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('diff')
    .description(summaryOf('diff'))
    .argument('[url]', 'the document (its graph); default: every document (lines then carry the graph)')
    .option('--data <dir>', 'data directory', 'data')
    .option('--db <url>', 'postgres:// URL of the metadata store (default: <data>/meta.sqlite)')
    .requiredOption('--from <time>', 'the earlier time (ISO 8601 date or datetime)')
    .option('--to <time>', 'the later time; default now', 'now')
    .option('--json', 'JSON: {from, to, graph, added: [lines], removed: [lines]}')
    .action(async (url: string | undefined, flags: DiffFlags) => {
      const { text, summary } = await diffCommand(url, flags);
      process.stdout.write(text);
      if (!flags.json) process.stderr.write(summary);
    });
}

/** Returns the output (stdout) and a one-line summary (stderr). */
export async function diffCommand(url: string | undefined, flags: DiffFlags): Promise<{ text: string; summary: string }> {
  if (!flags.from) throw new UserError('--from is required: the earlier time, e.g. --from 2025-01-01');
  const from = parseTime(flags.from, '--from');
  const to = parseTime(flags.to ?? 'now', '--to');
  if (to < from) throw new UserError(`--to (${flags.to}) is before --from (${flags.from})`);
  return withVersions(flags.data, flags.db, (archive) => {
    const { added, removed } = diffLines(archive, url, from, to);
    const summary = `${added.length} added, ${removed.length} removed between ${new Date(from).toISOString()} and ${new Date(to).toISOString()}\n`;
    if (flags.json) {
      return { text: JSON.stringify({ from: new Date(from).toISOString(), to: new Date(to).toISOString(), graph: url ?? null, added, removed }, null, 1) + '\n', summary };
    }
    const text = [...removed.map((l) => `- ${l}`), ...added.map((l) => `+ ${l}`)].join('\n');
    return { text: text ? text + '\n' : '', summary };
  });
}
