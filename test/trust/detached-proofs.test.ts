import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { PROOF_DOCUMENT_DIAGNOSTIC } from '../../src/crawler/detached-proofs.ts';
import { linkedDataDocument } from '../../src/testkit/linked-data-site.ts';
import { realVocabulary } from '../../src/testkit/real-vocabulary.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { detachedProofText, signText } from '../../src/trust/document.ts';
import { generateKeyFile, parseTrustList, signingKeyFromSecret } from '../../src/trust/multikey.ts';
import { PROOF_REL } from '../../src/trust/proof.ts';
import { crawlLog, runMainOk, tempDir } from '../helpers.ts';

/**
 * Documents whose proofs live in proof documents of their own, on one 127.0.0.1 host. Doc 0 (the seed,
 * signed inside) names docs 1-9: 1 links its proof by a Link header, 2 by a `<> sec:proof <P>` triple
 * (both verify), 3's proof is a 404, 4's is on a port nobody listens on, 5 was changed after its
 * detached proof was made, 6 links doc 1's proof (a proof of another document), 7's proof document is
 * a megabyte, 8's is not RDF, 9's is disallowed by robots.txt.
 */
const N = 10;
const DELAY = 300;
const EXPECTED: Array<[verdict: string, reason: RegExp]> = [
  ['verified', /holds/],
  ['verified', /detached proof .*\/proof\/1\)/],
  ['verified', /detached proof .*\/proof\/2\)/],
  ['proof-unavailable', /proof\/3: HTTP 404/],
  ['proof-unavailable', /connect|refused/i],
  ['tampered', /does not hold.*detached proof/],
  ['proof-unavailable', /holds no Data Integrity proof for .*\/doc\/6 \(its 1 proof hangs from another IRI\)/],
  ['proof-unavailable', /too-large/],
  ['proof-unavailable', /no RDF read from it \(text\/plain/],
  ['proof-unavailable', /robots.txt disallows it/],
];

