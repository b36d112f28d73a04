/**
 * The scale run of issue #16 item 7: a generated Web of N Linked Data documents (src/testkit/linked-data-web.ts:
 * ~35 triples, a blank node, ten links across hosts, 303s from resource IRIs; `--hosts` virtual hosts behind a
 * forward proxy on 127.0.0.1) crawled into SQLite by `datamonitor crawl --delay 0` as a user runs it, then:
 *   - the index catch-up from the WARC conversion records (what the first `query` waits for): versions/s;
 *   - a selective query (one resource's labels) at three instants of the crawl (a quarter, half, all of its
 *     versions captured): `datamonitor query` as a user runs it, and the same queries in one warm process (the
 *     server's query processes), a new subject each time: median and p95;
 *   - an unselective COUNT of every triple at the end of the crawl;
 *   - stats, `export --format warc`, and the CDX + dashboard reads (src/server/cdx-probe.ts);
 *   - disk: WARC files, crawl log, version index, in bytes per triple-version.
 * Every command runs in its own process under GNU time (wall, CPU, peak RSS of that command).
 *
 *   node bin/run-ts.mjs bench/scale-run.bench.ts [--documents 100000] [--quick] [--hosts 100] [--keep]
 *     --quick      2,000 documents, fewer query runs
 *     --keep       leave the archive (its path is printed) instead of deleting it
 *     --archive DIR --crawled WALL,CPU,RSS,PAGES   go on from an archive an earlier run crawled (and indexed,
 *                  or not), quoting that run's crawl line; --cli-runs N queries per instant; --skip-reads no
 *                  stats/probe/export; --no-diff no whole-snapshot comparison in the warm process;
 *                  --crawl-only stop after the crawl and keep its archive (the input of the two above)
 *     --frontier-memory N   the crawl's bound on queued URLs in memory (its own default otherwise; 0: none)
 *     --no-live-index       crawl without the live index (then step 2 indexes the whole crawl log)
 *     --profile-crawl DIR   the crawl process under `node --cpu-prof` (one .cpuprofile per thread in DIR);
 *                  summarise with `node bin/run-ts.mjs bench/crawl.bench.ts --summarise-profile FILE`
 *
 * The PostgreSQL half (pgMain below): the archive of a run kept with --keep, its crawl log moved into a fresh
 * schema of PostgreSQL in log order (as workers would have written it, 1,000 rows a transaction), then the same index catch-up, queries at
 * the same three instants (`datamonitor query --db postgres://…`, and a warm process on PgVersionArchive) and
 * COUNT, against the versioned store in PostgreSQL; disk as PostgreSQL's relation sizes:
 *   node bin/run-ts.mjs bench/scale-run.bench.ts --pg [URL] --data DIR [--documents N --hosts H]   (N, H: those of DIR's crawl)
 * Prints markdown; the figures also go to bench/out/scale-run-<N>.json (docs/scale.md extrapolates from them).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { args, flag, option, QUICK } from './args.ts';

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..');
const RUN_TS = path.join(ROOT, 'bin/run-ts.mjs');
const CLI = path.join(ROOT, 'bin/datamonitor.mjs');
const DOCUMENTS = Number(option('--documents') ?? (QUICK ? 2_000 : 100_000));
const HOSTS = Number(option('--hosts') ?? 100);
const PROFILE_CRAWL = option('--profile-crawl');
const CLI_RUNS = Number(option('--cli-runs') ?? (QUICK ? 2 : 4));
/** An archive an earlier run crawled (kept with --keep): the crawl is not run again; `--crawled WALL,CPU,RSS,PAGES` are its figures from that run's line. */
const ARCHIVE = option('--archive');
const WARM_RUNS = QUICK ? 11 : 41;
const PREFIX = 'PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> ';
const COUNT_ALL = 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }';
/** Unselective aggregates the planner counts in SQL (src/query/plan/count.ts): every triple, one predicate, its subjects. */
const COUNTS = [COUNT_ALL, `${PREFIX}SELECT (COUNT(*) AS ?n) WHERE { ?s rdfs:label ?o }`, `${PREFIX}SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s rdfs:label ?o }`];

// ---------------------------------------------------------------- children

