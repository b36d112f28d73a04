import { createHash, sign as edSign, verify as edVerify } from 'node:crypto';
import type { Quad, Term } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { canonicalize, quadToNQuads } from '../archive/canonical.ts';
import { fromMultibase, multibase, multikeyOfMethod, publicKeyFromMultibase, publicKeyObject, type SigningKey, type TrustList } from './multikey.ts';

/**
 * W3C Data Integrity proofs of cryptosuite eddsa-rdfc-2022 over an RDF graph (vc-di-eddsa §3.3):
 * the graph without its proof is put in RDFC-1.0 canonical N-Quads, so is the proof's own
 * configuration (the proof without proofValue), and Ed25519 signs SHA-256(config) ‖ SHA-256(graph).
 * A proof is the RDF form JSON-LD gives one: `<doc> sec:proof P`, and P's triples (type
 * sec:DataIntegrityProof, cryptosuite, verificationMethod, proofPurpose, created, proofValue), in any
 * graph; so a Turtle document carries one as `<> sec:proof [ … ]`, and a JSON-LD credential's proof
 * graph is found the same way. Canonicalisation is the archive's (src/archive/canonical.ts), so the
 * form that is signed is the form whose hash the archive records.
 */

export const SEC = 'https://w3id.org/security#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const XSD_DATETIME = 'http://www.w3.org/2001/XMLSchema#dateTime';
const DCT_CREATED = 'http://purl.org/dc/terms/created';
export const CRYPTOSUITE = 'eddsa-rdfc-2022';

export type Verdict = 'verified' | 'tampered' | 'untrusted-key' | 'unknown-cryptosuite' | 'other-canonical-form' | 'malformed' | 'unsigned';

export interface ProofResult {
  verdict: Exclude<Verdict, 'unsigned'>;
  /** The proof's verification method, as written. */
  verificationMethod?: string;
  /** The public Multikey the method resolved to (did:key, or the trust list's mapping). */
  key?: string;
  cryptosuite?: string;
  created?: string;
  reason: string;
}

export interface TrustReport {
  /** The document's verdict: `verified` if any proof by a trusted key holds, else its most telling failure. */
  verdict: Verdict;
  /** The key of the proof that verified. */
  signedBy?: string;
  reason: string;
  proofs: ProofResult[];
}

/** Which failure speaks for a document whose proofs all failed: a broken signature first. */
const SEVERITY: ProofResult['verdict'][] = ['tampered', 'other-canonical-form', 'untrusted-key', 'unknown-cryptosuite', 'malformed'];

interface FoundProof {
  node: Term;
  /** The proof node's quads, proofValue included. */
  quads: Quad[];
}

const same = (a: Term, b: Term): boolean => a.termType === b.termType && a.value === b.value;

/**
 * Splits a graph into its proofs and the rest (the unsecured document). `sec:proof` points at the
 * proof node (Turtle's `<> sec:proof [ … ]`) or, as JSON-LD's @graph container makes it, at a named
 * graph that holds the proof node: that whole graph is the proof's, never the document's.
 */
export function splitProofs(quads: Quad[]): { document: Quad[]; proofs: FoundProof[] } {
  const graphNames = new Set<string>();
  for (const q of quads) if (q.graph.termType !== 'DefaultGraph') graphNames.add(`${q.graph.termType}:${q.graph.value}`);
  const key = (t: Term): string => `${t.termType}:${t.value}`;
  const nodes: Term[] = [];
  const proofGraphs = new Set<string>();
  const add = (t: Term): void => {
    if ((t.termType === 'BlankNode' || t.termType === 'NamedNode') && !nodes.some((n) => same(n, t))) nodes.push(t);
  };
  for (const q of quads) {
    if (q.predicate.value === `${SEC}proof`) {
      if (graphNames.has(key(q.object))) proofGraphs.add(key(q.object));
      else add(q.object);
    } else if (q.predicate.value === RDF_TYPE && q.object.value === `${SEC}DataIntegrityProof`) add(q.subject);
  }
  for (const q of quads) if (proofGraphs.has(key(q.graph))) add(q.subject);
  if (nodes.length === 0) return { document: quads, proofs: [] };
  const proofs: FoundProof[] = nodes.map((node) => ({ node, quads: [] }));
  const document: Quad[] = [];
  for (const q of quads) {
    const p = proofs.find((f) => same(f.node, q.subject));
    if (p) p.quads.push(q);
    else if (q.predicate.value !== `${SEC}proof` && !proofGraphs.has(key(q.graph))) document.push(q);
  }
  return { document, proofs };
}

