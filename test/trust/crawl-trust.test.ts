import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { linkedDataDocument } from '../../src/testkit/linked-data-site.ts';
import { realVocabulary } from '../../src/testkit/real-vocabulary.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { signText } from '../../src/trust/document.ts';
import { generateKeyFile, parseTrustList, signingKeyFromSecret } from '../../src/trust/multikey.ts';
import fs from 'node:fs';
import path from 'node:path';
import { runMain as cli, crawlLog, tempDir } from '../helpers.ts'; // in this process: a command line as a process cost a CPU-second of start-up

/**
 * Six Linked Data documents in a ring (doc i's rdfs:seeAlso names doc i+1), the seed also naming
 * docs 3 and 4: 0 and 1 signed by the trusted key, 2 signed by it and then changed, 3 signed by
 * another key, 4 unsigned, 5 signed under a cryptosuite datamonitor does not check. Doc 5 is
 * reachable only through doc 4.
 */
const N = 6;
const EXPECTED = ['verified', 'verified', 'tampered', 'untrusted-key', 'unsigned', 'unknown-cryptosuite'];

async function signedWeb(): Promise<{ server: TestServer; url: (i: number) => string; trusted: string }> {
  const trustedKey = generateKeyFile();
  const otherKey = generateKeyFile();
  const v = realVocabulary();
  const bodies: string[] = [];
  const server = await startServer((_req, res, url) => {
    const m = /^\/doc\/(\d+)$/.exec(url.pathname);
    if (!m || !bodies[Number(m[1])]) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/turtle' }).end(bodies[Number(m[1])]);
  });
  const url = (i: number) => `${server.url}/doc/${i}`;
  for (let i = 0; i < N; i++) {
    let text = linkedDataDocument(i, N, url, v, 1);
    if (i === 0) text += `<${url(0)}#it> <http://www.w3.org/2000/01/rdf-schema#seeAlso> <${url(3)}>, <${url(4)}> .\n`;
    const key = signingKeyFromSecret((i === 3 ? otherKey : trustedKey).secretKeyMultibase);
    if (i !== 4) text = await signText(text, 'Turtle', key, url(i));
    if (i === 2) text = text.replace(`dct:identifier "2"`, `dct:identifier "20"`);
    if (i === 5) text = text.replace('"eddsa-rdfc-2022"', '"ecdsa-rdfc-2019"');
    bodies.push(text);
  }
  return { server, url, trusted: `# our publisher\ndid:key:${trustedKey.publicKeyMultibase}\n` };
}

const opts = (dataDir: string, seed: string) => ({ seeds: [seed], dataDir, depth: 10, delayMs: 0, perHost: 2, allowPrivate: true, domains: ['127.0.0.1'], vocabularies: false });
const trustLine = (row: Record<string, unknown>): string | undefined => (JSON.parse(String(row.diagnostics ?? '[]')) as string[]).find((d) => / trust /.test(d));

describe('crawl --trust on a Web of signed, tampered and untrusted documents', () => {
  let web: Awaited<ReturnType<typeof signedWeb>>;
  beforeAll(async () => {
    web = await signedWeb();
  });
  afterAll(() => web.server.close());

  it('records each document\'s verdict with its reason in the crawl log, and keeps every graph', async () => {
    const dataDir = tempDir();
    const s = await crawl({ ...opts(dataDir, web.url(0)), trust: parseTrustList(web.trusted) }).run();
    expect(s.trust).toEqual({ verified: 2, tampered: 1, 'untrusted-key': 1, unsigned: 1, 'unknown-cryptosuite': 1 });
    const rows = crawlLog(dataDir);
    for (let i = 0; i < N; i++) {
      const row = rows.find((r) => r.url === web.url(i));
      expect(row, `doc ${i} fetched`).toBeDefined();
      expect(trustLine(row!)).toContain(`trust ${EXPECTED[i]}`);
      expect(row!.triples).toBeGreaterThan(20);
    }
    expect(trustLine(rows.find((r) => r.url === web.url(2))!)).toMatch(/does not hold/);
  });

  it('--trusted-only keeps and follows only verified documents', async () => {
    const dataDir = tempDir();
    const s = await crawl({ ...opts(dataDir, web.url(0)), trust: parseTrustList(web.trusted), trustedOnly: true }).run();
    const rows = crawlLog(dataDir);
    const fetched = rows.map((r) => r.url);
    // 2, 3 and 4 are fetched (named by verified documents) but not followed: 5 is never reached.
    expect(fetched).not.toContain(web.url(5));
    for (const i of [0, 1]) {
      const row = rows.find((r) => r.url === web.url(i))!;
      expect(row.triples).toBeGreaterThan(20);
      expect(row.rdf_offset).not.toBeNull(); // its graph is archived
    }
    for (const i of [2, 3, 4]) {
      const row = rows.find((r) => r.url === web.url(i))!;
      expect(row.triples).toBe(0);
      expect(row.rdf_offset ?? null).toBeNull();
      expect(trustLine(row)).toContain('graph not kept');
    }
    expect(s.trust?.verified).toBe(2);
  });

  it('datamonitor crawl --trust --trusted-only --json: the summary counts the verdicts; a bad trust list is refused', async () => {
    const dir = tempDir();
    const keys = path.join(dir, 'keys.txt');
    fs.writeFileSync(keys, web.trusted);
    const common = ['crawl', '--data', path.join(dir, 'data'), '--allow-private', '--delay', '0', '--depth', '10', '--domain', '127.0.0.1', '--no-vocabularies', '--no-robots'];
    const r = await cli([...common, '--trust', keys, '--trusted-only', '--json', web.url(0)]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).trust).toEqual({ verified: 2, tampered: 1, 'untrusted-key': 1, unsigned: 1 });
    fs.writeFileSync(keys, 'https://example.org/not-a-key\n');
    const bad = await cli([...common, '--trust', keys, web.url(0)]);
    expect(bad.code).toBe(64);
    expect(bad.err).toMatch(/keys.txt line 1/);
    const none = await cli([...common, '--trusted-only', web.url(0)]);
    expect(none.code).toBe(64);
    expect(none.err).toContain('--trust');
  });

  it('refuses --trusted-only without a trust list', async () => {
    await expect(crawl({ ...opts(tempDir(), web.url(0)), trustedOnly: true }).run()).rejects.toThrow(/trust list/);
  });
});