/** The site and its proxy, until stdin closes. */
async function serveWeb(): Promise<void> {
  const { startLinkedDataWeb } = await import('../src/testkit/linked-data-web.ts');
  const { startForwardProxy } = await import('../src/testkit/forward-proxy.ts');
  const web = await startLinkedDataWeb({ documents: DOCUMENTS, hosts: HOSTS });
  const proxy = await startForwardProxy((host) => (host.endsWith('.lod.test') ? web.port : undefined));
  // Both keep a record of every request (tests want it); a long crawl does not.
  setInterval(() => (web.hits.clear(), proxy.hits.clear(), (proxy.seen.length = 0)), 1_000).unref();
  process.stdout.write(JSON.stringify({ seed: web.seed, proxy: proxy.url }) + '\n');
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

/** The index catch-up as the first `query` runs it (bulk when the archive is new). */
async function catchUpChild(dataDir: string, pgUrl?: string): Promise<void> {
  const { openStore } = await import('../src/store/index.ts');
  const { openVersionStore, catchUpVersions, PgVersionArchive } = await import('../src/query/index.ts');
  // The PostgreSQL half reads the log moved into PostgreSQL and writes its versioned store there.
  const store = pgUrl ? new (await import('../src/store/postgres.ts')).PostgresStore(pgUrl, { readonly: true }) : await openStore(dataDir, undefined, { readonly: true });
  await store.init();
  const archive = pgUrl ? new PgVersionArchive(pgUrl) : openVersionStore(dataDir);
  const c = await catchUpVersions(archive, store, dataDir, {
    onProgress: (p) => process.stderr.write(`\rindex: ${p.phase} ${p.done}/${p.total}   `),
  });
  process.stderr.write('\n');
  const stats = archive.stats();
  await archive.close();
  await store.close();
  process.stdout.write(JSON.stringify({ versions: c.versions, rows: c.rows, failed: c.failed, bulk: c.bulk, quadRows: stats.rows }) + '\n');
}

/**
 * Selective queries in one warm process (`--plan` is a JSON list of [instant, IRI]), then the counts through
 * the planner (pushed down to SQL: src/query/plan/count.ts), then the differential check at the middle
 * instant: the same selective queries and counts from the whole snapshot (plan: snapshot), bytes compared.
 */
async function warmChild(dataDir: string, plan: string): Promise<void> {
  const { openVersionStore, runQuery } = await import('../src/query/index.ts');
  const work = JSON.parse(fs.readFileSync(plan, 'utf8')) as Array<{ at: number; iri: string }>;
  const pgUrl = option('--db');
  const archive = pgUrl ? new (await import('../src/query/index.ts')).PgVersionArchive(pgUrl, { readonly: true }) : openVersionStore(dataDir, { readonly: true });
  const trips = () => ('roundTrips' in archive ? (archive.roundTrips as number) : 0);
  const selective = (iri: string) => `${PREFIX}SELECT ?l WHERE { <${iri}> rdfs:label ?l }`;
  await runQuery(archive, selective(work[0]!.iri), { at: work[0]!.at }); // modules and parser loaded
  const out: Array<{ at: number; ms: number; rows: number; plan?: string; trips: number }> = [];
  const bodies = new Map<string, string>();
  for (const w of work) {
    const t = performance.now();
    const trips0 = trips();
    const r = await runQuery(archive, selective(w.iri), { at: w.at });
    const ms = performance.now() - t;
    const rows = (JSON.parse(String(r.body)) as { results: { bindings: unknown[] } }).results.bindings.length;
    out.push({ at: w.at, ms, rows, plan: r.plan, trips: trips() - trips0 });
    bodies.set(`${w.at} ${w.iri}`, String(r.body));
  }
  const rssSelectiveMb = process.resourceUsage().maxRSS / 1024;
  const instants = [...new Set(work.map((w) => w.at))];
  const counts: Array<{ query: string; at: number; ms: number; cpuMs: number; plan?: string; value?: string; body: string }> = [];
  for (const at of [instants.at(-1)!, instants[0]!]) {
    for (const query of COUNTS) {
      const t = performance.now();
      const c0 = process.cpuUsage();
      const r = await runQuery(archive, query, { at });
      const c = process.cpuUsage(c0);
      counts.push({ query, at, ms: performance.now() - t, cpuMs: (c.user + c.system) / 1000, plan: r.plan, value: /"value":"(\d+)"/.exec(String(r.body))?.[1], body: String(r.body) });
    }
  }
  const rssCountsMb = process.resourceUsage().maxRSS / 1024;
  // Written now too: the comparison below loads a whole snapshot and may outlast a bench's time.
  fs.writeFileSync(path.join(dataDir, 'warm-result.json'), JSON.stringify({ runs: out, counts: counts.map((c) => ({ ...c, body: undefined })), rssSelectiveMb, rssCountsMb }, null, 1));
  process.stderr.write(`warm: selective and counts done (${rssCountsMb.toFixed(0)} MB peak so far); the whole snapshot next\n`);
  // The differential check at the first instant (a quarter of the versions: the smallest snapshot, a past
  // instant), from the whole snapshot (loaded once, then kept for the rest).
  const mid = instants[0]!;
  const diff = { at: mid, compared: 0, equal: 0, differences: [] as string[], snapshotMs: 0, snapshotQuads: 0 };
  if (!flag('--no-diff')) {
    const t = performance.now();
    for (const w of work.filter((x) => x.at === mid).slice(0, 20)) {
      const whole = await runQuery(archive, selective(w.iri), { at: mid, plan: 'snapshot' });
      if (diff.compared === 0) {
        diff.snapshotMs = performance.now() - t;
        diff.snapshotQuads = whole.quads;
      }
      diff.compared++;
      if (String(whole.body) === bodies.get(`${mid} ${w.iri}`)) diff.equal++;
      else diff.differences.push(`${w.iri}: ${String(whole.body).slice(0, 200)} / ${bodies.get(`${mid} ${w.iri}`)?.slice(0, 200)}`);
    }
    for (const c of counts.filter((x) => x.at === mid)) {
      const whole = await runQuery(archive, c.query, { at: mid, plan: 'snapshot' });
      diff.compared++;
      if (String(whole.body) === c.body) diff.equal++;
      else diff.differences.push(`${c.query}: ${String(whole.body).slice(0, 200)} / ${c.body.slice(0, 200)}`);
    }
  }
  await archive.close();
  const last = counts[0]!;
  const result = { runs: out, countMs: last.ms, count: last.body.slice(0, 300), countPlan: last.plan, counts: counts.map((c) => ({ ...c, body: undefined })), diff, rssSelectiveMb, rssCountsMb };
  fs.writeFileSync(path.join(dataDir, 'warm-result.json'), JSON.stringify(result, null, 1));
  process.stdout.write(JSON.stringify(result) + '\n');
}

// ---------------------------------------------------------------- parent

interface Measured {
  seconds: number;
  cpuSeconds: number;
  rssMb: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command under GNU time: wall, CPU (user + sys of it and the children it reaped), peak RSS of the largest. */
function timed(cmd: string[], env: Record<string, string> = {}): Promise<Measured> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const p = spawn('/usr/bin/time', ['-f', 'dm-time %U %S %M', ...cmd], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
    });
    p.on('close', (code) => {
      const m = /dm-time ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      resolve({ seconds: (performance.now() - t0) / 1000, cpuSeconds: m ? Number(m[1]) + Number(m[2]) : NaN, rssMb: m ? Number(m[3]) / 1024 : NaN, code, stdout, stderr: stderr.replace(/.*dm-time.*\n?/, '').replace(/Command exited with non-zero status \d+\n?/, '') });
    });
  });
}