describe('crawl --trust with detached proofs', () => {
  let server: TestServer;
  let closedPort: number;
  const docs: string[] = [];
  const links: Array<string | undefined> = [];
  const proofs = new Map<string, { type: string; body: string }>();
  const key = generateKeyFile();
  const trust = parseTrustList(`did:key:${key.publicKeyMultibase}\n`);

  beforeAll(async () => {
    const gone = await startServer(() => undefined);
    closedPort = gone.port;
    await gone.close();
    server = await startServer((_req, res, u) => {
      if (u.pathname === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /proof/9\n');
      const d = /^\/doc\/(\d+)$/.exec(u.pathname);
      if (d && docs[Number(d[1])] !== undefined) {
        const link = links[Number(d[1])];
        return res.writeHead(200, { 'content-type': 'text/turtle', ...(link ? { link: `<${link}>; rel="${PROOF_REL}"` } : {}) }).end(docs[Number(d[1])]);
      }
      const p = proofs.get(u.pathname);
      if (p) return res.writeHead(200, { 'content-type': p.type }).end(p.body);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    const url = (i: number) => `${server.url}/doc/${i}`;
    const signing = signingKeyFromSecret(key.secretKeyMultibase);
    const v = realVocabulary();
    for (let i = 0; i < N; i++) {
      let text = linkedDataDocument(i, N, url, v, 0);
      if (i === 0) {
        text += `<${url(0)}#it> <http://www.w3.org/2000/01/rdf-schema#seeAlso> ${Array.from({ length: N - 1 }, (_v, j) => `<${url(j + 1)}>`).join(', ')} .\n`;
        docs.push(await signText(text, 'Turtle', signing, url(0)));
        links.push(undefined);
        continue;
      }
      if (i === 2) text += `<${url(2)}> <${PROOF_REL}> </proof/2> .\n`;
      const proof = await detachedProofText(text, 'Turtle', signing, url(i));
      if (i === 5) text = text.replace('dct:identifier "5"', 'dct:identifier "50"');
      docs.push(text);
      links.push(i === 2 ? undefined : i === 4 ? `http://127.0.0.1:${closedPort}/proof/4` : i === 6 ? '/proof/1' : `/proof/${i}`);
      const body = i === 7 ? `# padding\n${'#'.repeat(1 << 20)}\n${proof}` : i === 8 ? 'this is not a proof\n' : proof;
      if (i !== 3) proofs.set(`/proof/${i}`, { type: i === 8 ? 'text/plain' : 'text/turtle', body });
    }
  }, 120_000);
  afterAll(() => server?.close());

  it('fetches each proof document politely, archives it, verifies over the document, and records why one cannot be had', async () => {
    const dataDir = tempDir();
    const s = await crawl({ seeds: [`${server.url}/doc/0`], dataDir, depth: 2, delayMs: DELAY, perHost: 1, allowPrivate: true, vocabularies: false, trust }).run();
    // /proof/2, named by a triple, is also crawled as a link: a document of proofs only, unsigned data.
    expect(s.trust).toEqual({ verified: 3, 'proof-unavailable': 6, tampered: 1, unsigned: 1 });
    const rows = crawlLog(dataDir);
    const trustLine = (i: number) => (JSON.parse(String(rows.find((r) => r.url === `${server.url}/doc/${i}`)?.diagnostics ?? '[]')) as string[]).find((d) => / trust /.test(d));
    EXPECTED.forEach(([verdict, reason], i) => {
      expect(trustLine(i), `doc ${i}`).toContain(`trust ${verdict}`);
      expect(trustLine(i), `doc ${i}`).toMatch(reason);
    });
    // Every proof document that answered is archived, marked as fetched for a document.
    for (const p of ['/proof/1', '/proof/2', '/proof/5', '/proof/7', '/proof/8']) {
      const row = rows.find((r) => r.url === `${server.url}${p}`);
      expect(row, p).toBeDefined();
      expect(row!.warc_offset ?? row!.warcOffset).not.toBeNull();
      expect(String(row!.diagnostics)).toContain(PROOF_DOCUMENT_DIAGNOSTIC);
    }
    expect(server.requests.some((r) => r.path === '/proof/9')).toBe(false); // robots.txt said no
    // Polite: a proof is asked for no sooner than the crawl's delay after its document, and never at once with another request.
    for (const i of [5, 7, 8]) { // (proof 1 is asked for by doc 6 too, proof 2 is crawled as a link too)
      const doc = server.requests.find((r) => r.path === `/doc/${i}`)!;
      const proof = server.requests.find((r) => r.path === `/proof/${i}`)!;
      expect(proof.time - doc.time, `proof ${i}`).toBeGreaterThanOrEqual(DELAY - 5);
    }
    // The frontier spaces request starts as the crawler sees them; the server sees each a little later
    // (connection set-up under load), so between two arrivals half the delay is what can be asserted.
    const times = server.requests.filter((r) => r.path !== '/robots.txt').map((r) => r.time).sort((a, b) => a - b);
    for (let k = 1; k < times.length; k++) expect(times[k]! - times[k - 1]!).toBeGreaterThanOrEqual(DELAY / 2);
  }, 180_000);

  it('--trusted-only keeps the documents whose detached proofs verify', async () => {
    const dataDir = tempDir();
    await crawl({ seeds: [`${server.url}/doc/0`], dataDir, depth: 2, delayMs: 0, perHost: 2, allowPrivate: true, vocabularies: false, trust, trustedOnly: true }).run();
    const rows = crawlLog(dataDir);
    const kept = rows.filter((r) => /\/doc\/\d+$/.test(String(r.url)) && Number(r.triples) > 0).map((r) => Number(/(\d+)$/.exec(String(r.url))![1])).sort();
    expect(kept).toEqual([0, 1, 2]);
  }, 180_000);
});

describe('datamonitor sign --detached', () => {
  it('writes a proof document that verifies the untouched document, and not a changed one', async () => {
    const { parseDocument, verifyText } = await import('../../src/trust/document.ts');
    const fs = await import('node:fs');
    const dir = tempDir();
    const keyFile = `${dir}/me.key.json`;
    const did = (await runMainOk(['sign', '--generate-key', keyFile])).trim();
    const base = 'http://127.0.0.1:8080/people/grace';
    const text = '@prefix foaf: <http://xmlns.com/foaf/0.1/> .\n<#me> a foaf:Person ; foaf:name "Grace Hopper" ; foaf:knows [ foaf:name "Ada" ] .\n';
    fs.writeFileSync(`${dir}/grace.ttl`, text);
    await runMainOk(['sign', '--key', keyFile, '--base', base, '--detached', `${dir}/grace.proof.ttl`, `${dir}/grace.ttl`]);
    expect(fs.readFileSync(`${dir}/grace.ttl`, 'utf8')).toBe(text);
    const proofQuads = await parseDocument(fs.readFileSync(`${dir}/grace.proof.ttl`, 'utf8'), 'Turtle', `${base}.proof`, 'proof');
    const fetchProof = async () => ({ quads: proofQuads });
    const { verifyGraph } = await import('../../src/trust/proof.ts');
    const ok = await verifyGraph(await parseDocument(text, 'Turtle', base, 'doc'), parseTrustList(did), { documentIri: base, links: [`${base}.proof`], fetchProof });
    expect(ok).toMatchObject({ verdict: 'verified', signers: [did.slice('did:key:'.length)] });
    const changed = await verifyGraph(await parseDocument(text.replace('Ada', 'Charles'), 'Turtle', base, 'doc'), parseTrustList(did), { documentIri: base, links: [`${base}.proof`], fetchProof });
    expect(changed.verdict).toBe('tampered');
    // Without a way to fetch it, a linked proof is unavailable, not a failure of the caller.
    expect((await verifyText(text, 'Turtle', base)).verdict).toBe('unsigned');
    expect((await verifyGraph(await parseDocument(text, 'Turtle', base, 'doc'), undefined, { links: [`${base}.proof`] })).verdict).toBe('proof-unavailable');
  }, 120_000);
});
