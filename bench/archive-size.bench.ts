/**
 * The size of the version index against the WARC files it is derived from (issue #32 item 3), and what its
 * layout costs the reads: the same scale archive (src/testkit/scale-archive.ts: the generated Linked Data Web,
 * ~35 triples and a blank node a document, a changed second version of every tenth, a 404 of every hundredth)
 * indexed by this tree and by a checkout of another commit (`--base`), alternated in one run:
 *   - bytes of each structure of versions.sqlite (SQLite's dbstat), of meta.sqlite and of the WARC files;
 *   - the catch-up from nothing (the first query's wait on a new archive), wall and CPU;
 *   - selective queries at a past instant (a resource's labels; the subjects of a label; everything said of
 *     a resource), a different resource each time, in one warm process as a server's query process runs
 *     them: medians; and the diff between two instants (10 s; the whole log at up to 20,000 documents);
 *     answers compared byte for byte.
 *
 *   node bin/run-ts.mjs bench/archive-size.bench.ts --data DIR [--documents 20000] [--base DIR] [--runs 3] [--queries 60]
 *     --data   the scale archive (built there when missing); the indexes go to DIR-versions-{this,base}
 *     --base   a checkout of the commit to compare with (`git worktree add DIR COMMIT`, node_modules linked):
 *              this file is copied into it and run there, so each side runs its own store code
 *   node bin/run-ts.mjs bench/archive-size.bench.ts --child catch-up --data DIR --versions DIR2 --documents N [--read-thread true|false] [--batch-rows N]
 *              one catch-up from nothing (the archive must exist), as JSON: wall, CPU, bytes of each structure
 *   node bin/run-ts.mjs bench/archive-size.bench.ts --child changes --documents N
 *              the writer alone (the store's API, a new file): N generated documents, then two passes in which each
 *              changes one triple; the seconds each pass spends writing (parsing apart), as JSON. What a changed
 *              document costs the writer, which reads its open rows back (run it in each tree to compare)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { option } from './args.ts';

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..');
const DOCUMENTS = Number(option('--documents') ?? 20_000);
const T0 = Date.UTC(2026, 0, 1);
/** After the first crawl, before the changed versions and the 404s. */
const AT = T0 + 14 * DOCUMENTS + 3;

interface CatchUpRow { seconds: number; cpuSeconds: number; versions: number; bytes: Record<string, number>; fileBytes: number }
interface QueryRow { medians: Record<string, number>; answers: string }

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]!; };
const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

async function catchUpChild(data: string, versionsDir: string): Promise<void> {
  const { openStore } = await import('../src/store/index.ts');
  const { openVersionStore, catchUpVersions } = await import('../src/query/index.ts');
  const { default: Database } = await import('better-sqlite3');
  fs.rmSync(versionsDir, { recursive: true, force: true });
  fs.mkdirSync(versionsDir, { recursive: true });
  // The index in a directory of its own, the crawl log and WARC files read where they are.
  for (const f of ['meta.sqlite', 'warc']) fs.symlinkSync(path.join(data, f), path.join(versionsDir, f));
  const store = await openStore(versionsDir, undefined, { readonly: true });
  await store.init();
  const archive = openVersionStore(versionsDir);
  const t0 = performance.now();
  const c0 = cpuNow();
  // `--read-thread false`, `--batch-rows N`: the catch-up's own options, to compare its ways in one tree.
  const readThread = option('--read-thread');
  const batchRows = option('--batch-rows');
  const r = await catchUpVersions(archive, store, versionsDir, {
    ...(readThread === undefined ? {} : { readThread: readThread === 'true' }),
    ...(batchRows === undefined ? {} : { batchRows: Number(batchRows) }),
  });
  const seconds = (performance.now() - t0) / 1000;
  const cpuSeconds = cpuNow() - c0;
  if (r.failed) throw new Error(`${r.failed} versions failed: ${r.diagnostics[0]}`);
  archive.checkpoint();
  await archive.close();
  await store.close();
  const file = path.join(versionsDir, 'versions.sqlite');
  const db = new Database(file, { readonly: true });
  const bytes = Object.fromEntries(db.prepare<[], { name: string; bytes: number }>('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name').all().map((x) => [x.name, x.bytes]));
  db.close();
  process.stdout.write(JSON.stringify({ seconds, cpuSeconds, versions: r.versions, bytes, fileBytes: fs.statSync(file).size } satisfies CatchUpRow) + '\n');
}

