import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/rdf/canonical.ts';
import { parseDocument, signText, verifyText } from '../../src/trust/document.ts';
import { generateKeyFile, parseTrustList, signingKeyFromSecret } from '../../src/trust/multikey.ts';
import { createProof, verifyGraph } from '../../src/trust/proof.ts';

const dir = path.join(import.meta.dirname, 'fixtures', 'vc-di-eddsa');
const credentialNq = fs.readFileSync(path.join(dir, 'credential.nq'), 'utf8');
const proofConfigNq = fs.readFileSync(path.join(dir, 'proof-config.nq'), 'utf8');
// vc-di-eddsa B.1, Examples 7 and 16 (fixtures/vc-di-eddsa/README.md).
const SPEC_SECRET = 'z3u2en7t5LR2WtQH5PfFqMqwVHBeXouLzo6haApm8XHqvjxq';
const SPEC_PUBLIC = 'z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2';
const SPEC_PROOF_VALUE = 'z2YwC8z3ap7yx1nZYCg4L3j3ApHsF8kgPdSb5xoS1VR7vPG3F561B52hYnQF9iseabecm3ijx4K1FBTQsCZahKZme';
const CREDENTIAL = 'urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33';

/** The spec's signed credential as JSON-LD's toRdf gives it: the proof in a graph named by sec:proof. */
function signedCredentialNq(proofValue = SPEC_PROOF_VALUE, document = credentialNq): string {
  const proof = proofConfigNq.replace(/_:c14n0 (.*) \.\n/g, '_:p $1 _:g .\n');
  return `${document}<${CREDENTIAL}> <https://w3id.org/security#proof> _:g .\n${proof}_:p <https://w3id.org/security#proofValue> "${proofValue}"^^<https://w3id.org/security#multibase> _:g .\n`;
}

describe('eddsa-rdfc-2022 against the published vc-di-eddsa test vectors', () => {
  it('reproduces the canonical document, the spec key and the spec signature', async () => {
    const doc = await canonicalize(await parseDocument(credentialNq, 'N-Quads', 'http://x/', 'credential'));
    expect(doc.nquads).toBe(credentialNq);
    expect(createHash('sha256').update(doc.nquads).digest('hex')).toBe('517744132ae165a5349155bef0bb0cf2258fff99dfe1dbd914b938d775a36017');
    const key = signingKeyFromSecret(SPEC_SECRET);
    expect(key.publicKeyMultibase).toBe(SPEC_PUBLIC);
    // Ed25519 is deterministic: the same hashData under the spec's key gives the spec's proofValue.
    const proof = await createProof(await parseDocument(credentialNq, 'N-Quads', 'http://x/', 'credential'), key, { documentIri: CREDENTIAL, created: '2023-02-24T23:36:38Z' });
    const value = proof.find((q) => q.predicate.value.endsWith('#proofValue'))?.object.value;
    expect(value).toBe(SPEC_PROOF_VALUE);
  });

  it('verifies the spec credential by the spec key, and only with that key trusted', async () => {
    const trusted = parseTrustList(`# the W3C editors' example key\ndid:key:${SPEC_PUBLIC}\n`);
    const r = await verifyText(signedCredentialNq(), 'N-Quads', 'http://x/', trusted);
    expect(r.verdict).toBe('verified');
    expect(r.signedBy).toBe(SPEC_PUBLIC);
    const other = parseTrustList(generateKeyFile().publicKeyMultibase);
    const u = await verifyText(signedCredentialNq(), 'N-Quads', 'http://x/', other);
    expect(u.verdict).toBe('untrusted-key');
    expect(u.reason).toContain('signature holds');
  });

  it('says tampered when one literal of the spec credential changes', async () => {
    const forged = credentialNq.replace('"Alumni Credential"', '"Alumna Credential"');
    const r = await verifyText(signedCredentialNq(SPEC_PROOF_VALUE, forged), 'N-Quads', 'http://x/');
    expect(r.verdict).toBe('tampered');
    expect(r.reason).toContain(SPEC_PUBLIC);
  });

  it('says tampered when the proof options change (a later created date)', async () => {
    const text = signedCredentialNq().replace('2023-02-24T23:36:38Z', '2024-02-24T23:36:38Z');
    expect((await verifyText(text, 'N-Quads', 'http://x/')).verdict).toBe('tampered');
  });
});

