import { randomBytes, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalize, quadToNQuads } from '../../src/rdf/canonical.ts';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { parseDocument, signText, verifyText } from '../../src/trust/document.ts';
import { didKeyProblem, generateKeyFile, multibase, parseTrustList, signingKeyFromSecret } from '../../src/trust/multikey.ts';
import { createProof, hashData, TRUST_LIMITS } from '../../src/trust/proof.ts';
import { crawlLog, tempDir } from '../helpers.ts';

/**
 * Proofs a hostile (or broken) publisher serves: each must end in a verdict with its reason, in bounded
 * work, and never stop the crawl. The unit tests check the verdicts; the crawl serves all of them
 * from 127.0.0.1 between healthy signed documents and checks the crawl reaches the one after them.
 */

const key = generateKeyFile();
const signing = signingKeyFromSecret(key.secretKeyMultibase);
const trust = parseTrustList(`did:key:${key.publicKeyMultibase}\n`);
const SEC = 'https://w3id.org/security#';

/** A small Linked Data page with a blank node and a link to the next page. */
const page = (doc: string, i: number, next?: string): string => `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix ex: <http://example.org/vocab#> .
<${doc}#me> a foaf:Person ; foaf:name "Person ${i}" ; ex:address [ ex:city "City ${i}" ; ex:street "Street ${i}" ] ;
  foaf:knows <http://people.example/p${i + 1}#me> ${next ? `; <http://www.w3.org/2000/01/rdf-schema#seeAlso> <${next}>` : ''} .
