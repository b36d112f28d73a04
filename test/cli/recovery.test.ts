/**
 * Recovering an archive whose SQLite files were damaged or lost (`datamonitor rebuild`), and reading an
 * archive this user may not write: real CLI processes on a real crawl of a changing site on 127.0.0.1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { EXIT } from '../../src/util/exit-codes.ts';
import { repoRoot, tempDir } from '../helpers.ts';
import { LOG_ROWS_SQL } from '../../src/store/warc-ids.ts';
import { serveCli } from '../server/serve-cli.ts';

interface Run { code: number | null; out: string; err: string }

const run = (args: string[], as: string[] = []) =>
  new Promise<Run>((resolve) => {
    const [cmd, ...pre] = as.length ? as : [process.execPath];
    const p = spawn(cmd!, [...pre, ...(as.length ? [process.execPath] : []), path.join(repoRoot, 'bin/datamonitor.mjs'), '--progress', 'none', ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => resolve({ code, out, err }));
  });

/**
 * Documents /doc/0../doc/5 linking each other, half of the links through /id/N (303 See Other to /doc/N);
 * /doc/0 and /doc/3 follow `round`, /doc/5 is gone (410) from round 2. /doc/4 is JSON-LD with a remote
 * context; /doc/2 varies on Accept, and as N-Triples says something its Turtle does not (for `--variants`).
 */
let round = 1;
function site(): Promise<TestServer> {
  return startServer((req, res, url) => {
    const id = /^\/id\/(\d)$/.exec(url.pathname)?.[1];
    if (id) return void (res.writeHead(303, { location: `/doc/${id}` }), res.end());
    if (url.pathname === '/ctx') {
      res.writeHead(200, { 'content-type': 'application/ld+json' });
      return void res.end(JSON.stringify({ '@context': { v: 'http://ex.org/v', name: 'http://ex.org/name', link: { '@id': 'http://ex.org/link', '@type': '@id' } } }));
    }
    const i = Number(/^\/doc\/(\d)$/.exec(url.pathname)?.[1] ?? -1);
    if (i < 0 || i > 5) return void (res.writeHead(404, { 'content-type': 'text/plain' }), res.end('not found'));
    if (i === 5 && round >= 2) return void (res.writeHead(410, { 'content-type': 'text/plain' }), res.end('gone'));
    if (i === 4) {
      res.writeHead(200, { 'content-type': 'application/ld+json' });
      return void res.end(JSON.stringify({ '@context': '/ctx', '@id': '#it', v: 0, name: 'doc 4', link: ['5', '../id/1'] }));
    }
    if (i === 2 && req.headers.accept === 'application/n-triples') {
      res.writeHead(200, { 'content-type': 'application/n-triples', vary: 'Accept' });
      return void res.end(`<${url.href}#it> <http://ex.org/name> "doc 2, as N-Triples" .\n`);
    }
    res.writeHead(200, { 'content-type': 'text/turtle', ...(i === 2 ? { vary: 'Accept' } : {}) });
    res.end(`<#it> <http://ex.org/v> ${i % 3 === 0 ? round : 0} ; <http://ex.org/name> "doc ${i}" ; <http://ex.org/link> <${(i + 1) % 6}>, <../id/${(i + 3) % 6}> .\n`);
  });
}

/** What a user can ask the archive: its captures, the graphs at instants, the export, a URL's CDX lines. */
async function answers(dataDir: string, instants: string[], doc: string) {
  const db = new Database(path.join(dataDir, 'meta.sqlite'), { readonly: true });
  const captures = db.prepare(`SELECT url, final_url, time, status, change, reason, checksum, graph_hash, triples, warc_file, warc_offset, warc_length,
    rdf_offset, rdf_length FROM (${LOG_ROWS_SQL}) WHERE warc_file IS NOT NULL ORDER BY time, url`).all() as Array<Record<string, unknown>>;
  // A representation (--variants) comes back as one, but not its comparison with the others (docs/recovery.md).
  for (const c of captures) if (/^variant/.test(String(c.reason))) Object.assign(c, { reason: 'variant*', graph_hash: undefined, triples: undefined });
  db.close();
  const at: string[] = [];
  for (const t of instants) {
    const q = await run(['query', '--data', dataDir, '--at', t, '--tsv', 'SELECT ?g ?s ?p ?o { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g ?s ?p ?o']);
    expect(q.code, q.err).toBe(0);
    at.push(q.out);
  }
  const exported = await run(['export', '--data', dataDir]);
  expect(exported.code, exported.err).toBe(0);
  const served = await serveCli(dataDir);
  let cdx: string;
  try {
    cdx = await (await fetch(`${served.info.url}/cdx?url=${encodeURIComponent(doc)}`)).text();
  } finally {
    await served.stop();
  }
  return { captures, at, exported: exported.out, cdx };
}