const TURTLE = `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix ex: <http://example.org/vocab#> .
# a person page as a small Linked Data site publishes it
<#me> a foaf:Person ; foaf:name "Ada Lovelace" ; foaf:knows <http://other.example/charles#me> ;
  ex:address [ ex:city "London" ; ex:street "St James's Square" ] ;
  ex:note [ ex:text "born 1815" ] .
`;
const DOC = 'http://127.0.0.1:8080/people/ada';

describe('sign and verify a Turtle document', () => {
  it('round-trips: signed text verifies, by the signing key, and keeps the original text', async () => {
    const file = generateKeyFile();
    const key = signingKeyFromSecret(file.secretKeyMultibase);
    const signed = await signText(TURTLE, 'Turtle', key, DOC);
    expect(signed.startsWith(TURTLE)).toBe(true);
    const r = await verifyText(signed, 'Turtle', DOC, parseTrustList(file.id));
    expect(r).toMatchObject({ verdict: 'verified', signedBy: file.publicKeyMultibase });
    // blank nodes relabelled by another parse (N-Triples with other labels) still verify: the form is canonical
    const quads = await parseDocument(signed, 'Turtle', DOC, 'signed');
    const reordered = quads.map((q) => q).reverse();
    expect((await verifyGraph(reordered)).verdict).toBe('verified');
  });

  it('says tampered when one triple changes, and names the key', async () => {
    const file = generateKeyFile();
    const signed = await signText(TURTLE, 'Turtle', signingKeyFromSecret(file.secretKeyMultibase), DOC);
    const r = await verifyText(signed.replace('"London"', '"Paris"'), 'Turtle', DOC);
    expect(r.verdict).toBe('tampered');
    expect(r.reason).toContain(file.publicKeyMultibase);
    const added = await verifyText(`${signed}<#me> foaf:age 36 .\n`, 'Turtle', DOC);
    expect(added.verdict).toBe('tampered');
  });

  it('says unsigned, unknown cryptosuite and JCS (another canonical form) with their reasons', async () => {
    expect((await verifyText(TURTLE, 'Turtle', DOC)).verdict).toBe('unsigned');
    const file = generateKeyFile();
    const signed = await signText(TURTLE, 'Turtle', signingKeyFromSecret(file.secretKeyMultibase), DOC);
    const ecdsa = await verifyText(signed.replace('"eddsa-rdfc-2022"', '"ecdsa-rdfc-2019"'), 'Turtle', DOC);
    expect(ecdsa.verdict).toBe('unknown-cryptosuite');
    expect(ecdsa.reason).toContain('ecdsa-rdfc-2019');
    const jcs = await verifyText(signed.replace('"eddsa-rdfc-2022"', '"eddsa-jcs-2022"'), 'Turtle', DOC);
    expect(jcs.verdict).toBe('other-canonical-form');
  });

  it('says other-canonical-form for a signature over the N-Quads as written instead of RDFC-1.0', async () => {
    const file = generateKeyFile();
    const key = signingKeyFromSecret(file.secretKeyMultibase);
    // No blank nodes: the parser keeps every term as written, so the naive signer's lines are ours.
    const plain = TURTLE.replace(/ ;\n {2}ex:address[\s\S]*$/, ' .\n');
    const quads = await parseDocument(plain, 'Turtle', DOC, 'doc');
    expect(quads.length).toBe(3);
    const proof = await createProof(quads, key, { documentIri: DOC, created: '2026-01-01T00:00:00Z' });
    // Re-sign the same proof options over the document's lines in parse order (a naive signer).
    const { sign } = await import('node:crypto');
    const { hashData } = await import('../../src/trust/proof.ts');
    const { quadToNQuads } = await import('../../src/rdf/canonical.ts');
    const { multibase } = await import('../../src/trust/multikey.ts');
    const cfg = (await canonicalize(proof.slice(1, -1))).nquads;
    const naive = multibase(sign(null, hashData(cfg, quads.map(quadToNQuads).join('')), key.privateKey));
    const withProof = [...quads, ...proof.slice(0, -1)].map(quadToNQuads).join('') + `_:proof <https://w3id.org/security#proofValue> "${naive}" .\n`;
    const r = await verifyText(withProof, 'N-Quads', DOC);
    expect(r.verdict).toBe('other-canonical-form');
    expect(r.reason).toContain('as written');
  });

  it('refuses a trust list line that is not a key, naming the line', () => {
    expect(() => parseTrustList('did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2\nhttps://example.org/key\n', 'keys.txt')).toThrow(/keys.txt line 2/);
  });
});
