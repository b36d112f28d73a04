import path from 'node:path';
import type { Command } from 'commander';
import { withStore } from '../../store/index.ts';
import { runCycle, DEFAULT_STRATEGY, LDES_STRATEGY, SITEMAP_STRATEGY, type CycleResult } from '../../recrawl/cycle.ts';
import { getStrategy, isLiveStrategy } from '../../schedule/strategies/index.ts';
import { hostOf, normalizeUrl } from '../../frontier/normalize.ts';
import { UserError } from '../../util/errors.ts';
import type { DueSelection } from '../../store/types.ts';
import { formatDuration, parseCount, parseDuration, plural } from '../../util/units.ts';
import { addFetchFlags, fetchOptionsFrom, readSeeds } from './crawl.ts';
import { storageStopExit } from '../../crawler/crawl.ts';
import { describeOutcomes } from '../../vocabulary/outcomes.ts';
import { EXIT } from '../../util/exit-codes.ts';
import { summaryOf } from './index.ts';

function cycleFlags(cmd: Command): Command {
  return addFetchFlags(cmd)
    .option('--data <dir>', 'data directory', 'data')
    .option('--db <url>', 'metadata store: postgres://…')
    .option('--cycle <duration>', 'length of a cycle: the batch is planned to fit it', '1h')
    .option('--budget <n>', 'downloads allowed per cycle: spent on the URLs most likely to have changed')
    .option('--json', 'print the result as JSON');
}

// biome-ignore lint/suspicious/noExplicitAny: commander's parsed flags, whose types the option definitions give
function cycleOptions(flags: Record<string, any>) {
  return {
    dataDir: path.resolve(flags.data),
    // The store `add` and `crawl` wrote: without it a cycle read an empty SQLite file beside the WARCs and found nothing due.
    db: flags.db as string | undefined,
    cycleMs: parseDuration(flags.cycle, '--cycle'),
    budget: flags.budget === undefined ? undefined : parseCount(flags.budget, '--budget'),
    crawl: fetchOptionsFrom(flags),
  };
}

function describe(r: CycleResult): string {
  if (r.status === 'skipped') return `cycle skipped: ${r.note}`;
  return `cycle ${r.id} ${r.status}: ${r.due} due, ${r.planned} planned (${r.deferred} deferred to fit the cycle), ${r.downloads} downloaded (${describeOutcomes(r.outcomes)})${r.sitemapHints || r.sitemapAdded ? `; sitemaps: ${r.sitemapHints ?? 0} URLs due by lastmod, ${r.sitemapAdded ?? 0} newly monitored` : ''}${r.streamDocuments ? `; streams: ${r.streamDocuments} documents now followed through their stream` : ''}; estimated ${formatDuration(r.estimateMs)}, took ${formatDuration(r.actualMs)}${r.status === 'failed' ? ` — ${r.note}` : ''}`;
}

