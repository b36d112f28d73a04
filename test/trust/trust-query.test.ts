import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer as startArchiveServer } from '../../src/server/index.ts';
import { linkedDataDocument } from '../../src/testkit/linked-data-site.ts';
import { realVocabulary } from '../../src/testkit/real-vocabulary.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { signText } from '../../src/trust/document.ts';
import { generateKeyFile, type MultikeyFile, parseTrustList, signingKeyFromSecret } from '../../src/trust/multikey.ts';
import { runMainOk, tempDir } from '../helpers.ts';

/**
 * Who signed each version, and whether the proof held, asked of the archive at two instants. Four
 * signed documents are crawled with --trust (keys A and B trusted, C not); then doc 1 is changed and
 * re-signed by B, doc 2 tampered with, doc 3 changed and re-signed by C, doc 0 left alone; a second
 * crawl fetches them again. `query --at` between the crawls sees the first verdicts, `query` now the
 * second, and /sparql and export --provenance state the same facts.
 */
const N = 4;
const Q = 'SELECT ?g ?verdict ?key WHERE { ?g dm:proofVerdict ?verdict OPTIONAL { ?g dm:signedBy ?key } } ORDER BY ?g';

interface Row { g: string; verdict: string; key?: string }
type Bindings = { results: { bindings: Array<Record<string, { value: string }>> } };
const rowsOf = (json: Bindings): Row[] => json.results.bindings.map((b) => ({ g: b.g!.value, verdict: b.verdict!.value, ...(b.key ? { key: b.key.value } : {}) }));

describe('trust facts of each version, queryable at any time', () => {
  let server: TestServer;
  const bodies: string[] = [];
  let url: (i: number) => string;
  const keys: Record<'A' | 'B' | 'C', MultikeyFile> = { A: generateKeyFile(), B: generateKeyFile(), C: generateKeyFile() };
  const did = (k: 'A' | 'B' | 'C') => `did:key:${keys[k].publicKeyMultibase}`;
  const trust = parseTrustList(`${did('A')}\n${did('B')}\n`);
  const dataDir = tempDir();
  let between = 0;

  const sign = async (i: number, k: 'A' | 'B' | 'C', text: string) => signText(text, 'Turtle', signingKeyFromSecret(keys[k].secretKeyMultibase), url(i), '2026-12-01T00:00:00Z');
  const run = () => crawl({ seeds: Array.from({ length: N }, (_v, i) => url(i)), dataDir, depth: 0, delayMs: 0, perHost: 2, allowPrivate: true, vocabularies: false, robots: false, refetch: true, trust }).run();
  const query = async (at?: number): Promise<Row[]> =>
    rowsOf(JSON.parse(await runMainOk(['query', '--data', dataDir, '--json', ...(at ? ['--at', new Date(at).toISOString()] : []), Q])) as Bindings);

  beforeAll(async () => {
    server = await startServer((_req, res, u) => {
      const m = /^\/doc\/(\d+)$/.exec(u.pathname);
      if (!m || !bodies[Number(m[1])]) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      res.writeHead(200, { 'content-type': 'text/turtle' }).end(bodies[Number(m[1])]);
    });
    url = (i) => `${server.url}/doc/${i}`;
    const v = realVocabulary();
    for (let i = 0; i < N; i++) bodies.push(await sign(i, 'A', linkedDataDocument(i, N, url, v, 1)));
    const first = await run();
    expect(first.trust).toEqual({ verified: N });
    between = Date.now();
    await new Promise((r) => setTimeout(r, 20));
    const changed = (i: number) => linkedDataDocument(i, N, url, v, 1).replace(`dct:identifier "${i}"`, `dct:identifier "${i}-v2"`);
    bodies[1] = await sign(1, 'B', changed(1));
    bodies[2] = bodies[2]!.replace('dct:identifier "2"', 'dct:identifier "2-forged"');
    bodies[3] = await sign(3, 'C', changed(3));
    const second = await run();
    // Doc 0's bytes are the same: not parsed nor vetted again, its version (and verdict) stands.
    expect(second.trust).toEqual({ verified: 1, tampered: 1, 'untrusted-key': 1 });
  }, 240_000);
  afterAll(() => server?.close());

  it('query --at between the crawls gives the first signer and verdict of every document', async () => {
    expect(await query(between)).toEqual([0, 1, 2, 3].map((i) => ({ g: url(i), verdict: 'verified', key: did('A') })));
  }, 120_000);

  it('query now gives the second: re-signed by B, tampered (no signer), signed by the untrusted C', async () => {
    expect(await query()).toEqual([
      { g: url(0), verdict: 'verified', key: did('A') },
      { g: url(1), verdict: 'verified', key: did('B') },
      { g: url(2), verdict: 'tampered' },
      { g: url(3), verdict: 'untrusted-key', key: did('C') },
    ]);
    // The reason is a fact too, and the facts live in dm:provenance, not among the document's graphs.
    const reasons = JSON.parse(await runMainOk(['query', '--data', dataDir, '--json',
      `SELECT ?reason WHERE { GRAPH dm:provenance { <${url(2)}> dm:proofReason ?reason } }`])) as Bindings;
    expect(reasons.results.bindings[0]?.reason?.value).toMatch(/does not hold/);
    const graphs = JSON.parse(await runMainOk(['query', '--data', dataDir, '--json',
      'SELECT ?g WHERE { GRAPH dm:graphs { ?g dm:inDocument ?d } }'])) as Bindings;
    expect(graphs.results.bindings).toEqual([]);
  }, 120_000);

  it('/sparql answers the same at both instants, and export --provenance states the facts', async () => {
    const { app, url: base } = await startArchiveServer({ dataDir, port: 0 });
    try {
      const ask = async (at?: number) => {
        const r = await fetch(`${base}/sparql?query=${encodeURIComponent(Q)}${at ? `&at=${new Date(at).toISOString()}` : ''}`, { headers: { accept: 'application/sparql-results+json' } });
        expect(r.status).toBe(200);
        return rowsOf((await r.json()) as Bindings);
      };
      expect(await ask(between)).toEqual(await query(between));
      expect(await ask()).toEqual(await query());
    } finally {
      await app.close();
    }
    const out = tempDir();
    await runMainOk(['export', '--data', dataDir, '--format', 'nquads', '--provenance', '-o', `${out}/all.nq`]);
    const nq = fs.readFileSync(`${out}/all.nq`, 'utf8');
    expect(nq).toContain(`<${url(1)}> <https://w3id.org/datamonitor/ns#signedBy> <${did('B')}> <https://w3id.org/datamonitor/ns#provenance> .`);
    expect(nq).toContain(`<${url(2)}> <https://w3id.org/datamonitor/ns#proofVerdict> "tampered" <https://w3id.org/datamonitor/ns#provenance> .`);
  }, 120_000);
});