/** The proof's configuration as its own graph: its quads without proofValue, in the default graph. */
function proofConfig(proof: FoundProof): Quad[] {
  return proof.quads.filter((q) => q.predicate.value !== `${SEC}proofValue`).map((q) => DataFactory.quad(q.subject as Quad['subject'], q.predicate as Quad['predicate'], q.object as Quad['object']));
}

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Canonical N-Quads, or undefined when the graph is past what RDFC-1.0 is allowed to take here. */
async function canonicalNQuads(quads: Quad[]): Promise<string | undefined> {
  const c = await canonicalize(quads);
  return c.method === 'approximate' ? undefined : c.nquads;
}

/** hashData of vc-di-eddsa §3.3.4: SHA-256(canonical proof config) ‖ SHA-256(canonical document). */
export function hashData(canonicalConfig: string, canonicalDocument: string): Buffer {
  return Buffer.concat([sha256(canonicalConfig), sha256(canonicalDocument)]);
}

export interface SignOptions {
  /** The IRI the proof hangs from (`<doc> sec:proof …`): the document's own URL. */
  documentIri: string;
  /** xsd:dateTime of the proof; now if not given. */
  created?: string;
}

/**
 * The quads of a new proof over `quads` (which must not already hold one by this key: sign the
 * unsecured graph). The proof node is a blank node; callers write it where no label can clash.
 */