export function register(program: Command): void {
  program
    .command('add')
    .description(summaryOf('add'))
    .argument('[urls...]', 'URLs to monitor')
    .option('--seeds <file>', 'file with one URL a line')
    .option('--data <dir>', 'data directory', 'data')
    .option('--db <url>', 'metadata store: postgres://…')
    .option('--strategy <name>', `re-crawl strategy (default ${DEFAULT_STRATEGY})`, DEFAULT_STRATEGY)
    .option('--sitemap', 'the URLs are sitemaps: read every day; the URLs they list are monitored, and due again as soon as their <lastmod> is newer than their last fetch')
    .option('--ldes', 'the URLs are Linked Data Event Streams (a root or a view): read every day; each new member is archived as a version of its document, and the documents it covers are not downloaded by guessing (the stream says when they change)')
    .option('--json', 'print the result as JSON')
    .action(async (args: string[], flags) => {
      if (flags.sitemap && flags.ldes) throw new UserError('--sitemap and --ldes: add the sitemaps and the streams with two commands');
      if (flags.sitemap) flags.strategy = SITEMAP_STRATEGY;
      else if (flags.ldes) flags.strategy = LDES_STRATEGY;
      else {
        getStrategy(flags.strategy);
        if (!isLiveStrategy(flags.strategy)) throw new UserError(`strategy "${flags.strategy}" needs to know the future (lab only); pick another`);
      }
      const urls = readSeeds(args, flags.seeds);
      if (urls.length === 0) throw new UserError('no URLs: give URLs or --seeds FILE');
      const docs = urls.map((u) => {
        const url = normalizeUrl(u);
        if (!url) throw new UserError(`'${u}' is not an http(s) URL`);
        return { url, host: hostOf(url), depth: 0 };
      });
      const added = await withStore(path.resolve(flags.data), flags.db, async (store) => {
        const now = Date.now();
        const n = await store.addDocuments(docs, { monitored: true, strategy: flags.strategy, nextFetch: now });
        // A URL a crawl skipped by a policy (a refused address, robots.txt) is asked for by name now: it is tried again.
        for (const d of await store.getDocuments(docs.map((x) => x.url))) {
          if (d.state === 'skipped') await store.updateDocument(d.url, { state: 'queued', monitored: true, strategy: flags.strategy, nextFetch: now });
        }
        return n;
      });
      if (flags.json) process.stdout.write(JSON.stringify({ urls: docs.length, added, strategy: flags.strategy }) + '\n');
      else process.stdout.write(`monitoring ${docs.length} URLs (${added} new) with strategy ${flags.strategy}; run \`datamonitor run --data ${flags.data}\` for a cycle\n`);
    });

  program
    .command('due')
    .description(summaryOf('due'))
    .option('--data <dir>', 'data directory', 'data')
    .option('--db <url>', 'metadata store: postgres://…')
    .option('--url <url>', 'this monitored URL')
    .option('--host <host>', 'every monitored URL of this host (host[:port])')
    .option('--all', 'every monitored URL')
    .option('--json', 'print the result as JSON')
    .action(async (flags) => {
      const chosen = [flags.url, flags.host, flags.all].filter((v) => v !== undefined).length;
      if (chosen !== 1) throw new UserError('say which URLs: exactly one of --url URL, --host HOST or --all');
      let select: DueSelection;
      if (flags.url !== undefined) {
        const url = normalizeUrl(flags.url);
        if (!url) throw new UserError(`--url '${flags.url}' is not an http(s) URL`);
        select = { url };
      } else if (flags.host !== undefined) select = { host: String(flags.host).toLowerCase() };
      else select = { all: true };
      const now = Date.now();
      const due = await withStore(path.resolve(flags.data), flags.db, (store) => store.makeDue(select, now), { mustExist: true });
      if (flags.json) process.stdout.write(JSON.stringify({ due, at: new Date(now).toISOString() }) + '\n');
      else process.stdout.write(`${plural(due, 'monitored URL')} due now${due === 0 ? ' (nothing monitored matches: see `datamonitor stats`)' : `; \`datamonitor run --data ${flags.data}\` fetches ${due === 1 ? 'it' : 'them'}`}\n`);
    });

  cycleFlags(program.command('run').description(summaryOf('run'))).action(async (flags) => {
    const r = await runCycle(cycleOptions(flags));
    process.stdout.write(flags.json ? JSON.stringify(r, null, 2) + '\n' : describe(r) + '\n');
    // A cycle skipped because another holds the lock is a try-again-later, not a success.
    // A cycle the archive's storage stopped exits as a crawl would (74, 75, 77): its URLs stay due for the next.
    if (r.status === 'failed') process.exitCode = storageStopExit(r.stoppedBy) ?? EXIT.problems;
    else if (r.status === 'skipped') process.exitCode = EXIT.tempFail;
  });

  cycleFlags(program.command('daemon').description(summaryOf('daemon')))
    .option('--every <duration>', 'start a cycle this often', '1h')
    .option('--cycles <n>', 'stop after this many cycles (default: run until stopped)')
    .action(async (flags) => {
      const every = parseDuration(flags.every, '--every');
      const limit = flags.cycles === undefined ? Infinity : Number(flags.cycles);
      const log = (s: string) => process.stderr.write(`${new Date().toISOString()} ${s}\n`);
      // A service manager sends SIGTERM and waits a few seconds before SIGKILL: the daemon must not
      // sleep through it until its next slot. The first signal ends the wait at once, or lets a
      // cycle in progress archive its fetches in flight and start no new one; a second aborts them.
      const stopping = new AbortController();
      const aborting = new AbortController();
      const onSignal = () => {
        if (!stopping.signal.aborted) {
          stopping.abort();
          log('stopping: fetches in flight finish and are archived (signal again to abort them)');
        } else if (!aborting.signal.aborted) {
          aborting.abort();
          log('aborting the fetches in flight');
        }
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const until = (at: number) =>
        new Promise<void>((resolve) => {
          const done = () => (clearTimeout(timer), resolve());
          const timer = setTimeout(done, Math.max(0, at - Date.now()));
          stopping.signal.addEventListener('abort', done, { once: true });
        });
      log(`daemon started: a cycle every ${formatDuration(every)} (SIGTERM or Ctrl-C stops it)`);
      const t0 = Date.now();
      for (let k = 0; k < limit && !stopping.signal.aborted; k++) {
        const slot = t0 + k * every;
        if (Date.now() > slot + every) {
          log(`cycle slot ${k} skipped: the previous cycle ran past it`);
          continue;
        }
        await until(slot);
        if (stopping.signal.aborted) break;
        const opts = cycleOptions(flags);
        const r = await runCycle({ ...opts, crawl: { ...opts.crawl, drain: stopping.signal, signal: aborting.signal } }).catch(
          (e) => ({ status: 'failed', note: (e as Error).message }) as CycleResult,
        );
        log(flags.json ? JSON.stringify(r) : describe(r));
      }
      if (stopping.signal.aborted) log('stopped');
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    });
}
