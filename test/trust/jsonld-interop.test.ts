import fs from 'node:fs';
import path from 'node:path';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import { contexts as dataIntegrityContexts } from '@digitalbazaar/data-integrity-context';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { cryptosuite as eddsaRdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { contexts as multikeyContexts } from '@digitalbazaar/multikey-context';
import jsigs from 'jsonld-signatures';
import { describe, expect, it } from 'vitest';
import { runMain as cli, tempDir } from '../helpers.ts';

/**
 * JSON-LD Data Integrity proofs against digitalbazaar's implementation (jsonld-signatures,
 * @digitalbazaar/data-integrity, @digitalbazaar/eddsa-rdfc-2022-cryptosuite), unmodified: what `sign`
 * writes verifies there, what it signs verifies with `verify-proof`, and a changed value fails on both.
 * Its document loader is static: contexts from their packages, the did:key documents made from the key.
 */

const DOCUMENT = {
  '@context': [
    'https://www.w3.org/ns/credentials/v2',
    { name: 'https://schema.org/name', knows: { '@id': 'https://schema.org/knows', '@type': '@id' }, address: 'https://schema.org/address', city: 'https://schema.org/addressLocality' },
  ],
  id: 'urn:uuid:7f3c1a52-d8ba-11ed-83dd-0b3aef56cc33',
  type: ['VerifiableCredential'],
  issuer: 'https://issuer.example/',
  validFrom: '2026-01-01T00:00:00Z',
  // blank nodes, which two canonicalisers must label alike
  credentialSubject: { name: 'Ada Lovelace', knows: 'https://other.example/charles#me', address: { city: 'London' } },
};

/** A document without the Data Integrity context, which jsonld-signatures adds when it signs. */
const PLAIN = {
  '@context': { name: 'https://schema.org/name', member: { '@id': 'https://schema.org/member', '@type': '@id' } },
  id: 'https://club.example/analytical',
  name: 'Analytical Society',
  member: ['https://other.example/charles#me', 'https://other.example/john#me'],
};

const CONTEXTS = new Map<string, unknown>([...credentialsContexts, ...dataIntegrityContexts, ...multikeyContexts]);

/** digitalbazaar's document loader: bundled contexts and the did:key documents of `keys`, nothing from the network. */
async function loaderFor(keyFile: { publicKeyMultibase: string }) {
  const key = await Ed25519Multikey.from({ ...keyFile, secretKeyMultibase: undefined });
  const method = await key.export({ publicKey: true, includeContext: true });
  const did = { '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'], id: key.controller, assertionMethod: [method] };
  const documents = new Map<string, unknown>([...CONTEXTS, [key.id, method], [key.controller, did]]);
  return async (url: string) => {
    const document = documents.get(url);
    if (document === undefined) throw new Error(`not in the static document loader: ${url}`);
    return { document: structuredClone(document), documentUrl: url, contextUrl: null };
  };
}

const verifyThere = async (document: object, loader: Awaited<ReturnType<typeof loaderFor>>) =>
  jsigs.verify(document, { suite: new DataIntegrityProof({ cryptosuite: eddsaRdfc2022 }), purpose: new jsigs.purposes.AssertionProofPurpose(), documentLoader: loader });

async function keyFile(dir: string): Promise<{ file: string; json: { publicKeyMultibase: string; secretKeyMultibase: string; id: string; controller: string } }> {
  const file = path.join(dir, 'me.key.json');
  expect((await cli(['sign', '--generate-key', file])).code).toBe(0);
  return { file, json: JSON.parse(fs.readFileSync(file, 'utf8')) };
}