/** A copy of the archive (the WAL checkpointed into the file first, as after a clean close). */
function copyOf(dataDir: string): string {
  const db = new Database(path.join(dataDir, 'meta.sqlite'));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const copy = path.join(tempDir(), 'archive');
  fs.cpSync(dataDir, copy, { recursive: true });
  return copy;
}

const DAMAGED = /is damaged.*WARC files under .* are untouched.*datamonitor rebuild --data /s;

describe('a damaged or lost metadata store', () => {
  let server: TestServer;
  let dataDir: string;
  let original: Awaited<ReturnType<typeof answers>>;
  let instants: string[];

  beforeAll(async () => {
    server = await site();
    dataDir = path.join(tempDir(), 'archive');
    const doc = (i: number) => `${server.url}/doc/${i}`;
    const crawl = await run(['crawl', '--data', dataDir, '--allow-private', '--delay', '0', '--variants', doc(0)]);
    expect(crawl.code, crawl.err).toBe(0);
    const between = new Date(Date.now() + 50).toISOString();
    await new Promise((r) => setTimeout(r, 100)); // the second round's captures come after `between`
    round = 2;
    expect((await run(['add', '--data', dataDir, doc(0), doc(3), doc(5)])).code).toBe(0);
    expect((await run(['due', '--data', dataDir, '--all'])).code).toBe(0);
    const cycle = await run(['run', '--data', dataDir, '--allow-private', '--delay', '0']);
    expect(cycle.code, cycle.err).toBe(0);
    instants = [between, new Date(Date.now() + 1000).toISOString()];
    original = await answers(dataDir, instants, doc(0));
    expect(original.captures.some((c: any) => c.change === 'changed')).toBe(true);
    expect(original.captures.some((c: any) => c.status === 410)).toBe(true);
    expect(original.captures.some((c: any) => c.status === 303)).toBe(true);
    expect(original.captures.some((c: any) => c.reason === 'variant*')).toBe(true);
    expect(original.captures.some((c: any) => c.url.endsWith('/ctx'))).toBe(true);
    expect(original.cdx).toContain('/doc/0');
    expect(original.at[0]).not.toBe(original.at[1]);
  }, 180_000);
  afterAll(() => server?.close());

  it('is reported as a damaged file, not a bug, by every command; rebuild makes it again with the same answers', async () => {
    const copy = copyOf(dataDir);
    const meta = path.join(copy, 'meta.sqlite');
    fs.truncateSync(meta, 8192);
    const seen = await Promise.all([['stats'], ['verify'], ['log'], ['query', 'ASK {}']].map((a) => run([...a, '--data', copy])));
    for (const r of seen) {
      expect(r.code, r.err).toBe(EXIT.noInput);
      expect(r.err).toMatch(DAMAGED);
      expect(r.err).toContain(meta);
      expect(r.err).not.toMatch(/unexpected error|a bug/);
    }
    const damagedBytes = fs.readFileSync(meta);

    const rebuilt = await run(['rebuild', '--data', copy]);
    expect(rebuilt.code, rebuilt.err).toBe(0);
    expect(rebuilt.out).toMatch(/moved aside: meta\.sqlite -> meta\.sqlite\.damaged-\d{8}T\d{6}/);
    expect(rebuilt.out).toMatch(/not rebuilt.*monitored URLs/s);
    const aside = fs.readdirSync(copy).find((f) => /^meta\.sqlite\.damaged-\d{8}T\d{6}$/.test(f))!;
    expect(fs.readFileSync(path.join(copy, aside)).equals(damagedBytes)).toBe(true);

    expect(await answers(copy, instants, `${server.url}/doc/0`)).toEqual(original);
    const verify = await run(['verify', '--data', copy]);
    expect(verify.code, verify.out + verify.err).toBe(0);
  }, 180_000);

  it('a lost meta.sqlite, an emptied one, or one overwritten in the middle: the same', async () => {
    const lost = copyOf(dataDir);
    for (const f of fs.readdirSync(lost)) if (f.startsWith('meta.sqlite')) fs.rmSync(path.join(lost, f));
    const emptied = copyOf(dataDir);
    fs.truncateSync(path.join(emptied, 'meta.sqlite'), 0);
    const garbled = copyOf(dataDir);
    const fd = fs.openSync(path.join(garbled, 'meta.sqlite'), 'r+');
    fs.writeSync(fd, Buffer.alloc(4096 * 3, 0x5a), 0, 4096 * 3, 4096);
    fs.closeSync(fd);

    for (const dir of [emptied, garbled]) {
      const stats = await run(['stats', '--data', dir]);
      expect(stats.code, stats.err).toBe(EXIT.noInput);
      expect(stats.err).toMatch(DAMAGED);
    }
    for (const dir of [lost, emptied, garbled]) {
      const r = await run(['rebuild', '--data', dir]);
      expect(r.code, r.err).toBe(0);
      const q = await run(['query', '--data', dir, '--at', instants[1]!, '--tsv', 'SELECT ?g ?s ?p ?o { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g ?s ?p ?o']);
      expect(q.out).toBe(original.at[1]);
    }
  }, 180_000);

  it('a damaged versions.sqlite alone: named, and rebuilt from the crawl log, which is kept', async () => {
    const copy = copyOf(dataDir);
    const versions = path.join(copy, 'versions.sqlite');
    const db = new Database(versions);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const fd = fs.openSync(versions, 'r+');
    fs.writeSync(fd, Buffer.alloc(fs.statSync(versions).size - 4096, 0x5a), 0, undefined, 4096);
    fs.closeSync(fd);
    const q = await run(['query', '--data', copy, 'ASK { GRAPH ?g { ?s ?p ?o } }']);
    expect(q.code, q.err).toBe(EXIT.noInput);
    expect(q.err).toMatch(DAMAGED);
    expect(q.err).toContain(versions);

    const metaBefore = fs.readFileSync(path.join(copy, 'meta.sqlite'));
    const r = await run(['rebuild', '--data', copy]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/moved aside: versions\.sqlite -> versions\.sqlite\.damaged-/);
    expect(r.out).not.toMatch(/meta\.sqlite \(/);
    expect(fs.readFileSync(path.join(copy, 'meta.sqlite')).equals(metaBefore)).toBe(true);
    expect(await answers(copy, instants, `${server.url}/doc/0`)).toEqual(original);
  }, 180_000);

  it('a sound archive is left alone; a directory without WARC files is said to have nothing to rebuild from', async () => {
    const copy = copyOf(dataDir);
    const r = await run(['rebuild', '--data', copy]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/nothing to rebuild/);
    expect(fs.readdirSync(copy).filter((f) => /damaged|before-rebuild/.test(f))).toEqual([]);
    const none = await run(['rebuild', '--data', tempDir()]);
    expect(none.code).toBe(EXIT.noInput);
    expect(none.err).toMatch(/no WARC files/);
  }, 60_000);
});

/**
 * How to run a command as a user who may not write the archive (the tests run as root, whom file modes do not
 * stop), or why that cannot be done here: no such user or tool, or a checkout that user may not read (a clone in
 * a private temporary directory, as a fresh-clone check makes one).
 */
function asAnotherUser(): string[] | string {
  if (process.getuid?.() !== 0) return [];
  if (spawnSync('id', ['-u', 'nobody']).status !== 0) return 'there is no user nobody';
  for (const cmd of [['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'], ['runuser', '-u', 'nobody', '--']]) {
    if (spawnSync(cmd[0]!, [...cmd.slice(1), 'true']).status !== 0) continue;
    const entry = path.join(repoRoot, 'bin/datamonitor.mjs');
    if (spawnSync(cmd[0]!, [...cmd.slice(1), 'test', '-r', entry]).status !== 0) return `nobody may not read this checkout (${entry})`;
    return cmd;
  }
  return 'neither setpriv nor runuser can run a command as nobody';
}

/** The user to run as, or undefined after saying loudly why these tests cannot run here. */
function otherUserOrSkip(): string[] | undefined {
  const as = asAnotherUser();
  if (typeof as !== 'string') return as;
  console.warn(`\n*** SKIPPED: running as root, and ${as}: the unwritable-archive tests need another user ***\n`);
  return undefined;
}

describe('an archive this user may not write', () => {
  let server: TestServer;
  let dataDir: string;

  beforeAll(async () => {
    server = await site();
    const parent = tempDir();
    dataDir = path.join(parent, 'archive');
    const crawl = await run(['crawl', '--data', dataDir, '--allow-private', '--delay', '0', `${server.url}/doc/0`]);
    expect(crawl.code, crawl.err).toBe(0);
    // Readable by all, writable by its owner only (root, or this user, whose write bits are then taken too).
    fs.chmodSync(parent, 0o755);
    for (const f of fs.readdirSync(dataDir, { recursive: true }) as string[]) fs.chmodSync(path.join(dataDir, f), fs.statSync(path.join(dataDir, f)).isDirectory() ? 0o555 : 0o444);
    fs.chmodSync(dataDir, 0o555);
  }, 120_000);
  afterAll(async () => {
    if (dataDir) for (const f of [dataDir, ...(fs.readdirSync(dataDir, { recursive: true }) as string[]).map((f) => path.join(dataDir, f))]) fs.chmodSync(f, 0o755);
    await server?.close();
  });

  it('is read by stats, verify, query and log; crawl says it may not write it, not that the disk is full', async () => {
    const as = otherUserOrSkip();
    if (!as) return;
    const reads = await Promise.all([['stats'], ['verify'], ['log'], ['query', 'ASK { GRAPH ?g { ?s ?p ?o } }']].map((a) => run([...a, '--data', dataDir], as)));
    for (const r of reads) expect(r.code, r.err).toBe(0);
    expect(reads[3]!.out).toMatch(/true/);

    const crawl = await run(['crawl', '--data', dataDir, '--allow-private', `${server.url}/doc/4`], as);
    expect(crawl.code, crawl.err).toBe(EXIT.noPermission);
    expect(crawl.err).toMatch(/permission denied: you \(.+\) cannot write .*archive/);
    expect(crawl.err).toContain(dataDir);
    expect(crawl.err).not.toMatch(/Free some space|disk/);
  }, 120_000);

  it('a crawl that may write the store but not the WARC directory stops saying so, its URL still queued', async () => {
    const as = otherUserOrSkip();
    if (!as) return;
    const copy = path.join(tempDir(), 'archive');
    fs.cpSync(dataDir, copy, { recursive: true });
    fs.chmodSync(path.dirname(copy), 0o755);
    const uid = as.length ? Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout) : process.getuid!();
    // The store and the directory are the crawling user's; every directory under warc/ is not.
    for (const f of fs.readdirSync(copy)) if (!f.startsWith('warc')) fs.chownSync(path.join(copy, f), uid, -1);
    fs.chownSync(copy, uid, -1);
    fs.chmodSync(copy, 0o755);
    for (const f of fs.readdirSync(copy)) if (f.startsWith('meta.sqlite')) fs.chmodSync(path.join(copy, f), 0o644);
    // A URL the archive does not hold (a 404, archived as it was): its WARC record is the first write.
    const crawl = await run(['crawl', '--data', copy, '--allow-private', '--delay', '0', `${server.url}/doc/9`], as);
    expect(crawl.code, crawl.err).toBe(EXIT.noPermission);
    expect(crawl.err).toMatch(/crawl stopped early: permission denied: you \(.+\) cannot write '.*\/warc\/.*'.*URLs not archived stay queued/s);
    const db = new Database(path.join(copy, 'meta.sqlite'), { readonly: true });
    const state = db.prepare('SELECT state FROM documents WHERE url = ?').get(`${server.url}/doc/9`) as { state: string } | undefined;
    db.close();
    expect(state?.state).toBe('queued');
  }, 120_000);
});