const cli = (argv: string[], env?: Record<string, string>, nodeArgs: string[] = []) => timed([process.execPath, ...nodeArgs, CLI, ...argv], env);
const child = (argv: string[]) => timed([process.execPath, RUN_TS, SELF, ...argv]);

function must(name: string, m: Measured): Measured {
  const tail = m.stderr.trim().split('\n').slice(-3).join(' | ');
  process.stderr.write(`scale-run: ${name}: ${m.seconds.toFixed(1)} s, ${m.cpuSeconds.toFixed(1)} CPU-s, ${m.rssMb.toFixed(0)} MB${m.code === 0 ? '' : ` FAILED (exit ${m.code}): ${tail}`}\n`);
  return m;
}

function dirBytes(dir: string, pick: (f: string) => boolean = () => true): number {
  let n = 0;
  for (const f of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const p = path.join(dir, f);
    const s = fs.statSync(p);
    if (s.isFile() && pick(f)) n += s.size;
  }
  return n;
}

const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)] ?? NaN, p95: s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)] ?? NaN };
};

async function main(): Promise<void> {
  if (!(Number.isInteger(DOCUMENTS) && DOCUMENTS >= 100)) throw new Error(`--documents must be an integer ≥ 100, got ${option('--documents')}`);
  if (spawnSync('/usr/bin/time', ['-f', '%M', 'true']).status !== 0) throw new Error('this bench needs GNU time (/usr/bin/time): apt-get install time');
  const dir = ARCHIVE ?? fs.mkdtempSync(path.join(os.tmpdir(), `dm-scale-run-${DOCUMENTS}-`));
  const server = ARCHIVE ? undefined : spawn(process.execPath, [RUN_TS, SELF, '--child', 'web', '--documents', String(DOCUMENTS), '--hosts', String(HOSTS)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const result: Record<string, unknown> = { documents: DOCUMENTS, hosts: HOSTS, cores: os.cpus().length, node: process.version, started: new Date().toISOString() };
  const rows: string[] = [];
  const row = (name: string, m: Measured, extra = '') => rows.push(`| ${name} | ${m.seconds.toFixed(1)} | ${m.cpuSeconds.toFixed(1)} | ${m.rssMb.toFixed(0)} | ${m.code === 0 ? '' : `exit ${m.code} `}${extra} |`);
  const loads: number[] = [];
  const loadTimer = setInterval(() => loads.push(os.loadavg()[0]), 10_000);
  try {
    let crawl: Measured;
    if (ARCHIVE) {
      const [seconds, cpuSeconds, rssMb, pages] = (option('--crawled') ?? '').split(',').map(Number);
      crawl = { seconds: seconds!, cpuSeconds: cpuSeconds!, rssMb: rssMb!, code: 0, stdout: JSON.stringify({ documents: pages, triples: NaN }), stderr: '' };
    } else {
      const { seed, proxy } = await new Promise<{ seed: string; proxy: string }>((resolve, reject) => {
        let buf = '';
        server!.stdout!.on('data', (d: Buffer) => {
          buf += d.toString();
          if (buf.includes('\n')) resolve(JSON.parse(buf.slice(0, buf.indexOf('\n'))));
        });
        server!.once('exit', (code) => reject(new Error(`the site exited (${code}) before it was ready`)));
      });

      // 1. The crawl, as a user runs it.
      process.stderr.write(`scale-run: crawling ${DOCUMENTS} documents on ${HOSTS} hosts into ${dir} ...\n`);
      crawl = must('crawl', await cli(['crawl', seed, '--data', dir, '--proxy', proxy, '--allow-private', '--delay', '0', '--per-host', '4', '--concurrency', '64',
        '--depth', '1000000', '--domain', 'lod.test', '--no-vocabularies', '--json', ...(flag('--no-live-index') ? ['--no-live-index'] : []), ...(option('--frontier-memory') ? ['--frontier-memory', option('--frontier-memory')!] : [])], {}, PROFILE_CRAWL ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_CRAWL)}`] : []));
      if (crawl.code !== 0) throw new Error(`the crawl failed: ${crawl.stderr.slice(-2000)}`);
      server!.stdin!.end();
      if (flag('--crawl-only')) {
        // The archive as input for later runs (--archive DIR --crawled …, or the PostgreSQL half): nothing else measured.
        process.stderr.write(`scale-run: crawled; go on with --archive ${dir} --crawled ${crawl.seconds.toFixed(1)},${crawl.cpuSeconds.toFixed(1)},${crawl.rssMb.toFixed(0)},${(JSON.parse(crawl.stdout) as { documents: number }).documents} (frontier: ${JSON.stringify((JSON.parse(crawl.stdout) as { frontier?: unknown }).frontier)})\n`);
        return;
      }
    }
    const summary = JSON.parse(crawl.stdout) as { documents: number; triples: number };
    const { versions, logRows, tripleVersions } = await crawlLogFigures(dir);
    const pagesPerS = summary.documents / crawl.seconds;
    // What the live index said at the end (its last catch-up, and a compaction of its read indexes if it made one).
    const indexLine = /version index kept current:.*$/m.exec(crawl.stderr)?.[0];
    if (indexLine) process.stderr.write(`scale-run: crawl: ${indexLine}\n`);
    // And the metadata file's rewrite, when the crawl left enough of it empty (src/store/compact.ts).
    const metaLine = /metadata store (?:rewritten whole in|not rewritten).*$/m.exec(crawl.stderr)?.[0];
    if (metaLine) process.stderr.write(`scale-run: crawl: ${metaLine}\n`);
    const liveIndex = !flag('--no-live-index') && !ARCHIVE;
    row(`\`crawl --delay 0${flag('--no-live-index') ? ' --no-live-index' : ''}\` (site and proxy in another process${liveIndex ? '; its live index, the default, included: the crawl ends when the index is current' : ''})${ARCHIVE ? '; figures of the run that crawled it' : ''}`, crawl, `${summary.documents.toLocaleString('en')} pages, ${versions.length.toLocaleString('en')} versions: **${pagesPerS.toFixed(0)} pages/s**, ${(summary.documents / crawl.cpuSeconds).toFixed(0)} pages per CPU-s${indexLine ? `; ${indexLine.replace(/ \(.*?\)/, '')}` : ''}${metaLine ? `; ${metaLine}` : ''}`);
    Object.assign(result, { crawl: { ...crawl, stdout: undefined, stderr: undefined, pages: summary.documents, versions: versions.length, triples: summary.triples, logRows, tripleVersions } });

    // 2. The index catch-up the first query would wait for.
    const idx = must('index catch-up', await child(['--child', 'catch-up', '--dir', dir]));
    if (idx.code !== 0) throw new Error(`the catch-up failed: ${idx.stderr.slice(-2000)}`);
    const c = JSON.parse(idx.stdout.trim().split('\n').at(-1)!) as { versions: number; quadRows: number; bulk: boolean; failed: number };
    const vps = c.versions / idx.seconds;
    row(`index catch-up (${c.versions === 0 ? 'nothing left: the crawl kept the index current' : c.bulk ? 'bulk' : 'row by row'}, src/query/catch-up.ts)`, idx, `${c.versions.toLocaleString('en')} versions${c.failed ? ` (${c.failed} failed)` : ''}, ${c.quadRows.toLocaleString('en')} quad rows: **${vps.toFixed(0)} versions/s, ${(vps / pagesPerS).toFixed(2)}× the crawl's pages/s**; ${(c.versions / idx.cpuSeconds).toFixed(0)} versions per CPU-s`);
    Object.assign(result, { index: { ...idx, stdout: undefined, stderr: undefined, ...c } });

    // 3. Selective queries at three instants: a quarter, half and all of the versions captured.
    const instants = [0.25, 0.5, 1].map((f) => versions[Math.max(0, Math.ceil(versions.length * f) - 1)]!.time);
    const docIndex = (url: string) => Number(/\/doc\/(\d+)$/.exec(url)?.[1] ?? NaN);
    const hostOf = (url: string) => new URL(url).host;
    const subjectsAt = (t: number, k: number, salt: number) => {
      const before = versions.filter((v) => v.time <= t && Number.isFinite(docIndex(v.url)));
      return Array.from({ length: k }, (_, j) => {
        const v = before[(j * 7919 + salt * 104_729) % before.length]!;
        return `http://${hostOf(v.url)}/id/${docIndex(v.url)}`;
      });
    };
    const queryRows: string[] = [];
    const cliByInstant: Array<{ at: string; ms: ReturnType<typeof stat>; cpu: ReturnType<typeof stat>; rssMb: number; answered: number }> = [];
    for (const [n, at] of CLI_RUNS > 0 ? instants.entries() : []) {
      const iso = new Date(at).toISOString();
      const runs: Measured[] = [];
      for (const iri of subjectsAt(at, CLI_RUNS, n)) {
        runs.push(must(`query at ${iso}`, await cli(['query', '--data', dir, '--at', iso, '--json', `${PREFIX}SELECT ?label WHERE { <${iri}> rdfs:label ?label }`])));
      }
      const answered = runs.filter((r) => r.code === 0 && r.stdout.includes('Resource')).length;
      const w = stat(runs.map((r) => r.seconds * 1000));
      const cpu = stat(runs.map((r) => r.cpuSeconds * 1000));
      const rss = Math.max(...runs.map((r) => r.rssMb));
      cliByInstant.push({ at: iso, ms: w, cpu, rssMb: rss, answered });
      queryRows.push(`| \`datamonitor query --at ${iso}\` (${['a quarter', 'half', 'all'][n]} of the versions captured) | ${runs.length} | ${w.median.toFixed(0)} ms | ${w.p95.toFixed(0)} ms | ${cpu.median.toFixed(0)} ms | ${rss.toFixed(0)} MB | ${answered}/${runs.length} answered |`);
    }
    const plan = path.join(dir, 'warm-plan.json');
    const work = instants.flatMap((at, n) => subjectsAt(at, WARM_RUNS, n + 3).map((iri) => ({ at, iri })));
    fs.writeFileSync(plan, JSON.stringify(work));
    const warm = must('warm queries + COUNT', await child(['--child', 'warm', '--dir', dir, '--plan', plan, ...(flag('--no-diff') ? ['--no-diff'] : [])]));
    let warmJson: {
      runs: Array<{ at: number; ms: number; rows: number; plan?: string }>; countMs: number; count: string; rssSelectiveMb: number; rssCountsMb: number;
      counts: Array<{ query: string; at: number; ms: number; cpuMs: number; plan?: string; value?: string }>;
      diff: { at: number; compared: number; equal: number; differences: string[]; snapshotMs: number; snapshotQuads: number };
    } | undefined;
    if (warm.code === 0) warmJson = JSON.parse(warm.stdout.trim().split('\n').at(-1)!);
    for (const [n, at] of instants.entries()) {
      const rs = warmJson?.runs.filter((r) => r.at === at) ?? [];
      const s = stat(rs.map((r) => r.ms));
      queryRows.push(`| warm process (runQuery on the open index), ${['a quarter', 'half', 'all'][n]} | ${rs.length} | ${s.median.toFixed(1)} ms | ${s.p95.toFixed(1)} ms | | ${n === 0 && warmJson ? `${warmJson.rssSelectiveMb.toFixed(0)} MB (the process after its selective queries)` : ''} | plan: ${[...new Set(rs.map((r) => r.plan))].join(', ')}; ${rs.filter((r) => r.rows > 0).length}/${rs.length} answered |`);
    }
    Object.assign(result, { queries: { cli: cliByInstant, warm: warmJson?.runs, warmRssMb: warm.rssMb } });

    // 4. Unselective counts: the CLI with its default limits, the warm process through the planner, and there the whole snapshot's answers compared.
    const count = must('COUNT', await cli(['query', '--data', dir, '--at', new Date(instants[2]!).toISOString(), '--json', COUNT_ALL]));
    const counted = /"n"\s*:\s*\{[^}]*"value"\s*:\s*"(\d+)"/.exec(count.stdout)?.[1];
    queryRows.push(`| \`datamonitor query '${COUNT_ALL}'\` (default limits) | 1 | ${(count.seconds * 1000).toFixed(0)} ms | | ${(count.cpuSeconds * 1000).toFixed(0)} ms | ${count.rssMb.toFixed(0)} MB | ${count.code === 0 ? `${counted ?? '?'} triples` : `exit ${count.code}: ${count.stderr.trim().split('\n').at(-1)?.slice(0, 200)}`} |`);
    const countP = must('COUNT of a predicate', await cli(['query', '--data', dir, '--at', new Date(instants[2]!).toISOString(), '--json', COUNTS[1]!]));
    const countedP = /"n"\s*:\s*\{[^}]*"value"\s*:\s*"(\d+)"/.exec(countP.stdout)?.[1];
    queryRows.push(`| \`datamonitor query 'SELECT (COUNT(*) AS ?n) WHERE { ?s rdfs:label ?o }'\` (default limits) | 1 | ${(countP.seconds * 1000).toFixed(0)} ms | | ${(countP.cpuSeconds * 1000).toFixed(0)} ms | ${countP.rssMb.toFixed(0)} MB | ${countP.code === 0 ? `${countedP ?? '?'} labels` : `exit ${countP.code}: ${countP.stderr.trim().split('\n').at(-1)?.slice(0, 200)}`} |`);
    for (const c of warmJson?.counts ?? []) {
      queryRows.push(`| warm process: \`${c.query.replace(PREFIX, '')}\` at ${c.at === instants[2] ? 'the end' : 'a quarter'} | 1 | ${c.ms.toFixed(0)} ms | | ${c.cpuMs.toFixed(0)} ms | | plan: ${c.plan}; ${c.value} |`);
    }
    if (warmJson && warmJson.diff.compared > 0) {
      const d = warmJson.diff;
      queryRows.push(`| warm process: the same selective queries and counts at a quarter from the whole snapshot (plan: snapshot) | ${d.compared} | ${d.snapshotMs.toFixed(0)} ms (the first: loads ${d.snapshotQuads.toLocaleString('en')} quads) | | | ${warm.rssMb.toFixed(0)} MB (whole child, with the snapshot) | **${d.equal}/${d.compared} equal bytes** |`);
    }
    Object.assign(result, { count: { seconds: count.seconds, cpuSeconds: count.cpuSeconds, rssMb: count.rssMb, code: count.code, counted, warmMs: warmJson?.countMs, predicate: { seconds: countP.seconds, cpuSeconds: countP.cpuSeconds, rssMb: countP.rssMb, code: countP.code, counted: countedP }, warm: warmJson?.counts, diff: warmJson?.diff } });

    // 5. Whole-archive reads.
    const reads: Array<[string, Measured]> = [];
    if (!flag('--skip-reads')) reads.push(['`stats --json`', must('stats', await cli(['stats', '--data', dir, '--json']))]);
    if (!flag('--skip-reads')) reads.push(['CDX domain query paged to its end over HTTP + dashboard overview reads (src/server/cdx-probe.ts)', must('probe', await timed([process.execPath, RUN_TS, path.join(ROOT, 'src/server/cdx-probe.ts'), dir, '10000']))]);
    const warcOut = path.join(os.tmpdir(), `dm-scale-run-export-${process.pid}.warc.gz`);
    if (!flag('--skip-reads')) reads.push(['`export --format warc`', must('export warc', await cli(['export', '--data', dir, '--format', 'warc', '-o', warcOut]))]);
    fs.rmSync(warcOut, { force: true });
    for (const [name, m] of reads) row(name, m);
    Object.assign(result, { reads: Object.fromEntries(reads.map(([n, m]) => [n, { seconds: m.seconds, cpuSeconds: m.cpuSeconds, rssMb: m.rssMb, code: m.code }])) });

    // 6. Disk.
    const warcBytes = dirBytes(dir, (f) => /\.warc(\.gz)?$/.test(f));
    const metaBytes = dirBytes(dir, (f) => /^meta\.sqlite/.test(path.basename(f)));
    const indexBytes = dirBytes(dir, (f) => /^versions\.sqlite/.test(path.basename(f)));
    const total = dirBytes(dir, (f) => !f.endsWith('warm-plan.json'));
    const per = (b: number) => (b / tripleVersions).toFixed(1);
    Object.assign(result, { disk: { warcBytes, metaBytes, indexBytes, total, tripleVersions }, loadAverage: loads });

    const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
    const l = stat(loads);
    writeReport(`scale-run-${DOCUMENTS}`, result, {
      title: `Scale run: ${DOCUMENTS.toLocaleString('en')} documents on ${HOSTS} hosts`,
      command: `Command: \`node bin/run-ts.mjs bench/scale-run.bench.ts --documents ${DOCUMENTS} --hosts ${HOSTS}\`, ${result.started}. ${os.cpus().length} cores shared with other engineers' work (load average median ${l.median?.toFixed(1)}, p95 ${l.p95?.toFixed(1)} during the run): wall times are each process's share of the cores; CPU seconds and RSS are the steadier figures.`,
      archive: `Archive: ${summary.documents.toLocaleString('en')} pages crawled, ${logRows.toLocaleString('en')} log rows, ${versions.length.toLocaleString('en')} versions, ${tripleVersions.toLocaleString('en')} triple-versions.`,
      rows, queryRows,
      disk: `Disk: ${mb(total)} in all, **${per(total)} bytes per triple-version**: WARC files ${mb(warcBytes)} (${per(warcBytes)} B), crawl log (meta.sqlite) ${mb(metaBytes)} (${per(metaBytes)} B), version index (versions.sqlite) ${mb(indexBytes)} (${per(indexBytes)} B).`,
    });
  } finally {
    clearInterval(loadTimer);
    server?.stdin?.end();
    if (flag('--keep') || flag('--crawl-only') || ARCHIVE) process.stderr.write(`scale-run: archive kept in ${dir}\n`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- the PostgreSQL half

/** The crawl log of DIR (meta.sqlite) into the schema of `url`, in log order: what workers would have left. */
async function pgLogChild(dataDir: string, url: string): Promise<void> {
  const { SqliteStore } = await import('../src/store/sqlite.ts');
  const { PostgresStore } = await import('../src/store/postgres.ts');
  const from = new SqliteStore(path.join(dataDir, 'meta.sqlite'), { readonly: true });
  await from.init();
  // Group commit (pg-batch.ts), one batch a page awaited before the next: a row a round trip took an hour at load 40.
  const to = new PostgresStore(url, { batch: { pages: 1_000, waitMs: 1_000 } });
  await to.init();
  let rows = 0;
  // The order compared by a digest of it: two lists of 3,000,000 strings took this child to 2.6 GB at 1 M documents.
  const order = createHash('sha256');
  for (let since = 0; ;) {
    const page = await from.log({ sinceId: since, limit: 1_000 });
    if (page.length === 0) break;
    await Promise.all(page.map(({ id: _id, ...e }) => to.logFetch(e, {})));
    for (const e of page) order.update(`${e.time} ${e.url}\n`);
    since = page.at(-1)!.id!;
    rows += page.length;
    process.stderr.write(`\rcrawl log into PostgreSQL: ${rows}   `);
  }
  await from.close();
  // The catch-up replays the log in id order: it must be the crawl's.
  const copied = createHash('sha256');
  for (let since = 0; ;) {
    const page = await to.log({ sinceId: since, limit: 5_000 });
    if (page.length === 0) break;
    for (const e of page) copied.update(`${e.time} ${e.url}\n`);
    since = page.at(-1)!.id!;
  }
  await to.close();
  if (copied.digest('hex') !== order.digest('hex')) throw new Error('the crawl log in PostgreSQL is not in the crawl\'s order');
  process.stdout.write(JSON.stringify({ rows }) + '\n');
}

/**
 * The PostgreSQL half of the scale run on an archive crawled by main() (kept with --keep): the same steps 2-4
 * and the disk, with the crawl log and the versioned store in PostgreSQL. The crawl itself is not repeated:
 * its figures are SQLite's run's, and the index and the queries are what differ.
 */
async function pgMain(): Promise<void> {
  const dir = option('--data');
  if (!dir || !fs.existsSync(path.join(dir, 'meta.sqlite'))) throw new Error('--pg needs --data DIR: an archive this bench crawled and kept (--keep)');
  const given = option('--pg');
  const { pgBaseUrl, isolatedSchemaUrl, dropSchema } = await import('../test/store/pg.ts');
  const base = given && !given.startsWith('--') ? given : await pgBaseUrl();
  if (!base) throw new Error('PostgreSQL is not reachable: start it on 127.0.0.1:5432 (database test) or give --pg URL');
  const url = isolatedSchemaUrl(base, 'dm_scale_run');
  const started = new Date().toISOString();
  const loads: number[] = [];
  const loadTimer = setInterval(() => loads.push(os.loadavg()[0]), 10_000);
  const rows: string[] = [];
  const row = (name: string, m: Measured, extra = '') => rows.push(`| ${name} | ${m.seconds.toFixed(1)} | ${m.cpuSeconds.toFixed(1)} | ${m.rssMb.toFixed(0)} | ${m.code === 0 ? '' : `exit ${m.code} `}${extra} |`);
  const result: Record<string, unknown> = { documents: DOCUMENTS, hosts: HOSTS, dir, started, postgres: true };
  try {
    const { versions, logRows, tripleVersions } = await crawlLogFigures(dir);

    const moved = must('crawl log into PostgreSQL', await child(['--child', 'pg-log', '--dir', dir, '--db', url]));
    if (moved.code !== 0) throw new Error(`moving the log failed: ${moved.stderr.slice(-2000)}`);
    row('crawl log moved into PostgreSQL, 1,000 rows a transaction in log order (setup, not a figure of the index)', moved, `${logRows.toLocaleString('en')} log rows`);

    const idx = must('index catch-up into PostgreSQL', await child(['--child', 'pg-catch-up', '--dir', dir, '--db', url]));
    if (idx.code !== 0) throw new Error(`the catch-up failed: ${idx.stderr.slice(-2000)}`);
    const c = JSON.parse(idx.stdout.trim().split('\n').at(-1)!) as { versions: number; quadRows: number; bulk: boolean; failed: number };
    row(`index catch-up into PostgreSQL (${c.bulk ? 'bulk' : 'row by row'}, src/query/catch-up.ts)`, idx, `${c.versions.toLocaleString('en')} versions${c.failed ? ` (${c.failed} failed)` : ''}, ${c.quadRows.toLocaleString('en')} quad rows: **${(c.versions / idx.seconds).toFixed(0)} versions/s**; ${(c.versions / idx.cpuSeconds).toFixed(0)} versions per CPU-s of this process (PostgreSQL's own CPU not counted)`);
    Object.assign(result, { index: { ...idx, stdout: undefined, stderr: undefined, ...c } });

    // The same instants and subjects as main()'s (same log, same salts).
    const instants = [0.25, 0.5, 1].map((f) => versions[Math.max(0, Math.ceil(versions.length * f) - 1)]!.time);
    const docIndex = (u: string) => Number(/\/doc\/(\d+)$/.exec(u)?.[1] ?? NaN);
    const subjectsAt = (t: number, k: number, salt: number) => {
      const before = versions.filter((v) => v.time <= t && Number.isFinite(docIndex(v.url)));
      return Array.from({ length: k }, (_, j) => {
        const v = before[(j * 7919 + salt * 104_729) % before.length]!;
        return `http://${new URL(v.url).host}/id/${docIndex(v.url)}`;
      });
    };
    const queryRows: string[] = [];
    const cliByInstant: unknown[] = [];
    for (const [n, at] of instants.entries()) {
      const iso = new Date(at).toISOString();
      const runs: Measured[] = [];
      for (const iri of subjectsAt(at, CLI_RUNS, n)) {
        runs.push(must(`query --db at ${iso}`, await cli(['query', '--data', dir, '--db', url, '--at', iso, '--json', `${PREFIX}SELECT ?label WHERE { <${iri}> rdfs:label ?label }`])));
      }
      const answered = runs.filter((r) => r.code === 0 && r.stdout.includes('Resource')).length;
      const w = stat(runs.map((r) => r.seconds * 1000));
      const cpu = stat(runs.map((r) => r.cpuSeconds * 1000));
      const rss = Math.max(...runs.map((r) => r.rssMb));
      cliByInstant.push({ at: iso, ms: w, cpu, rssMb: rss, answered });
      queryRows.push(`| \`datamonitor query --db postgres://… --at ${iso}\` (${['a quarter', 'half', 'all'][n]} of the versions captured) | ${runs.length} | ${w.median.toFixed(0)} ms | ${w.p95.toFixed(0)} ms | ${cpu.median.toFixed(0)} ms | ${rss.toFixed(0)} MB | ${answered}/${runs.length} answered |`);
    }
    const plan = path.join(os.tmpdir(), `dm-scale-run-pg-plan-${process.pid}.json`);
    fs.writeFileSync(plan, JSON.stringify(instants.flatMap((at, n) => subjectsAt(at, WARM_RUNS, n + 3).map((iri) => ({ at, iri })))));
    const warm = must('warm queries + COUNT on PostgreSQL', await child(['--child', 'warm', '--dir', dir, '--plan', plan, '--db', url, ...(flag('--no-diff') ? ['--no-diff'] : [])]));
    fs.rmSync(plan, { force: true });
    let warmJson: { runs: Array<{ at: number; ms: number; rows: number; plan?: string; trips: number }>; countMs: number; count: string } | undefined;
    if (warm.code === 0) warmJson = JSON.parse(warm.stdout.trim().split('\n').at(-1)!);
    for (const [n, at] of instants.entries()) {
      const rs = warmJson?.runs.filter((r) => r.at === at) ?? [];
      const st = stat(rs.map((r) => r.ms));
      const trips = stat(rs.map((r) => r.trips));
      queryRows.push(`| warm process (runQuery on the open PgVersionArchive), ${['a quarter', 'half', 'all'][n]} | ${rs.length} | ${st.median.toFixed(1)} ms | ${st.p95.toFixed(1)} ms | | ${n === 0 ? `${warm.rssMb.toFixed(0)} MB (whole child, with the COUNT)` : ''} | plan: ${[...new Set(rs.map((r) => r.plan))].join(', ')}; ${rs.filter((r) => r.rows > 0).length}/${rs.length} answered; ${trips.median} round trips a query (median) |`);
    }
    Object.assign(result, { queries: { cli: cliByInstant, warm: warmJson?.runs, warmRssMb: warm.rssMb } });

    const count = must('COUNT --db', await cli(['query', '--data', dir, '--db', url, '--at', new Date(instants[2]!).toISOString(), '--json', COUNT_ALL]));
    const counted = /"n"\s*:\s*\{[^}]*"value"\s*:\s*"(\d+)"/.exec(count.stdout)?.[1];
    queryRows.push(`| \`datamonitor query --db postgres://… '${COUNT_ALL}'\` (default limits) | 1 | ${(count.seconds * 1000).toFixed(0)} ms | | ${(count.cpuSeconds * 1000).toFixed(0)} ms | ${count.rssMb.toFixed(0)} MB | ${count.code === 0 ? `${counted ?? '?'} triples` : `exit ${count.code}: ${count.stderr.trim().split('\n').at(-1)?.slice(0, 200)}`} |`);
    if (warmJson) queryRows.push(`| the same COUNT in the warm process (no limits) | 1 | ${warmJson.countMs.toFixed(0)} ms | | | (above) | ${/"value":"(\d+)"/.exec(warmJson.count)?.[1] ?? warmJson.count.slice(0, 80)} |`);
    Object.assign(result, { count: { seconds: count.seconds, cpuSeconds: count.cpuSeconds, rssMb: count.rssMb, code: count.code, counted, warmMs: warmJson?.countMs } });

    // Disk: the WARC files stay on disk; the crawl log and the index are PostgreSQL relations (tables, indexes, TOAST).
    const pgm = await import('pg');
    const client = new pgm.default.Client({ connectionString: base });
    await client.connect();
    const schema = new URL(url).searchParams.get('schema')!;
    const sizes = (await client.query<{ index: boolean; bytes: string }>(
      `SELECT c.relname LIKE 'vs\\_%' AS index, sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind = 'r' GROUP BY 1`, [schema])).rows;
    await client.end();
    const warcBytes = dirBytes(dir, (f) => /\.warc(\.gz)?$/.test(f));
    const logBytes = Number(sizes.find((r) => !r.index)?.bytes ?? 0);
    const indexBytes = Number(sizes.find((r) => r.index)?.bytes ?? 0);
    const total = warcBytes + logBytes + indexBytes;
    const per = (b: number) => (b / tripleVersions).toFixed(1);
    const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
    Object.assign(result, { disk: { warcBytes, logBytes, indexBytes, total, tripleVersions }, loadAverage: loads });

    const l = stat(loads);
    writeReport(`scale-run-pg-${DOCUMENTS}`, result, {
      title: `Scale run on PostgreSQL: ${DOCUMENTS.toLocaleString('en')} documents on ${HOSTS} hosts`,
      command: `Command: \`node bin/run-ts.mjs bench/scale-run.bench.ts --pg --data DIR --documents ${DOCUMENTS} --hosts ${HOSTS}\` (DIR: the archive crawled by this bench's step 1 at that size), ${started}. PostgreSQL on 127.0.0.1, same machine; ${os.cpus().length} cores shared with other engineers' work (load average median ${l.median?.toFixed(1)}, p95 ${l.p95?.toFixed(1)} during the run).`,
      archive: `Archive: ${logRows.toLocaleString('en')} log rows, ${versions.length.toLocaleString('en')} versions, ${tripleVersions.toLocaleString('en')} triple-versions.`,
      rows, queryRows,
      disk: `Disk: ${mb(total)} in all, **${per(total)} bytes per triple-version**: WARC files ${mb(warcBytes)} (${per(warcBytes)} B), crawl log (PostgreSQL tables and indexes) ${mb(logBytes)} (${per(logBytes)} B), version index (vs_* tables and indexes) ${mb(indexBytes)} (${per(indexBytes)} B).`,
    });
  } finally {
    clearInterval(loadTimer);
    await dropSchema(url).catch(() => undefined);
  }
}

const kind = option('--child');
if (kind === 'web') await serveWeb();
else if (kind === 'catch-up') await catchUpChild(option('--dir')!);
else if (kind === 'pg-log') await pgLogChild(option('--dir')!, option('--db')!);
else if (kind === 'pg-catch-up') await catchUpChild(option('--dir')!, option('--db')!);
else if (args.includes('--pg')) await pgMain();
else if (kind === 'warm') await warmChild(option('--dir')!, option('--plan')!);
else if (args.length >= 0) await main();

/** The markdown of one run (both stores print the same tables), printed, and its figures in bench/out/NAME.json. */
function writeReport(name: string, result: unknown, r: { title: string; command: string; archive: string; rows: string[]; queryRows: string[]; disk: string }): void {
  const report = [
    `## ${r.title}`, '', r.command, '', r.archive, '',
    '| command (own process) | wall s | CPU s | peak RSS MB | figures |',
    '| --- | ---: | ---: | ---: | --- |',
    ...r.rows, '',
    '| query | runs | wall median | wall p95 | CPU median | peak RSS | answers |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
    ...r.queryRows, '', r.disk,
  ].join('\n');
  fs.mkdirSync(path.join(ROOT, 'bench/out'), { recursive: true });
  fs.writeFileSync(path.join(ROOT, `bench/out/${name}.json`), JSON.stringify(result, null, 1));
  process.stdout.write(report + '\n');
}

/** The crawl's versions (time order), log rows and triple-versions, read from the SQLite crawl log of `dir`. */
async function crawlLogFigures(dir: string): Promise<{ versions: Array<{ time: number; url: string; triples: number }>; logRows: number; tripleVersions: number }> {
  const { default: Database } = await import('better-sqlite3');
  const meta = new Database(path.join(dir, 'meta.sqlite'), { readonly: true });
  try {
    const versions = meta.prepare<[], { time: number; url: string; triples: number }>('SELECT time, url, triples FROM crawl_log WHERE rdf_offset IS NOT NULL ORDER BY time, id').all();
    const logRows = (meta.prepare('SELECT count(*) AS n FROM crawl_log').get() as { n: number }).n;
    return { versions, logRows, tripleVersions: versions.reduce((n, v) => n + v.triples, 0) };
  } finally {
    meta.close();
  }
}