`;

/** A P-256 did:key (multicodec 0x1200, compressed point): well formed, but not an Ed25519 key. */
const P256 = `did:key:${multibase(Buffer.concat([Buffer.from([0x80, 0x24, 0x02]), randomBytes(32)]))}`;

type Hostile = (doc: string, i: number, next?: string) => Promise<{ type: string; body: string }>;

const turtle = (body: string) => ({ type: 'text/turtle', body });
const signed = (doc: string, i: number, next?: string) => signText(page(doc, i, next), 'Turtle', signing, doc);
const proofNode = (method: string, value: string, created = '2026-12-01T00:00:00Z') =>
  `[ a <${SEC}DataIntegrityProof> ; <${SEC}cryptosuite> "eddsa-rdfc-2022" ; <${SEC}verificationMethod> <${method}> ; <${SEC}proofPurpose> <${SEC}assertionMethod> ; <http://purl.org/dc/terms/created> "${created}"^^<http://www.w3.org/2001/XMLSchema#dateTime> ; <${SEC}proofValue> "${value}" ]`;

/** Each hostile document, the verdict it must get and words of its reason. */
const HOSTILE: Array<{ name: string; verdict: string; reason: RegExp; make: Hostile }> = [
  {
    name: 'forged proofValue', verdict: 'tampered', reason: /does not hold/,
    make: async (doc, i, next) => turtle((await signed(doc, i, next)).replace(/"z[1-9A-HJ-NP-Za-km-z]{80,90}"/, `"${multibase(randomBytes(64))}"`)),
  },
  {
    name: 'a proof over another canonical form (the N-Triples as written)', verdict: 'other-canonical-form', reason: /as written/,
    make: async (doc, i, next) => {
      // No blank nodes: the parser's lines are the signer's lines.
      const text = page(doc, i, next).replace(/ex:address \[[^\]]*\] ;/, '');
      const quads = await parseDocument(text, 'Turtle', doc, doc);
      const proof = await createProof(quads, signing, { documentIri: doc, created: '2026-12-01T00:00:00Z' });
      const cfg = (await canonicalize(proof.slice(1, -1))).nquads;
      const naive = multibase(sign(null, hashData(cfg, quads.map(quadToNQuads).join('')), signing.privateKey));
      return { type: 'application/n-triples', body: [...quads, ...proof.slice(0, -1)].map(quadToNQuads).join('') + `_:proof <${SEC}proofValue> "${naive}" .\n` };
    },
  },
  {
    name: 'an unknown cryptosuite', verdict: 'unknown-cryptosuite', reason: /bbs-2023 is not supported/,
    make: async (doc, i, next) => turtle((await signed(doc, i, next)).replace('"eddsa-rdfc-2022"', '"bbs-2023"')),
  },
  {
    name: 'a huge proof (4 MB of proofValue)', verdict: 'malformed', reason: /proofValue is 4000001 characters long.*not decoded/,
    make: async (doc, i, next) => turtle((await signed(doc, i, next)).replace(/"z[1-9A-HJ-NP-Za-km-z]{80,90}"/, `"z${'A'.repeat(4_000_000)}"`)),
  },
  {
    name: '10,000 proof nodes', verdict: 'tampered', reason: /9984 more proofs not checked \(at most 16 a document\)/,
    make: async (doc, i, next) => {
      const proofs = Array.from({ length: 10_000 }, () => `<${doc}> <${SEC}proof> ${proofNode(`did:key:${key.publicKeyMultibase}#${key.publicKeyMultibase}`, multibase(randomBytes(64)))} .`);
      return turtle(`${page(doc, i, next)}${proofs.join('\n')}\n`);
    },
  },
  {
    name: 'a malformed multibase key', verdict: 'malformed', reason: /not valid base58btc/,
    make: async (doc, i, next) => turtle(`${page(doc, i, next)}<${doc}> <${SEC}proof> ${proofNode('did:key:z6MkO0Il0O0Il0O0Il', multibase(randomBytes(64)))} .\n`),
  },
  {
    name: 'a did:key of another curve', verdict: 'malformed', reason: /is a P-256 key: eddsa-rdfc-2022 proofs need an Ed25519 key/,
    make: async (doc, i, next) => turtle(`${page(doc, i, next)}<${doc}> <${SEC}proof> ${proofNode(P256, multibase(randomBytes(64)))} .\n`),
  },
];

describe('hostile proofs: each verdict with its reason', () => {
  const DOC = 'http://127.0.0.1:9/doc';
  for (const h of HOSTILE) {
    it(h.name, async () => {
      const { type, body } = await h.make(DOC, 1);
      const format = type === 'text/turtle' ? 'Turtle' : 'N-Triples';
      const r = await verifyText(body, format, DOC, trust);
      expect(r.verdict).toBe(h.verdict);
      expect(r.reason).toMatch(h.reason);
      expect(r.proofs.length).toBeLessThanOrEqual(TRUST_LIMITS.maxProofs);
      expect(r.signers).toEqual([]);
    }, 120_000);
  }

  it('names what is wrong with a did:key', () => {
    expect(didKeyProblem(`did:key:${key.publicKeyMultibase}`)).toBeUndefined();
    expect(didKeyProblem(`did:key:${key.publicKeyMultibase}#${key.publicKeyMultibase}`)).toBeUndefined();
    expect(didKeyProblem('https://example.org/keys/1')).toBeUndefined(); // not a did:key: a trust list may map it
    expect(didKeyProblem(`did:key:${key.publicKeyMultibase}#other`)).toMatch(/fragment/);
    expect(didKeyProblem('did:key:u6Mk')).toMatch(/must start with z/);
    expect(didKeyProblem(`did:key:z${'2'.repeat(10_000)}`)).toMatch(/not decoded/);
    expect(didKeyProblem(`did:key:${multibase(Buffer.from([0xe7, 0x01, 2, ...randomBytes(32)]))}`)).toMatch(/secp256k1/);
    expect(didKeyProblem(`did:key:${multibase(Buffer.from([0xed, 0x01, ...randomBytes(16)]))}`)).toMatch(/16 bytes/);
  });
});

describe('crawl --trust through a Web of hostile proofs', () => {
  let server: TestServer;
  const bodies = new Map<string, { type: string; body: string }>();
  beforeAll(async () => {
    server = await startServer((_req, res, u) => {
      const b = bodies.get(u.pathname);
      if (!b) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      res.writeHead(200, { 'content-type': b.type }).end(b.body);
    });
    const url = (i: number) => `${server.url}/doc/${i}`;
    // A chain: healthy 0 → hostile 1…7 → healthy 8; each page links only to the next.
    const last = HOSTILE.length + 1;
    bodies.set('/doc/0', turtle(await signed(url(0), 0, url(1))));
    for (let i = 1; i < last; i++) bodies.set(`/doc/${i}`, await HOSTILE[i - 1]!.make(url(i), i, url(i + 1)));
    bodies.set(`/doc/${last}`, turtle(await signed(url(last), last)));
  }, 120_000);
  afterAll(() => server?.close());

  it('records every reason and goes on to the healthy document after them', async () => {
    const dataDir = tempDir();
    const s = await crawl({ seeds: [`${server.url}/doc/0`], dataDir, depth: 20, delayMs: 0, perHost: 2, allowPrivate: true, vocabularies: false, robots: false, domains: ['127.0.0.1'], trust }).run();
    const rows = crawlLog(dataDir);
    const line = (i: number) => (JSON.parse(String(rows.find((r) => r.url === `${server.url}/doc/${i}`)?.diagnostics ?? '[]')) as string[]).find((d) => / trust /.test(d));
    expect(line(0)).toContain('trust verified');
    HOSTILE.forEach((h, k) => {
      expect(line(k + 1), h.name).toContain(`trust ${h.verdict}`);
      expect(line(k + 1), h.name).toMatch(h.reason);
    });
    expect(line(HOSTILE.length + 1)).toContain('trust verified');
    expect(s.trust?.verified).toBe(2);
    expect(s.errors).toBe(0);
    // Archived as fetched, every graph kept (without --trusted-only).
    for (let i = 0; i <= HOSTILE.length + 1; i++) expect(Number(rows.find((r) => r.url === `${server.url}/doc/${i}`)?.triples)).toBeGreaterThan(5);
  }, 300_000);
});