export async function createProof(quads: Quad[], key: SigningKey, opts: SignOptions): Promise<Quad[]> {
  const { namedNode, literal, blankNode, quad } = DataFactory;
  const node = blankNode('proof');
  const created = opts.created ?? `${new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
  const config = [
    quad(node, namedNode(RDF_TYPE), namedNode(`${SEC}DataIntegrityProof`)),
    quad(node, namedNode(`${SEC}cryptosuite`), literal(CRYPTOSUITE, namedNode(`${SEC}cryptosuiteString`))),
    quad(node, namedNode(`${SEC}verificationMethod`), namedNode(key.verificationMethod)),
    quad(node, namedNode(`${SEC}proofPurpose`), namedNode(`${SEC}assertionMethod`)),
    quad(node, namedNode(DCT_CREATED), literal(created, namedNode(XSD_DATETIME))),
  ];
  const doc = await canonicalNQuads(quads);
  const cfg = await canonicalNQuads(config);
  if (doc === undefined || cfg === undefined) throw new Error('the graph has too many entangled blank nodes to canonicalise within the RDFC-1.0 work bound: it cannot be signed');
  const signature = edSign(null, hashData(cfg, doc), key.privateKey);
  return [
    quad(namedNode(opts.documentIri), namedNode(`${SEC}proof`), node),
    ...config,
    quad(node, namedNode(`${SEC}proofValue`), literal(multibase(signature), namedNode(`${SEC}multibase`))),
  ];
}

function value(proof: FoundProof, predicate: string): string | undefined {
  return proof.quads.find((q) => q.predicate.value === predicate)?.object.value;
}

/**
 * Forms a signer may have hashed instead of RDFC-1.0: the lines as parsed (document order, the
 * parser's blank node labels) and those lines sorted. A signature that holds over one of them is
 * genuine but not over the canonical form, so the graph's next serialisation would break it.
 */
function otherForms(document: Quad[]): string[] {
  const lines = document.map(quadToNQuads);
  return [lines.join(''), [...new Set(lines)].sort().join('')];
}

async function checkProof(document: Quad[], canonicalDocument: string | undefined, proof: FoundProof, trust: TrustList | undefined): Promise<ProofResult> {
  const verificationMethod = value(proof, `${SEC}verificationMethod`);
  const cryptosuite = value(proof, `${SEC}cryptosuite`);
  const created = value(proof, DCT_CREATED) ?? value(proof, 'http://purl.org/dc/terms/created');
  const type = proof.quads.find((q) => q.predicate.value === RDF_TYPE)?.object.value;
  const base = { verificationMethod, cryptosuite, created };
  if (type !== `${SEC}DataIntegrityProof`) {
    return { ...base, verdict: 'unknown-cryptosuite', reason: `proof type ${type ?? '(none)'} is not a DataIntegrityProof; only ${CRYPTOSUITE} proofs are checked` };
  }
  if (cryptosuite !== CRYPTOSUITE) {
    if (cryptosuite && /jcs/.test(cryptosuite)) {
      return { ...base, verdict: 'other-canonical-form', reason: `cryptosuite ${cryptosuite} signs the JSON text (JCS), not the RDF graph: it cannot be checked on the graph the crawler extracted` };
    }
    return { ...base, verdict: 'unknown-cryptosuite', reason: `cryptosuite ${cryptosuite ?? '(none)'} is not supported; only ${CRYPTOSUITE} proofs are checked` };
  }
  const proofValue = value(proof, `${SEC}proofValue`);
  const signature = proofValue ? fromMultibase(proofValue) : undefined;
  if (signature?.length !== 64) return { ...base, verdict: 'malformed', reason: `proofValue ${proofValue === undefined ? 'is missing' : 'is not a multibase base58btc Ed25519 signature (64 bytes)'}` };
  if (!verificationMethod) return { ...base, verdict: 'malformed', reason: 'the proof has no verificationMethod' };
  const key = multikeyOfMethod(verificationMethod) ?? trust?.methods.get(verificationMethod);
  if (!key) {
    return { ...base, verdict: 'untrusted-key', reason: `verification method ${verificationMethod} is neither a did:key nor mapped to a key by the trust list (key documents are never fetched)` };
  }
  const cfg = await canonicalNQuads(proofConfig(proof));
  if (cfg === undefined || canonicalDocument === undefined) {
    return { ...base, key, verdict: 'malformed', reason: 'the graph has too many entangled blank nodes to canonicalise within the RDFC-1.0 work bound' };
  }
  const publicKey = publicKeyObject(publicKeyFromMultibase(key)!);
  const holds = (doc: string): boolean => edVerify(null, hashData(cfg, doc), publicKey, signature);
  const ok = holds(canonicalDocument);
  const trusted = trust === undefined || trust.keys.has(key);
  if (!trusted) {
    return { ...base, key, verdict: 'untrusted-key', reason: `signed by ${key} (signature ${ok ? 'holds' : 'does not hold'}), which is not in the trust list` };
  }
  if (ok) return { ...base, key, verdict: 'verified', reason: `${CRYPTOSUITE} proof by ${key} holds over the RDFC-1.0 canonical graph` };
  const other = otherForms(document).find((form) => form !== canonicalDocument && holds(form));
  if (other !== undefined) {
    return { ...base, key, verdict: 'other-canonical-form', reason: `the signature by ${key} holds over the graph's N-Quads as written, not over their RDFC-1.0 canonical form: re-sign the canonical form` };
  }
  return { ...base, key, verdict: 'tampered', reason: `the signature by ${key} does not hold: the graph (or the proof's options) changed after it was signed` };
}

/**
 * Checks every proof in a document's graph. Without a trust list any key counts (the question is
 * only whether the data is as signed); with one, a proof by another key is `untrusted-key`.
 */
export async function verifyGraph(quads: Quad[], trust?: TrustList): Promise<TrustReport> {
  const { document, proofs } = splitProofs(quads);
  if (proofs.length === 0) return { verdict: 'unsigned', reason: 'the document carries no Data Integrity proof', proofs: [] };
  const canonicalDocument = await canonicalNQuads(document);
  const results: ProofResult[] = [];
  for (const p of proofs) results.push(await checkProof(document, canonicalDocument, p, trust));
  const ok = results.find((r) => r.verdict === 'verified');
  if (ok) return { verdict: 'verified', signedBy: ok.key, reason: ok.reason, proofs: results };
  const worst = [...results].sort((a, b) => SEVERITY.indexOf(a.verdict) - SEVERITY.indexOf(b.verdict))[0]!;
  return { verdict: worst.verdict, reason: worst.reason, proofs: results };
}
