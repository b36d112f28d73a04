/** `datamonitor log`: each URL's fate as the crawl log records it, failures and diagnostics first of all. */
import path from 'node:path';
import type { Command } from 'commander';
import { storeNeedsUpgrade, withStore } from '../../store/index.ts';
import type { CrawlLogEntry } from '../../store/types.ts';
import { REASONS, REASON_NAMES, isReason } from '../../vocabulary/reasons.ts';
import { normalizeUrl } from '../../frontier/normalize.ts';
import { UserError } from '../../util/errors.ts';
import { parseCount } from '../../util/units.ts';
import { redirectTarget } from '../../util/headers.ts';
import { summaryOf } from './index.ts';

const collect = (v: string, prev: string[] = []) => [...prev, ...v.split(',').map((s) => s.trim()).filter(Boolean)];

function reasonsFrom(given: string[] | undefined): string[] | undefined {
  for (const r of given ?? []) if (!isReason(r)) throw new UserError(`--reason '${r}' is not a reason; the reasons are: ${REASON_NAMES.join(', ')}`);
  return given;
}

/** One line a person reads: when, why, the HTTP status, the URL, and the details. */
export function describeEntry(e: CrawlLogEntry): string {
  const when = new Date(e.time).toISOString().replace('T', ' ').slice(0, 19) + 'Z';
  // Where a redirect led, as the crawl followed it; the Location as the server meant it when it is no URL.
  const redirect = e.reason === 'redirected' ? redirectTarget(e.status, e.headers, e.url) : undefined;
  const to = (redirect && (redirect.url?.href ?? redirect.text)) ?? (e.finalUrl !== e.url ? e.finalUrl : undefined);
  const target = to ? `${e.url} -> ${to}` : e.url;
  const details = [e.error, ...(e.diagnostics ?? [])].filter(Boolean).join('; ');
  return `${when}  ${(e.reason ?? '(none)').padEnd(18)} ${String(e.status || '-').padStart(3)}  ${target}${details ? `  ${details}` : ''}`;
}

export function register(program: Command): void {
  program
    .command('log')
    .description(summaryOf('log'))
    .option('--data <dir>', 'data directory', 'data')
    .option('--db <url>', 'metadata store: postgres://…')
    .option('--reason <reason>', 'only entries with this reason (repeatable, or comma-separated), e.g. refused-address,timeout-headers', collect)
    .option('--url <url>', 'every entry of this URL and of the URLs its redirects led to, plain captures included')
    .option('--limit <n>', 'at most this many entries', '100')
    .option('--json', 'print the entries as JSON')
    .addHelpText('after', `\nReasons:\n${REASON_NAMES.map((r) => `  ${r.padEnd(20)} ${REASONS[r]}`).join('\n')}\n`)
    .action(async (flags: { data: string; db?: string; reason?: string[]; url?: string; limit: string; json?: boolean }) => {
      const dataDir = path.resolve(flags.data);
      const reasons = reasonsFrom(flags.reason);
      const limit = parseCount(flags.limit, '--limit');
      const url = flags.url === undefined ? undefined : normalizeUrl(flags.url) ?? flags.url;
      // Read-only, so that a user who may not write the archive can read it; but an archive from before the
      // reason column is opened writable once, to get it (and its rows their reasons).
      const readonly = !storeNeedsUpgrade(dataDir, flags.db);
      const entries = await withStore(dataDir, flags.db, (store) => store.fates({ reasons, url, limit }), { mustExist: true, readonly });
      if (flags.json) return void process.stdout.write(JSON.stringify(entries.map(({ headers: _h, ...e }) => e), null, 2) + '\n');
      if (entries.length === 0) return void process.stdout.write(reasons || url ? 'no log entries match\n' : 'no failures, skips or diagnostics in the crawl log\n');
      process.stdout.write(entries.map(describeEntry).join('\n') + '\n');
      if (entries.length === limit) process.stdout.write(`(the newest ${limit}: --limit N for more)\n`);
    });
}
