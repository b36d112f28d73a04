import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { withStore } from '../../store/index.ts';
import type { ArchiveCounts, CycleRow, LogCounts } from '../../store/types.ts';
import { estimationReport } from '../../schedule/crawl-time.ts';
import { formatBytes, formatDuration, plural } from '../../util/units.ts';
import { listWarcFiles } from '../../archive/warc-files.ts';
import { describeOutcomes } from '../../vocabulary/outcomes.ts';
import { summaryOf } from './index.ts';

interface WarcFiles {
  files: number;
  bytes: number;
  /** Files still being written (`*.warc.gz.open`): a crawl is running, or one was killed and not resumed yet. */
  open: number;
}

/** The WARC files under a data directory, workers' included (they write below `<id>/warc/`). */
function warcFiles(dataDir: string): WarcFiles {
  const { closed, open } = listWarcFiles(dataDir);
  const all = [...closed, ...open];
  return { files: all.length, open: open.length, bytes: all.reduce((n, f) => n + fs.statSync(path.join(dataDir, f)).size, 0) };
}

export interface ArchiveStats extends ArchiveCounts {
  dataDir: string;
  captures: LogCounts;
  warc: WarcFiles;
  cycles: number;
  lastCycle?: CycleRow;
}

const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + 'Z';

/** The summary a person reads: one line per part of the archive. */
export function describeStats(s: ArchiveStats): string {
  const d = s.documents;
  const lines = [
    `archive    ${s.dataDir}`,
    `documents  ${d.total} known on ${plural(s.hosts, 'host')}: ${d.fetched} fetched, ${d.queued} queued, ${d.failed} failed, ${d.skipped} skipped`,
  ];
  lines.push(s.captures.entries === 0
    ? 'log        empty: nothing fetched yet'
    : `log        ${plural(s.captures.entries, 'entry', 'entries')} from ${when(s.firstLogged!)} to ${when(s.lastLogged!)}: ${describeOutcomes(s.captures.byOutcome)}` +
      ` (${plural(s.captures.requests, 'fetch', 'fetches')})`);
  if (s.captures.entries) lines.push(`reasons    ${s.captures.byReason.map((r) => `${r.reason} ${r.entries}`).join(', ')} (datamonitor log --data ${s.dataDir} lists them)`);
  lines.push(`warc       ${plural(s.warc.files, 'file')}, ${formatBytes(s.warc.bytes)}${s.warc.open ? ` (${s.warc.open} still open: a crawl is running, or resume the one that was stopped)` : ''}`);
  lines.push(s.monitored === 0
    ? 're-crawl   no URLs monitored (datamonitor add --data DIR URL...)'
    : `re-crawl   ${s.monitored} URLs monitored (${s.strategies.map((x) => `${x.strategy} ${x.urls}`).join(', ')}), ${s.due} due now`);
  const c = s.lastCycle;
  lines.push(!c
    ? 'cycles     none yet'
    : `cycles     ${s.cycles}; the last, #${c.id}, ${c.status} at ${when(c.endedAt ?? c.startedAt)}: ${c.urls} URLs` +
      (c.actualMs !== undefined ? ` in ${formatDuration(c.actualMs)}` : '') +
      (c.estimateMs !== undefined ? ` (estimated ${formatDuration(c.estimateMs)})` : '') +
      (c.note ? ` — ${c.note}` : ''));
  return lines.join('\n') + '\n';
}

export function register(program: Command): void {
  program
    .command('stats')
    .description(summaryOf('stats'))
    .option('--data <dir>', 'data directory', 'data')
    .option('--db <url>', 'metadata store: postgres://…')
    .option('--estimates', 'over- and under-estimation of cycle times, grouped by crawl length (seed 000 Table 3)')
    .option('--json', 'print JSON')
    .action(async (flags) => {
      const dataDir = path.resolve(flags.data);
      await withStore(dataDir, flags.db, async (store) => {
        const cycles = await store.cycles();
        if (flags.estimates) {
          const rows = estimationReport(cycles.filter((c) => c.status === 'done').map((c) => ({ estimateMs: c.estimateMs ?? NaN, actualMs: c.actualMs ?? 0 })));
          if (flags.json) return void process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
          process.stdout.write('crawl length   crawls  over  avg over   under  avg under\n');
          for (const r of rows) {
            process.stdout.write(`${r.band.padEnd(14)} ${String(r.crawls).padStart(6)} ${String(r.over).padStart(5)} ${(r.overFraction * 100).toFixed(0).padStart(7)}%  ${String(r.under).padStart(6)} ${(r.underFraction * 100).toFixed(0).padStart(8)}%\n`);
          }
          return;
        }
        const stats: ArchiveStats = {
          dataDir,
          ...(await store.archiveCounts(Date.now())),
          captures: await store.logCounts(),
          warc: warcFiles(dataDir),
          cycles: cycles.length,
          ...(cycles.length ? { lastCycle: cycles.at(-1) } : {}),
        };
        process.stdout.write(flags.json ? JSON.stringify(stats, null, 2) + '\n' : describeStats(stats));
      }, { mustExist: true, readonly: true });
    });
}
