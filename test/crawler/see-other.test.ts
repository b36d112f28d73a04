import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { crawl, type CrawlSummary } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { openStore } from '../../src/store/index.ts';
import { exportArchive } from '../../src/archive/export.ts';
import { crawlLog, tempDir, warcFiles } from '../helpers.ts';

const TERMS = 45;

/**
 * A Linked Data server as vocabularies are published: 45 resource IRIs (/id/termN) answer 303 See
 * Other to the one Turtle file that describes them all, with blank nodes and links to another host.
 */
async function linkedDataServers(): Promise<{ vocab: TestServer; other: TestServer; seed: string }> {
  const other = await startServer((_req, res, url) => {
    if (url.pathname === '/robots.txt') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${url.href}> <http://www.w3.org/2000/01/rdf-schema#label> "elsewhere" .\n`);
  });
  const vocab: TestServer = await startServer((_req, res, url) => {
    const base = `http://127.0.0.1:${vocab.port}`;
    const ex = `http://127.0.0.1:${other.port}`;
    if (url.pathname === '/robots.txt') return res.writeHead(404).end();
    if (url.pathname === '/') {
      const terms = Array.from({ length: TERMS }, (_, i) => `<${base}/id/term${i}>`).join(', ');
      return res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${base}/> <http://www.w3.org/2000/01/rdf-schema#seeAlso> ${terms} .\n`);
    }
    if (/^\/id\/term\d+$/.test(url.pathname)) return res.writeHead(303, { location: '/vocab.ttl', 'content-type': 'text/plain' }).end('see /vocab.ttl');
    if (url.pathname === '/vocab.ttl') {
      const lines = Array.from({ length: TERMS }, (_, i) =>
        `<${base}/id/term${i}> a <http://www.w3.org/2002/07/owl#Class> ; <http://www.w3.org/2000/01/rdf-schema#label> "term ${i}" ; ` +
        `<http://example.org/note> [ <http://example.org/text> "note ${i}" ] .`);
      lines.push(`<${base}/id/term0> <http://www.w3.org/2000/01/rdf-schema#seeAlso> <${ex}/a>, <${ex}/b> .`);
      return res.writeHead(200, { 'content-type': 'text/turtle' }).end(lines.join('\n') + '\n');
    }
    res.writeHead(404).end();
  });
  return { vocab, other, seed: `${vocab.url}/` };
}

// 45 × 3 triples + 2 links, the seed's 45, and one triple on each of the other host's two pages.
const VOCAB_TRIPLES = TERMS * 4 + 2;
const ALL_TRIPLES = VOCAB_TRIPLES + TERMS + 2;