async function queryChild(versionsDir: string, queries: number): Promise<void> {
  const { openVersionStore, runQuery } = await import('../src/query/index.ts');
  const { linkedDataWeb } = await import('../src/testkit/linked-data-web.ts');
  const web = linkedDataWeb({ documents: DOCUMENTS, hosts: 10 });
  const archive = openVersionStore(versionsDir, { readonly: true });
  const label = '<http://www.w3.org/2000/01/rdf-schema#label>';
  const shapes: Record<string, (i: number) => string> = {
    'labels of a resource': (i) => `SELECT ?l WHERE { <${web.resource(i)}> ${label} ?l }`,
    'subjects of a label': (i) => `SELECT ?s WHERE { ?s ${label} "Resource ${i}"@en }`,
    'all of a resource': (i) => `SELECT ?p ?o WHERE { <${web.resource(i)}> ?p ?o }`,
  };
  const times: Record<string, number[]> = {};
  const bodies: string[] = [];
  // A few first queries warm the process (the engine's parser, SQLite's cache); not counted.
  for (let k = -5; k < queries; k++) {
    const i = Math.floor(((Math.abs(k) + 0.37) / (queries + 1)) * DOCUMENTS);
    for (const [name, text] of Object.entries(shapes)) {
      const t0 = performance.now();
      const r = await runQuery(archive, text(i), { at: AT });
      if (k >= 0) (times[name] ??= []).push(performance.now() - t0);
      if (k >= 0) bodies.push(r.body);
    }
  }
  // The diff over the whole log reads every row (18 s at 20,000 documents on a busy machine): once, and at that size only.
  const diffs: Array<[string, number, number, number]> = [['diff, 10 s', AT, AT + 10_000, 5]];
  if (DOCUMENTS <= 20_000) diffs.push(['diff, whole log', T0, T0 + 30 * DOCUMENTS, 1]);
  for (const [name, from, to, runs] of diffs) {
    for (let k = 0; k < runs; k++) {
      const t0 = performance.now();
      const d = archive.delta(from, to);
      (times[name] ??= []).push(performance.now() - t0);
      if (k === 0) bodies.push(JSON.stringify(d));
    }
  }
  await archive.close();
  const medians = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  process.stdout.write(JSON.stringify({ medians, answers: bodies.join('\n') } satisfies QueryRow) + '\n');
}

function runChild(tree: string, childArgs: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const self = path.join(tree, 'bench', path.basename(SELF));
    const p = spawn(process.execPath, [path.join(tree, 'bin/run-ts.mjs'), self, ...childArgs], { stdio: ['ignore', 'pipe', 'inherit'], cwd: tree });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('close', (code) => (code === 0 ? resolve(out.trim().split('\n').at(-1) ?? '') : reject(new Error(`child ${childArgs.join(' ')} in ${tree} exited ${code}`))));
  });
}

const duBytes = (p: string): number => {
  const st = fs.statSync(p);
  return st.isDirectory() ? fs.readdirSync(p).reduce((n, f) => n + duBytes(path.join(p, f)), 0) : st.size;
};
const mb = (n: number) => (n / 1e6).toFixed(1);
const ms = (n: number) => n.toFixed(2);

