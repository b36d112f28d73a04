/**
 * The archive's read-only JSON routes (src/server/archive-routes.ts) through fastify's inject(), on an
 * archive made by crawling a site on 127.0.0.1: each answers what the CLI or the library answers for the same
 * question, every list pages, and every bad parameter is a 400 that says what to give.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/server/index.ts';
import { diffCommand } from '../../src/cli/commands/diff.ts';
import { queryChanges, queryVersions } from '../../src/query/evolution.ts';
import { openVersionStore } from '../../src/versions/sqlite-store.ts';
import { openStore } from '../../src/store/index.ts';
import { MAX_CHANGE_POINTS } from '../../src/server/archive-routes.ts';
import { turtle } from '../query/helpers.ts';
import type { SqliteWorkerStore } from '../../src/store/sqlite-worker.ts';
import { leaseHosts, routesArchive, type RoutesFixture } from './routes-fixture.ts';
import { LOADED_TIMEOUT_MS, readOnlyView } from '../helpers.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const enc = encodeURIComponent;
const NAME = '<http://xmlns.com/foaf/0.1/name>';
const PERSON = '<http://xmlns.com/foaf/0.1/Person>';

describe('archive routes', () => {
  let fx: RoutesFixture;
  let app: FastifyInstance;
  let workers: SqliteWorkerStore | undefined;
  const get = async (url: string) => {
    const r = await app.inject(url);
    return { status: r.statusCode, type: String(r.headers['content-type']), body: r.json() as any };
  };

  beforeAll(async () => {
    fx = await routesArchive();
    app = await buildServer({ dataDir: fx.dataDir });
  }, LOADED_TIMEOUT_MS);
  afterAll(async () => {
    await workers?.close();
    await app?.close();
    await fx?.close();
  });

  describe('GET /api/urls', () => {
    it('finds archived URLs by substring (any letter case) and by prefix, with their captures', async () => {
      const sub = await get('/api/urls?q=PEOPLE');
      expect(sub.status).toBe(200);
      expect(sub.body.urls.map((u: any) => u.url)).toEqual([fx.people]);
      expect(sub.body.urls[0]).toMatchObject({ captures: fx.times.length, first: iso(fx.times[0]!), last: iso(fx.times.at(-1)!) });
      expect(sub.body.next).toBeUndefined();
      const prefix = await get(`/api/urls?match=prefix&q=${enc(`${fx.origin.url}/folder/`)}`);
      expect(prefix.body.urls.map((u: any) => u.url)).toEqual([fx.urls.a, fx.urls.b]);
      // A prefix is a prefix: the folder's name in the middle of a URL does not count.
      expect((await get(`/api/urls?match=prefix&q=folder`)).body.urls).toEqual([]);
      // A URL only reached through a redirect is archived under its own name.
      expect((await get('/api/urls?q=target.TTL')).body.urls.map((u: any) => u.url)).toEqual([fx.urls.target]);
    });

    it('pages through every archived URL once, in order', async () => {
      const all = (await get('/api/urls?limit=1000')).body.urls.map((u: any) => u.url);
      for (const u of [fx.people, fx.urls.other, fx.urls.a, fx.urls.b, fx.urls.moved, fx.urls.target]) expect(all).toContain(u);
      expect([...all].sort()).toEqual(all);
      const paged: string[] = [];
      let after: string | undefined;
      for (let i = 0; i < 20; i++) {
        const page = await get(`/api/urls?limit=2${after ? `&after=${enc(after)}` : ''}`);
        expect(page.body.urls.length).toBeLessThanOrEqual(2);
        paged.push(...page.body.urls.map((u: any) => u.url));
        after = page.body.next;
        if (!after) break;
      }
      expect(paged).toEqual(all);
    });

    it('refuses bad parameters with a 400 that says what to give', async () => {
      for (const [q, says] of [
        ['limit=0', /limit= must be a whole number from 1 to 1000/], ['limit=abc', /limit=/], ['limit=100000', /limit=/],
        ['match=regex', /match= is prefix or substring/], ['q=a&q=b', /give q= once/],
      ] as const) {
        const r = await get(`/api/urls?${q}`);
        expect(r.status, q).toBe(400);
        expect(r.type).toMatch(/application\/json/);
        expect(r.body.error, q).toMatch(says);
      }
    });
  });

  describe('GET /api/captures and /api/graph/versions', () => {
    it("lists a URL's captures with their memento timestamps, a page at a time", async () => {
      const r = await get(`/api/captures?url=${enc(fx.people)}`);
      expect(r.status).toBe(200);
      expect(r.body.total).toBe(fx.times.length);
      expect(r.body.captures.map((c: any) => c.time)).toEqual(fx.times.map(iso));
      expect(r.body.captures.map((c: any) => c.change)).toEqual(['new', 'changed', 'unchanged']);
      // Where each response came from: the URL itself, which the log no longer repeats in each row.
      expect(r.body.captures.map((c: any) => c.finalUrl)).toEqual(fx.times.map(() => fx.people));
      // A redirect's own response came from its URL too.
      expect((await get(`/api/captures?url=${enc(fx.urls.moved)}`)).body.captures.map((c: any) => [c.status, c.finalUrl])).toEqual([[301, fx.urls.moved]]);
      // Each names a memento the Memento routes serve.
      const memento = await app.inject(r.body.captures[1].memento);
      expect(memento.statusCode).toBe(200);
      expect(memento.body).toContain('Alice B.');
      const second = await get(`/api/captures?url=${enc(fx.people)}&limit=1&offset=1`);
      expect(second.body.captures).toEqual([r.body.captures[1]]);
      expect(second.body.next).toBe(2);
    });

    it("lists the versions of a URL's graph with the triples added and removed", async () => {
      const r = await get(`/api/graph/versions?url=${enc(fx.people)}`);
      expect(r.status).toBe(200);
      const archive = openVersionStore(fx.dataDir, { readonly: true });
      try {
        expect(r.body.versions).toEqual(archive.versions(fx.people).map((v) => ({ ...v, time: iso(v.time) })));
      } finally {
        await archive.close();
      }
      // The second version: one name replaced, Dora (a blank node) and Carol added; Bob's blank node kept.
      expect(r.body.versions[1]).toMatchObject({ time: iso(fx.times[1]!), kind: 'put', added: 4, removed: 1, triples: 7 });
      expect((await get(`/api/graph/versions?url=${enc(fx.people)}&limit=1`)).body).toMatchObject({ total: 2, next: 1, versions: [r.body.versions[0]] });
    });

    it('answers 404 for a URL never archived and 400 for a missing or non-http URL', async () => {
      for (const route of ['/api/captures', '/api/graph/versions']) {
        const unknown = await get(`${route}?url=${enc(`${fx.origin.url}/never.ttl`)}`);
        expect(unknown.status, route).toBe(404);
        expect(unknown.body.error).toMatch(/has no (capture|version)/);
        expect((await get(route)).body.error).toMatch(/give url=/);
        expect((await get(`${route}?url=ftp://x/y`)).status).toBe(400);
        expect((await get(`${route}?url=${enc(fx.people)}&offset=-1`)).body.error).toMatch(/offset= must be a whole number/);
      }
    });
  });

  describe('GET /api/diff', () => {
    it('prints what `datamonitor diff --json` prints for two instants, blank-node labels included', async () => {
      const [t1, t2] = fx.times;
      const r = await get(`/api/diff?url=${enc(fx.people)}&from=${iso(t1!)}&to=${iso(t2!)}`);
      expect(r.status).toBe(200);
      const cli = JSON.parse((await diffCommand(fx.people, { data: fx.dataDir, from: iso(t1!), to: iso(t2!), json: true })).text);
      expect(r.body).toMatchObject({ from: cli.from, to: cli.to, graph: fx.people, added: cli.added, removed: cli.removed, addedTotal: cli.added.length, removedTotal: cli.removed.length });
      expect(r.body.removed).toEqual([`<http://example.org/alice> ${NAME} "Alice" .`]);
      // Dora is a new blank node, named the same in both of her lines; Bob's is unchanged, so not in the diff.
      const dora = r.body.added.find((l: string) => l.endsWith('"Dora" .'))!.split(' ')[0];
      expect(dora).toMatch(/^_:/);
      expect(r.body.added).toContain(`<http://example.org/alice> <http://xmlns.com/foaf/0.1/knows> ${dora} .`);
      expect(r.body.added.join('\n')).not.toContain('Bob');
    });

    it('diffs two captures named by their memento timestamps, and the whole archive without url=', async () => {
      const caps = (await get(`/api/captures?url=${enc(fx.people)}`)).body.captures;
      const byCapture = await get(`/api/diff?url=${enc(fx.people)}&fromCapture=${caps[0].timestamp}&toCapture=${caps[1].timestamp}`);
      const byTime = await get(`/api/diff?url=${enc(fx.people)}&from=${caps[0].time}&to=${caps[1].time}`);
      expect(byCapture.status).toBe(200);
      expect(byCapture.body).toMatchObject({ fromCapture: caps[0].timestamp, toCapture: caps[1].timestamp, added: byTime.body.added, removed: byTime.body.removed });
      // The same bytes again: nothing changed between the last two captures.
      const same = await get(`/api/diff?url=${enc(fx.people)}&fromCapture=${caps[1].timestamp}&toCapture=${caps[2].timestamp}`);
      expect([same.body.added, same.body.removed]).toEqual([[], []]);
      const whole = await get(`/api/diff?from=${iso(fx.times[0]! - 1)}`);
      const cli = JSON.parse((await diffCommand(undefined, { data: fx.dataDir, from: iso(fx.times[0]! - 1), json: true })).text);
      expect(whole.body.graph).toBeNull();
      expect(whole.body.added).toEqual(cli.added);
    });

    it('pages long diffs: one offset and limit for both lists', async () => {
      const from = iso(fx.times[0]! - 1);
      const full = (await get(`/api/diff?from=${from}`)).body;
      const lines: string[] = [];
      for (let offset = 0; offset < 50; offset += 3) {
        const page = (await get(`/api/diff?from=${from}&to=${full.to}&limit=3&offset=${offset}`)).body;
        lines.push(...page.added);
        if (page.next === undefined) break;
        expect(page.next).toBe(offset + 3);
      }
      expect(lines).toEqual(full.added);
    });

    it('refuses bad parameters: 400 with what to give, 404 for a URL without versions', async () => {
      const u = `url=${enc(fx.people)}`;
      for (const [q, says] of [
        [u, /give from=/], [`${u}&from=yesterday`, /from= 'yesterday' is not a date: use ISO 8601/],
        [`${u}&from=${iso(fx.times[1]!)}&to=${iso(fx.times[0]!)}`, /before the earlier one/],
        [`${u}&fromCapture=20200101000000`, /fromCapture=20200101000000 is not a capture of .*: its captures are \d{14}/],
        [`fromCapture=20200101000000`, /give url= too/], [`${u}&from=2025-01-01&fromCapture=1`, /not both/],
        [`${u}&from=2025-01-01&limit=0`, /limit=/], ['url=nope&from=2025-01-01', /url= must be an http\(s\) URL/],
      ] as const) {
        const r = await get(`/api/diff?${q}`);
        expect(r.status, q).toBe(400);
        expect(r.body.error, q).toMatch(says);
      }
      const unknown = await get(`/api/diff?url=${enc(`${fx.origin.url}/never.ttl`)}&from=2025-01-01`);
      expect(unknown.status).toBe(404);
      // Captured, but not RDF: no graph to diff.
      expect((await get(`/api/diff?url=${enc(fx.urls.moved)}&from=2025-01-01`)).status).toBe(404);
    });
  });

  describe('GET /api/pattern/versions and /api/pattern/changes', () => {
    it("answer Ver(Q) and Change(Q) of a triple pattern as the library does, with the window passed through", async () => {
      const archive = openVersionStore(fx.dataDir, { readonly: true });
      try {
        const pattern = `<http://example.org/alice> ${NAME} ?n`;
        const sparql = `SELECT * WHERE { <http://example.org/alice> ${NAME} ?n }`;
        const ver = await get(`/api/pattern/versions?pattern=${enc(pattern)}`);
        expect(ver.status).toBe(200);
        expect(ver.body.answers.map((a: any) => a.answer.n.value)).toEqual(['Alice', 'Alice B.']);
        expect(ver.body.answers[0].intervals).toEqual([{ from: iso(fx.times[0]!), to: iso(fx.times[1]!) }]);
        expect(ver.body.answers[1].intervals).toEqual([{ from: iso(fx.times[1]!) }]);
        for (const window of [{}, { from: fx.times[1]! }, { from: fx.times[0]! + 1, to: fx.times[1]! }]) {
          const qs = Object.entries(window).map(([k, v]) => `&${k}=${iso(v)}`).join('');
          const lib = await queryVersions(archive, sparql, window);
          const got = await get(`/api/pattern/versions?pattern=${enc(pattern)}${qs}`);
          expect(got.body.total, qs).toBe(lib.length);
          expect(got.body.answers.map((a: any) => a.answer), qs).toEqual(lib.map((a) => a.answer));
          expect(got.body.answers.map((a: any) => a.intervals.map((i: any) => Date.parse(i.from))), qs).toEqual(lib.map((a) => a.intervals.map((i) => i.from)));
        }
        const people = `?s a ${PERSON}`;
        const changes = await get(`/api/pattern/changes?pattern=${enc(people)}`);
        expect(changes.body.changes).toEqual([
          { time: iso(fx.times[0]!), added: 1, removed: 0, answers: 1 },
          { time: iso(fx.times[1]!), added: 1, removed: 0, answers: 2 },
        ]);
        const window = { from: fx.times[0]!, to: fx.times[1]! };
        const lib = await queryChanges(archive, `SELECT * WHERE { ?s <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> ${PERSON} }`, window);
        const windowed = await get(`/api/pattern/changes?pattern=${enc(people)}&from=${iso(window.from)}&to=${iso(window.to)}`);
        expect(windowed.body.changes).toEqual(lib.map((c) => ({ ...c, time: iso(c.time) })));
        expect(windowed.body).toMatchObject({ from: iso(window.from), to: iso(window.to) });
      } finally {
        await archive.close();
      }
    }, LOADED_TIMEOUT_MS);

    it('restrict to a document by a 4th term or graph=, and bind it with a variable', async () => {
      const people = enc(`?s a ${PERSON}`);
      const inOther = await get(`/api/pattern/changes?pattern=${people}&graph=${enc(fx.urls.other)}`);
      expect(inOther.body.changes).toEqual([]);
      const fourth = await get(`/api/pattern/versions?pattern=${enc(`?s a ${PERSON} <${fx.people}>`)}`);
      expect(fourth.body.answers.map((a: any) => a.answer.s.value).sort()).toEqual(['http://example.org/alice', 'http://example.org/carol']);
      const bound = await get(`/api/pattern/versions?pattern=${enc(`?s a ${PERSON} ?doc`)}`);
      expect(new Set(bound.body.answers.map((a: any) => a.answer.doc.value))).toEqual(new Set([fx.people]));
      const page = await get(`/api/pattern/versions?pattern=${enc(`?s a ${PERSON} ?doc`)}&limit=1&offset=1`);
      expect(page.body).toMatchObject({ total: 2, offset: 1, limit: 1 });
      expect(page.body.answers).toEqual([bound.body.answers[1]]);
    });

    it('refuse bad patterns and windows with a 400 that says what to give', async () => {
      for (const route of ['/api/pattern/versions', '/api/pattern/changes']) {
        for (const [q, says] of [
          ['', /give pattern=/], [`pattern=${enc('?s ?p')}`, /a triple pattern has 3 terms/], [`pattern=${enc('?s <unclosed ?o')}`, /triple pattern/],
          [`pattern=${enc('_:b1 ?p ?o')}`, /cannot name the blank node/], [`pattern=${enc('?s a ?o')}&from=soon`, /from= 'soon' is not a date/],
          [`pattern=${enc('?s a ?o')}&from=2025-02-01&to=2025-01-01`, /to= .* is before from=/], [`pattern=${enc('?s a ?o')}&limit=5000`, /limit=/],
          [`pattern=${enc('?s ?p ?o')}`, /three variables asks for the whole archive: name a document/],
          [`pattern=${enc(`?s ?p ?o <${fx.people}>`)}&graph=${enc(fx.people)}`, /leave graph= out/],
        ] as const) {
          const r = await get(`${route}?${q}`);
          expect(r.status, `${route}?${q}`).toBe(400);
          expect(r.body.error, `${route}?${q}`).toMatch(says);
        }
        // Three variables within one document is a bounded question.
        expect((await get(`${route}?pattern=${enc('?s ?p ?o')}&graph=${enc(fx.people)}`)).status).toBe(200);
      }
    });

    it('refuse a window with more change points than one request evaluates, and say how to narrow it', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-many-versions-'));
      const store = await openStore(dir);
      await store.init();
      await store.close();
      const archive = openVersionStore(dir);
      const doc = 'http://example.org/busy.ttl';
      const T = Date.UTC(2025, 0, 1);
      archive.writeTransaction(() => {
        for (let i = 0; i <= MAX_CHANGE_POINTS; i++) archive.putVersionNow(doc, T + i * 1000, turtle(`ex:x ex:count ${i} .`));
      });
      await archive.close();
      const busy = await buildServer({ dataDir: dir });
      try {
        const pattern = enc('?s <http://example.org/count> ?n');
        for (const route of ['/api/pattern/versions', '/api/pattern/changes']) {
          const all = await busy.inject(`${route}?pattern=${pattern}`);
          expect(all.statusCode).toBe(400);
          expect(all.json().error).toMatch(new RegExp(`${MAX_CHANGE_POINTS + 1} change points, more than the ${MAX_CHANGE_POINTS}.*narrow it with from=/to=`));
          const narrow = await busy.inject(`${route}?pattern=${pattern}&from=${iso(T + 10_000)}&to=${iso(T + 12_000)}`);
          expect(narrow.statusCode, narrow.body).toBe(200);
        }
        const changes = (await busy.inject(`/api/pattern/changes?pattern=${pattern}&from=${iso(T)}&to=${iso(T + 4000)}`)).json();
        expect(changes.changes.length).toBeGreaterThan(0);
      } finally {
        await busy.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }, LOADED_TIMEOUT_MS);
  });

  describe('on an archive mounted read-only', () => {
    it('every route answers, and nothing in the data directory is written', async () => {
      const files = (dir: string) => (fs.readdirSync(dir, { recursive: true }) as string[]).sort().map((f) => {
        const st = fs.statSync(path.join(dir, f));
        return `${f} ${st.size} ${st.mtimeMs}`;
      });
      const before = files(fx.dataDir);
      const view = readOnlyView(fx.dataDir);
      if (!view) {
        console.warn('\n*** SKIPPED: no read-only view of a directory can be made here (needs root for a read-only bind mount) ***\n');
        return;
      }
      const ro = await buildServer({ dataDir: view.path });
      try {
        const u = enc(fx.people);
        for (const route of [
          '/api/urls?q=people', `/api/captures?url=${u}`, `/api/graph/versions?url=${u}`, `/api/diff?url=${u}&from=${iso(fx.times[0]!)}`,
          `/api/pattern/changes?pattern=${enc(`?s a ${PERSON}`)}`, '/api/workers', '/summary', '/search?q=people', `/diff?url=${u}&from=${iso(fx.times[0]!)}`,
        ]) {
          const r = await ro.inject(route);
          expect(r.statusCode, `${route}: ${r.body.slice(0, 200)}`).toBe(200);
        }
        expect((await ro.inject('/api/urls?q=people')).json().urls.map((x: any) => x.url)).toEqual([fx.people]);
      } finally {
        await ro.close();
        view.release();
      }
      expect(files(fx.dataDir)).toEqual(before);
    });
  });

  describe('GET /api/workers', () => {
    it('lists which worker holds which host lease, lapsed leases marked', async () => {
      const none = await get('/api/workers');
      expect(none.status).toBe(200);
      expect(none.body.workers).toEqual([]);
      workers = await leaseHosts(fx.dataDir);
      const held = await workers.activeLeases();
      const r = await get('/api/workers');
      expect(r.body.workers.map((w: any) => [w.worker, w.active, w.lapsed])).toEqual([['worker-live', 1, 0], ['worker-gone', 0, 1]]);
      const live = r.body.workers[0];
      expect(live.hosts).toEqual(held.map((l) => ({ host: l.host, expiresAt: iso(l.expiresAt), lapsed: false })));
      expect(Date.parse(live.latestExpiry)).toBeGreaterThan(Date.parse(r.body.now));
      expect(r.body.workers[1].hosts[0].lapsed).toBe(true);
      expect((await get('/api/workers?limit=1')).body).toMatchObject({ truncated: true, workers: [{ worker: 'worker-gone' }] });
      expect((await get('/api/workers?limit=x')).status).toBe(400);
    });
  });
});
