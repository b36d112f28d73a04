import path from 'node:path';
import { Option, type Command } from 'commander';
import { addCrawlFlags, crawlOptionsFrom, readSeeds } from './crawl.ts';
import { storageStopExit } from '../../crawler/crawl.ts';
import { refuseStreams, runWorker, WORKER_DEFAULTS, type WorkerSummary } from '../../worker/worker.ts';
import type { WorkerStore } from '../../store/worker-types.ts';
import { UserError } from '../../util/errors.ts';
import { formatBytes, formatDuration, parseCount, parseDuration } from '../../util/units.ts';
import { ProgressLine } from '../progress.ts';
import { describeOutcomes } from '../../vocabulary/outcomes.ts';
import { steadyHeapGrowth } from '../../util/memory.ts';
import { BATCH_DEFAULTS } from '../../store/pg-batch.ts';
import { summaryOf } from './index.ts';

/**
 * postgres://… → PostgresStore, its per-page writes grouped `batch` pages or `batchWaitMs` at a time
 * (batch 0: each on its own); anything else names one SQLite file shared by the workers of one machine.
 */
async function openWorkerStore(db: string | undefined, batch: number, batchWaitMs: number): Promise<WorkerStore> {
  if (!db) throw new UserError('worker needs --db: postgres://user@host/database (workers on many machines) or a SQLite file path (workers on this machine)');
  if (/^postgres(ql)?:\/\//.test(db)) {
    return new (await import('../../store/postgres.ts')).PostgresStore(db, { batch: batch > 0 ? { pages: batch, waitMs: batchWaitMs } : undefined });
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(db)) throw new UserError(`--db '${db}' is neither a postgres:// URL nor a file path`);
  return new (await import('../../store/sqlite-worker.ts')).SqliteWorkerStore(path.resolve(db));
}

function parsePartition(text: string | undefined): { index: number; count: number } | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const p = m && { index: Number(m[1]), count: Number(m[2]) };
  if (!p || p.count < 1 || p.index >= p.count) throw new UserError(`--partition '${text}' must be i/n with 0 <= i < n, e.g. 0/3 for the first of three workers`);
  return p;
}

function printWorkerSummary(s: WorkerSummary, json: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify(s, null, 2) + '\n');
    return;
  }
  const lines = [
    `Worker ${s.worker} (partition ${s.partition}) crawled ${s.documents} documents in ${formatDuration(s.durationMs)} over ${s.rounds} rounds: ${s.triples} triples, ${formatBytes(s.bytes)}`,
    `  ${describeOutcomes(s.outcomes)}`,
    `  hosts leased ${s.hostsLeased}, given back ${s.hostsReleased}, leases lost ${s.leasesLost}; stopped: ${s.stoppedBy}${s.stopMessage ? ` (${s.stopMessage})` : ""}`,
    `  archive: ${s.archiveDir} (paths in the crawl log start with ${s.archivePrefix})`,
  ];
  const { repaired, removed } = s.recovered;
  if (repaired.length || removed.length) lines.push(`  at start: ${repaired.length} WARC file(s) a previous run left open repaired, ${removed.length} with no logged record removed`);
  process.stdout.write(lines.join('\n') + '\n');
}

export function register(program: Command): void {
  addCrawlFlags(
    program
      .command('worker')
      .description(summaryOf('worker'))
      .option('--id <name>', 'worker name, unique among live workers; names its archive directory (default: hostname-pid)')
      .option('--partition <i/n>', 'prefer the hosts of hash slot i of n (default 0/1: all hosts)')
      .option('--lease <duration>', 'host lease length; renewed every third of it', `${WORKER_DEFAULTS.leaseMs / 1000}s`)
      .option('--max-hosts <n>', 'hosts leased at once', String(WORKER_DEFAULTS.maxHosts))
      .option('--idle-exit <duration>', "exit after this long with nothing to do; 'never' to keep waiting", `${WORKER_DEFAULTS.idleExitMs / 1000}s`)
      .option('--round <duration>', 'longest crawl round before finished hosts are given back', `${WORKER_DEFAULTS.roundMs / 1000}s`)
      .option('--seeds <file>', 'put these seed URLs in the shared store first (one a line)')
      .option('--batch <pages>', "PostgreSQL: commit the writes of this many pages in one transaction (0: each write on its own)", String(BATCH_DEFAULTS.pages))
      .option('--batch-wait <duration>', 'PostgreSQL: longest a page waits for its batch to commit', `${BATCH_DEFAULTS.waitMs}ms`)
      // Taken to say what to run instead (refuseStreams), not an unknown option.
      .addOption(new Option('--ldes <url>').hideHelp())
      .addOption(new Option('--ldes-since <time>').hideHelp()),
  ).action(async (flags) => {
    refuseStreams({ ldes: flags.ldes === undefined ? undefined : [flags.ldes], ldesSince: flags.ldesSince === undefined ? undefined : 0 });
    steadyHeapGrowth(); // a worker's rounds are crawls
    const store = await openWorkerStore(flags.db, parseCount(flags.batch, '--batch'), parseDuration(flags.batchWait, '--batch-wait'));
    const controller = new AbortController();
    const onSignal = () => controller.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const progress = new ProgressLine();
    try {
      const { store: _none, ...crawlOptions } = await crawlOptionsFrom({ ...flags, db: undefined }, []);
      const summary = await runWorker({
        store,
        id: flags.id,
        dataDir: path.resolve(flags.data),
        partition: parsePartition(flags.partition),
        leaseMs: parseDuration(flags.lease, '--lease'),
        maxHosts: parseCount(flags.maxHosts, '--max-hosts'),
        idleExitMs: flags.idleExit === 'never' ? Infinity : parseDuration(flags.idleExit, '--idle-exit'),
        roundMs: parseDuration(flags.round, '--round'),
        seeds: flags.seeds ? readSeeds([], flags.seeds) : undefined,
        crawl: crawlOptions,
        signal: controller.signal,
        onEvent: (e) => {
          if (e.type === 'warning') process.stderr.write(`warning: ${e.message}\n`);
          else if (e.type === 'round') progress.update(`worker: ${e.totalDocuments} docs, ${e.hosts} hosts held`);
        },
      });
      progress.done();
      printWorkerSummary(summary, Boolean(flags.json));
      const storageExit = storageStopExit(summary.stoppedBy);
      if (storageExit !== undefined) {
        process.stderr.write(`datamonitor: worker stopped early: ${summary.stopMessage}\n`);
        process.exitCode = storageExit;
      }
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await store.close();
    }
  });
}