async function parent(): Promise<void> {
  const data = path.resolve(option('--data') ?? path.join(os.tmpdir(), `dm-archive-size-${DOCUMENTS}`));
  const base = option('--base') && path.resolve(option('--base')!);
  const runs = Number(option('--runs') ?? 3);
  const queries = Number(option('--queries') ?? 60);
  if (!fs.existsSync(path.join(data, 'meta.sqlite'))) {
    const { buildScaleArchive } = await import('../src/testkit/scale-archive.ts');
    process.stderr.write(`building a scale archive of ${DOCUMENTS} documents in ${data}…\n`);
    await buildScaleArchive({ dataDir: data, documents: DOCUMENTS, hosts: 10 });
  }
  if (base) fs.copyFileSync(SELF, path.join(base, 'bench', path.basename(SELF)));
  const sides: Array<[string, string]> = [['this', ROOT], ...(base ? [['base', base] as [string, string]] : [])];
  const loads: number[] = [os.loadavg()[0]];
  const catchUps: Record<string, CatchUpRow[]> = {};
  const reads: Record<string, QueryRow[]> = {};
  for (let r = 0; r < runs; r++) {
    // Alternated, so that the machine's load falls on both alike.
    for (const [name, tree] of r % 2 ? [...sides].reverse() : sides) {
      const dir = `${data}-versions-${name}`;
      process.stderr.write(`run ${r + 1}/${runs}: ${name}: catch-up…\n`);
      (catchUps[name] ??= []).push(JSON.parse(await runChild(tree, ['--child', 'catch-up', '--data', data, '--versions', dir, '--documents', String(DOCUMENTS)])));
      process.stderr.write(`run ${r + 1}/${runs}: ${name}: queries…\n`);
      (reads[name] ??= []).push(JSON.parse(await runChild(tree, ['--child', 'queries', '--versions', dir, '--queries', String(queries), '--documents', String(DOCUMENTS)])));
      loads.push(os.loadavg()[0]);
    }
  }
  const warc = duBytes(path.join(data, 'warc'));
  const meta = duBytes(path.join(data, 'meta.sqlite'));
  const names = sides.map(([n]) => n);
  const out: string[] = [];
  out.push(`### ${DOCUMENTS.toLocaleString('en')} documents (${new Date().toISOString().slice(0, 10)})`, '');
  out.push(`Command: \`node bin/run-ts.mjs bench/archive-size.bench.ts --data ${data} --documents ${DOCUMENTS}${base ? ` --base ${base}` : ''} --runs ${runs} --queries ${queries}\`; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} (2 cores, shared). WARC files ${mb(warc)} MB, meta.sqlite ${mb(meta)} MB.`, '');
  const structures = [...new Set(names.flatMap((n) => Object.keys(catchUps[n]![0]!.bytes)))].sort((a, b) => (catchUps[names[0]!]![0]!.bytes[b] ?? 0) - (catchUps[names[0]!]![0]!.bytes[a] ?? 0));
  out.push(`| structure | ${names.map((n) => `${n}: MB`).join(' | ')} |`, `| --- | ${names.map(() => '---:').join(' | ')} |`);
  for (const s of structures) out.push(`| ${s} | ${names.map((n) => mb(catchUps[n]![0]!.bytes[s] ?? 0)).join(' | ')} |`);
  out.push(`| **versions.sqlite** | ${names.map((n) => `**${mb(catchUps[n]![0]!.fileBytes)}**`).join(' | ')} |`);
  out.push(`| versions.sqlite ÷ WARC | ${names.map((n) => `${(catchUps[n]![0]!.fileBytes / warc).toFixed(2)}×`).join(' | ')} |`);
  out.push(`| (meta + versions) ÷ WARC | ${names.map((n) => `${((catchUps[n]![0]!.fileBytes + meta) / warc).toFixed(2)}×`).join(' | ')} |`);
  out.push(`| data directory ÷ WARC | ${names.map((n) => `${((catchUps[n]![0]!.fileBytes + meta + warc) / warc).toFixed(2)}×`).join(' | ')} |`, '');
  out.push(`| ${runs} runs each, medians | ${names.join(' | ')} |`, `| --- | ${names.map(() => '---:').join(' | ')} |`);
  out.push(`| catch-up from nothing: wall | ${names.map((n) => `${median(catchUps[n]!.map((c) => c.seconds)).toFixed(1)} s`).join(' | ')} |`);
  out.push(`| catch-up: CPU | ${names.map((n) => `${median(catchUps[n]!.map((c) => c.cpuSeconds)).toFixed(1)} s`).join(' | ')} |`);
  for (const q of Object.keys(reads[names[0]!]![0]!.medians)) {
    out.push(`| ${q}${q.startsWith('diff') ? '' : ' at T'} (median of ${q === 'diff, 10 s' ? 5 : q.startsWith('diff') ? 1 : queries} per run) | ${names.map((n) => `${ms(median(reads[n]!.map((x) => x.medians[q]!)))} ms`).join(' | ')} |`);
  }
  const same = names.every((n) => reads[n]!.every((x) => x.answers === reads[names[0]!]![0]!.answers));
  out.push('', `Answers (every query, both diffs) byte for byte the same on both sides and in every run: ${same ? 'yes' : 'NO'}.`, '');
  process.stdout.write(out.join('\n') + '\n');
}

async function changesChild(): Promise<void> {
  const { openVersionStore } = await import('../src/query/index.ts');
  const { linkedDataWeb } = await import('../src/testkit/linked-data-web.ts');
  const { Parser } = await import('n3');
  const web = linkedDataWeb({ documents: DOCUMENTS, hosts: 10 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-changes-'));
  const archive = openVersionStore(dir);
  const passes: number[] = [];
  try {
    for (let pass = 0; pass < 3; pass++) {
      let seconds = 0;
      for (let from = 0; from < DOCUMENTS; from += 500) {
        const batch = Array.from({ length: Math.min(500, DOCUMENTS - from) }, (_v, k) => {
          const i = from + k;
          // One triple changes a pass: the document's modification date.
          const text = pass === 0 ? web.turtle(i) : web.turtle(i).replace(/v:modified "[^"]*"/, `v:modified "2027-01-0${pass}T00:00:00Z"`);
          return [web.document(i), new Parser({ baseIRI: web.document(i) }).parse(text)] as const;
        });
        const t0 = performance.now();
        archive.writeTransaction(() => {
          for (const [k, [doc, quads]] of batch.entries()) archive.putVersionNow(doc, T0 + pass * 10_000_000 + from + k, quads);
        });
        seconds += (performance.now() - t0) / 1000;
      }
      passes.push(seconds);
    }
  } finally {
    await archive.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify({ documents: DOCUMENTS, firstVersions: passes[0], changedVersions: passes.slice(1) }) + '\n');
}

const mode = option('--child');
if (mode === 'catch-up') await catchUpChild(option('--data')!, option('--versions')!);
else if (mode === 'changes') await changesChild();
else if (mode === 'queries') await queryChild(option('--versions')!, Number(option('--queries')));
else await parent();