describe('JSON-LD Data Integrity proofs, interoperable with digitalbazaar eddsa-rdfc-2022', () => {
  it('a document signed by `sign` verifies with jsonld-signatures; a changed value fails on both sides', async () => {
    const dir = tempDir();
    const key = await keyFile(dir);
    const doc = path.join(dir, 'credential.jsonld');
    fs.writeFileSync(doc, JSON.stringify(DOCUMENT, null, 2));
    const out = path.join(dir, 'credential.signed.jsonld');
    const signed = await cli(['sign', '--key', key.file, '--out', out, doc]);
    expect(signed.code, signed.err).toBe(0);
    const json = JSON.parse(fs.readFileSync(out, 'utf8'));
    expect(json.proof).toMatchObject({ type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022', proofPurpose: 'assertionMethod', verificationMethod: key.json.id });

    const loader = await loaderFor(key.json);
    const there = await verifyThere(json, loader);
    expect(there.verified, String(there.error)).toBe(true);
    const here = await cli(['verify-proof', '--json', out]);
    expect(here.code).toBe(0);
    expect(JSON.parse(here.out)[0].verdict).toBe('verified');

    const tampered = { ...json, credentialSubject: { ...json.credentialSubject, address: { city: 'Paris' } } };
    const tamperedFile = path.join(dir, 'credential.tampered.jsonld');
    fs.writeFileSync(tamperedFile, JSON.stringify(tampered));
    expect((await verifyThere(tampered, loader)).verified).toBe(false);
    const refused = await cli(['verify-proof', tamperedFile]);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('tampered');
  });

  it('a document signed by jsonld-signatures verifies with `verify-proof`; a changed value fails on both sides', async () => {
    const dir = tempDir();
    const key = await keyFile(dir);
    fs.writeFileSync(path.join(dir, 'trust.txt'), `${key.json.controller}\n`);
    const loader = await loaderFor(key.json);
    const pair = await Ed25519Multikey.from(key.json);
    const suite = new DataIntegrityProof({ signer: pair.signer(), cryptosuite: eddsaRdfc2022 });
    const signed = await jsigs.sign(structuredClone(PLAIN), { suite, purpose: new jsigs.purposes.AssertionProofPurpose(), documentLoader: loader });
    expect(signed['@context']).toContain('https://w3id.org/security/data-integrity/v2');
    const file = path.join(dir, 'club.jsonld');
    fs.writeFileSync(file, JSON.stringify(signed, null, 2));

    const here = await cli(['verify-proof', '--trust', path.join(dir, 'trust.txt'), '--json', file]);
    expect(here.code, here.out).toBe(0);
    expect(JSON.parse(here.out)[0]).toMatchObject({ verdict: 'verified', signedBy: key.json.publicKeyMultibase });

    const tampered = { ...signed, member: ['https://other.example/charles#me', 'https://other.example/mallory#me'] };
    const tamperedFile = path.join(dir, 'club.tampered.jsonld');
    fs.writeFileSync(tamperedFile, JSON.stringify(tampered, null, 2));
    expect((await verifyThere(tampered, loader)).verified).toBe(false);
    const refused = await cli(['verify-proof', '--trust', path.join(dir, 'trust.txt'), tamperedFile]);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('tampered');
  });

  it('relative IRIs need --base, which goes into the @context as @base, so that jsonld-signatures resolves them alike', async () => {
    const dir = tempDir();
    const key = await keyFile(dir);
    const doc = path.join(dir, 'me.jsonld');
    fs.writeFileSync(doc, JSON.stringify({ '@context': { name: 'https://schema.org/name' }, '@id': '#me', name: 'Grace Hopper' }));
    const refused = await cli(['sign', '--key', key.file, doc]);
    expect(refused.code).toBe(64);
    expect(refused.err).toContain('relative IRIs (<#me>)');
    const out = path.join(dir, 'me.signed.jsonld');
    expect((await cli(['sign', '--key', key.file, '--base', 'https://people.example/grace', '--out', out, doc])).code).toBe(0);
    const json = JSON.parse(fs.readFileSync(out, 'utf8'));
    expect(json['@context'][0]).toEqual({ '@base': 'https://people.example/grace' });
    const there = await verifyThere(json, await loaderFor(key.json));
    expect(there.verified, String(there.error)).toBe(true);
    expect((await cli(['verify-proof', out])).code).toBe(0);
  });

  it('says which context it lacks instead of fetching it', async () => {
    const dir = tempDir();
    const key = await keyFile(dir);
    const doc = path.join(dir, 'page.jsonld');
    fs.writeFileSync(doc, JSON.stringify({ '@context': 'https://schema.org/', '@id': 'https://example.org/a', name: 'A' }));
    const r = await cli(['sign', '--key', key.file, doc]);
    expect(r.code).toBe(64);
    expect(r.err).toContain('https://schema.org/');
    expect(r.err).toContain('inline');
  });
});