describe('resource IRIs that answer 303 See Other to one document', () => {
  let web: Awaited<ReturnType<typeof linkedDataServers>>;
  let dataDir: string;
  let summary: CrawlSummary;
  const yielded: string[] = [];

  beforeAll(async () => {
    web = await linkedDataServers();
    dataDir = tempDir();
    const opts = { seeds: [web.seed], dataDir, depth: 2, delayMs: 0, perHost: 2, allowPrivate: true, domains: ['127.0.0.1'], vocabularies: false };
    // Stopped after the seed: the IRIs are left queued, and the resume has to carry on with them.
    const first = await crawl({ ...opts, maxDocs: 1 }).run();
    expect(first.stoppedBy).toBe('max-docs');
    const c = crawl(opts);
    for await (const doc of c) yielded.push(doc.url);
    summary = c.summary!;
  });
  afterAll(() => Promise.all([web.vocab.close(), web.other.close()]));

  it('fetches the document once, under its own URL, whatever number of IRIs lead to it, also across a resume', () => {
    expect(web.vocab.requests.filter((r) => r.path === '/vocab.ttl')).toHaveLength(1);
    for (let i = 0; i < TERMS; i++) expect(web.vocab.requests.filter((r) => r.path === `/id/term${i}`)).toHaveLength(1);
    const docRows = crawlLog(dataDir).filter((e) => e.url === `${web.vocab.url}/vocab.ttl`);
    expect(docRows).toHaveLength(1);
    expect(docRows[0]).toMatchObject({ status: 200, reason: 'fetched', triples: VOCAB_TRIPLES });
    // and follows its links to the other host
    expect(web.other.requests.map((r) => r.path).sort()).toEqual(['/a', '/b', '/robots.txt']);
  });

  it('archives each hop as a small redirect record of its own: 45 crawl-log rows and 45 WARC responses', async () => {
    const hops = crawlLog(dataDir).filter((e) => e.reason === 'redirected');
    expect(hops).toHaveLength(TERMS);
    expect(hops.every((e) => e.status === 303 && e.triples === 0 && e.warc_file)).toBe(true);
    const responses: { uri: string; status: string }[] = [];
    for (const f of warcFiles(dataDir)) {
      for await (const rec of new WARCParser(fs.createReadStream(f))) {
        if (rec.warcType === 'response') responses.push({ uri: rec.warcTargetURI!, status: rec.httpHeaders?.statusCode as unknown as string });
      }
    }
    const redirects = responses.filter((r) => /\/id\/term\d+$/.test(r.uri));
    expect(redirects).toHaveLength(TERMS);
    expect(redirects.every((r) => Number(r.status) === 303)).toBe(true);
    expect(responses.filter((r) => r.uri.endsWith('/vocab.ttl'))).toHaveLength(1);
  });

  it('does not inflate the counts: documents and triples are those of the documents, redirects are counted as such', () => {
    expect(summary.resumed).toBe(true);
    expect(summary.documents).toBe(3); // vocab.ttl and the other host's two pages (the seed came in the first run)
    expect(summary.triples).toBe(ALL_TRIPLES - TERMS);
    expect(summary.reasons.redirected).toBe(TERMS);
    expect(summary.reasons.fetched).toBe(3);
    expect(yielded).toHaveLength(3);
    expect(summary.errors).toBe(0);
  });

  it('exports each term in its describing document, once, and the 303s as "see other" in the provenance', async () => {
    const store = await openStore(dataDir);
    await store.init();
    let out = '';
    try {
      const r = await exportArchive(store, dataDir, 'nquads', (s) => (out += s), { provenance: true });
      expect(r.documents).toBe(4);
    } finally {
      await store.close();
    }
    const vocab = `${web.vocab.url}/vocab.ttl`;
    const labels = out.split('\n').filter((l) => l.includes(`<${web.vocab.url}/id/term7> <http://www.w3.org/2000/01/rdf-schema#label>`));
    expect(labels).toEqual([`<${web.vocab.url}/id/term7> <http://www.w3.org/2000/01/rdf-schema#label> "term 7" <${vocab}> .`]);
    const seeOther = out.split('\n').filter((l) => l.includes('#seeOther>'));
    expect(seeOther).toHaveLength(TERMS);
    expect(seeOther).toContain(`<${web.vocab.url}/id/term7> <https://w3id.org/datamonitor/ns#seeOther> <${vocab}> <https://w3id.org/datamonitor/ns#provenance> .`);
  });
});

describe('redirect chains and loops', () => {
  let site: TestServer;
  beforeAll(async () => {
    site = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(404).end();
      const chain = /^\/chain(\d+)$/.exec(url.pathname);
      if (chain) return res.writeHead(302, { location: `/chain${Number(chain[1]) + 1}` }).end();
      if (url.pathname === '/loop-a') return res.writeHead(301, { location: '/loop-b' }).end();
      if (url.pathname === '/loop-b') return res.writeHead(301, { location: '/loop-a' }).end();
      res.writeHead(404).end();
    });
  });
  afterAll(() => site.close());

  it('a 50-hop chain stops after 5 redirects and a loop at the seen test, each hop archived once', async () => {
    const dataDir = tempDir();
    const summary = await crawl({ seeds: [`${site.url}/chain0`, `${site.url}/loop-a`], dataDir, depth: 1, delayMs: 0, allowPrivate: true }).run();
    expect(site.requests.filter((r) => r.path.startsWith('/chain')).map((r) => r.path)).toEqual(['/chain0', '/chain1', '/chain2', '/chain3', '/chain4', '/chain5']);
    expect(site.requests.filter((r) => r.path.startsWith('/loop')).map((r) => r.path)).toEqual(['/loop-a', '/loop-b']);
    expect(summary.reasons).toMatchObject({ redirected: 8, 'too-many-redirects': 1, 'redirect-loop': 1 });
    expect(crawlLog(dataDir).find((e) => e.url === `${site.url}/loop-b`)?.error).toBe(`redirect loop: ${site.url}/loop-a -> ${site.url}/loop-b -> ${site.url}/loop-a`);
    const last = crawlLog(dataDir).find((e) => e.url === `${site.url}/chain5`);
    expect(last?.error).toMatch(/more than 5 redirects in a row/);
  });
});
