import { createHash, sign as edSign, verify as edVerify } from 'node:crypto';
import type { Quad, Term } from '@rdfjs/types';
import { DataFactory } from 'n3';
import { canonicalize, quadToNQuads } from '../rdf/canonical.ts';
import { didKeyProblem, fromMultibase, multibase, multikeyOfMethod, publicKeyFromMultibase, publicKeyObject, type SigningKey, type TrustList } from './multikey.ts';

/**
 * W3C Data Integrity proofs of cryptosuite eddsa-rdfc-2022 over an RDF graph (vc-di-eddsa §3.3):
 * the graph without its proof is put in RDFC-1.0 canonical N-Quads, so is the proof's own
 * configuration (the proof without proofValue), and Ed25519 signs SHA-256(config) ‖ SHA-256(graph).
 * A proof is the RDF form JSON-LD gives one: `<doc> sec:proof P`, and P's triples (type
 * sec:DataIntegrityProof, cryptosuite, verificationMethod, proofPurpose, created, proofValue), in any
 * graph; so a Turtle document carries one as `<> sec:proof [ … ]`, and a JSON-LD credential's proof
 * graph is found the same way. Canonicalisation is the archive's (src/rdf/canonical.ts), so the
 * form that is signed is the form whose hash the archive records.
 */

export const SEC = 'https://w3id.org/security#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const XSD_DATETIME = 'http://www.w3.org/2001/XMLSchema#dateTime';
const DCT_CREATED = 'http://purl.org/dc/terms/created';
export const CRYPTOSUITE = 'eddsa-rdfc-2022';

export type Verdict = 'verified' | 'tampered' | 'untrusted-key' | 'unknown-cryptosuite' | 'other-canonical-form' | 'malformed' | 'proof-unavailable' | 'unsigned';

/**
 * Bounds on what one document can make verification do (a hostile publisher's graph is data, not a
 * program): proofs checked per document (VC proof sets have a few), statements a proof node may have
 * (a real one has 6), the length of a proofValue (an Ed25519 signature is 88 base58 characters at
 * most; base58 decoding is quadratic, so a megabyte of it is refused unread) and of a did:key, and
 * detached proof documents fetched per document.
 */
export const TRUST_LIMITS = {
  maxProofs: 16,
  maxProofStatements: 64,
  maxProofValueChars: 128,
  maxKeyChars: 256,
  maxDetached: 4,
};

export interface ProofResult {
  verdict: Exclude<Verdict, 'unsigned'>;
  /** The proof's verification method, as written. */
  verificationMethod?: string;
  /** The public Multikey the method resolved to (did:key, or the trust list's mapping). */
  key?: string;
  cryptosuite?: string;
  created?: string;
  /** Whether the signature holds over the canonical graph under `key` (checked only when the proof is well formed). */
  holds?: boolean;
  /** The detached proof document the proof came from (absent: embedded in the document). */
  source?: string;
  reason: string;
}

export interface TrustReport {
  /** The document's verdict: `verified` if any proof by a trusted key holds, else its most telling failure. */
  verdict: Verdict;
  /** The key of the proof that verified. */
  signedBy?: string;
  /** Every key whose proof holds over the canonical graph, trusted or not (in proof order, once each). */
  signers: string[];
  reason: string;
  proofs: ProofResult[];
}

/** Which failure speaks for a document whose proofs all failed: a broken signature first. */
const SEVERITY: ProofResult['verdict'][] = ['tampered', 'other-canonical-form', 'untrusted-key', 'unknown-cryptosuite', 'malformed', 'proof-unavailable'];

interface FoundProof {
  node: Term;
  /** The proof node's quads, proofValue included. */
  quads: Quad[];
}

const termKey = (t: Term): string => `${t.termType}:${t.value}`;

export interface SplitGraph {
  /** The unsecured document: every quad that is neither a proof's nor a `sec:proof` link. */
  document: Quad[];
  proofs: FoundProof[];
  /**
   * Detached proofs the graph links to: IRIs P of `<doc> sec:proof P` statements where P is neither
   * described in the graph nor one of its graph names (a proof kept in a document of its own).
   */
  detached: string[];
  /** For each proof, the subject of the `sec:proof` statement it hangs from (absent: a free DataIntegrityProof node). */
  owners: Map<FoundProof, string>;
}

/**
 * Splits a graph into its proofs and the rest (the unsecured document). `sec:proof` points at the
 * proof node (Turtle's `<> sec:proof [ … ]`) or, as JSON-LD's @graph container makes it, at a named
 * graph that holds the proof node: that whole graph is the proof's, never the document's. Linear in
 * the graph (maps, not scans), whatever the number of proof nodes.
 */
export function splitProofs(quads: Quad[]): SplitGraph {
  const graphNames = new Set<string>();
  const subjects = new Set<string>();
  for (const q of quads) {
    if (q.graph.termType !== 'DefaultGraph') graphNames.add(termKey(q.graph));
    subjects.add(termKey(q.subject));
  }
  const byNode = new Map<string, FoundProof>();
  const owners = new Map<FoundProof, string>();
  const proofGraphs = new Set<string>();
  const detached = new Set<string>();
  const add = (t: Term): FoundProof | undefined => {
    if (t.termType !== 'BlankNode' && t.termType !== 'NamedNode') return undefined;
    let p = byNode.get(termKey(t));
    if (!p) byNode.set(termKey(t), (p = { node: t, quads: [] }));
    return p;
  };
  const linked: Quad[] = [];
  /** Proof graph → the subject that links it. */
  const graphOwner = new Map<string, string>();
  for (const q of quads) {
    if (q.predicate.value === `${SEC}proof`) {
      const k = termKey(q.object);
      if (graphNames.has(k)) {
        proofGraphs.add(k);
        if (!graphOwner.has(k)) graphOwner.set(k, q.subject.value);
      } else if (q.object.termType === 'NamedNode' && !subjects.has(k)) detached.add(q.object.value);
      else linked.push(q);
    } else if (q.predicate.value === RDF_TYPE && q.object.value === `${SEC}DataIntegrityProof`) add(q.subject);
  }
  for (const q of linked) {
    const p = add(q.object);
    if (p && !owners.has(p)) owners.set(p, q.subject.value);
  }
  for (const q of quads) {
    const k = termKey(q.graph);
    if (!proofGraphs.has(k)) continue;
    const p = add(q.subject);
    if (p && !owners.has(p)) owners.set(p, graphOwner.get(k)!);
  }
  if (byNode.size === 0) return { document: quads.filter((q) => q.predicate.value !== `${SEC}proof`), proofs: [], detached: [...detached], owners };
  const document: Quad[] = [];
  for (const q of quads) {
    const p = byNode.get(termKey(q.subject));
    if (p) p.quads.push(q);
    else if (q.predicate.value !== `${SEC}proof` && !proofGraphs.has(termKey(q.graph))) document.push(q);
  }
  return { document, proofs: [...byNode.values()], detached: [...detached], owners };
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
  const node = await signProofNode(quads, key, opts.created);
  return [DataFactory.quad(DataFactory.namedNode(opts.documentIri), DataFactory.namedNode(`${SEC}proof`), node[0]!.subject), ...node];
}

/** A proof node's statements (`_:proof`, proofValue last) over `quads`, linked from nothing: what createProof hangs from the document. */
export async function signProofNode(quads: Quad[], key: SigningKey, created = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')): Promise<Quad[]> {
  const { namedNode, literal, blankNode, quad } = DataFactory;
  const node = blankNode('proof');
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
  return [...config, quad(node, namedNode(`${SEC}proofValue`), literal(multibase(signature), namedNode(`${SEC}multibase`)))];
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

/**
 * A small memo that forgets everything when full: a publisher signs every document with one key and
 * often one `created` date, so the proof options' canonical form and the key object repeat from
 * document to document (bench/TRUST.md measures what it saves), while a hostile crawl of a million
 * distinct proofs costs at most `size` entries.
 */
class Memo<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly size: number) {}
  async get(key: string, make: () => V | Promise<V>): Promise<V> {
    const hit = this.map.get(key);
    if (hit !== undefined) return hit;
    const v = await make();
    if (this.map.size >= this.size) this.map.clear();
    this.map.set(key, v);
    return v;
  }
}

const configMemo = new Memo<string | undefined>(256);
const keyMemo = new Memo<ReturnType<typeof publicKeyObject>>(256);

/** The proof options' canonical N-Quads, memoised by their lines with the proof node under one label. */
function canonicalConfig(proof: FoundProof): Promise<string | undefined> {
  const config = proofConfig(proof);
  const node = proof.node.termType === 'BlankNode' ? `_:${proof.node.value}` : undefined;
  const lines = config.map((q) => {
    const line = quadToNQuads(q);
    return node && q.subject.termType === 'BlankNode' && q.subject.value === proof.node.value ? `_:P${line.slice(node.length)}` : line;
  });
  // Other blank nodes keep their labels in the key: equal keys are then equal graphs, which is all a memo needs.
  return configMemo.get(lines.sort().join(''), () => canonicalNQuads(config));
}

/** What a document's proofs are checked against: its unsecured graph, canonical once for all its proofs. */
interface Subject {
  document: Quad[];
  canonical: string | undefined;
  /** otherForms, worked out only when a signature fails. */
  others?: string[];
}

async function checkProof(subject: Subject, proof: FoundProof, trust: TrustList | undefined): Promise<ProofResult> {
  const verificationMethod = value(proof, `${SEC}verificationMethod`);
  const cryptosuite = value(proof, `${SEC}cryptosuite`);
  const created = value(proof, DCT_CREATED);
  const type = proof.quads.find((q) => q.predicate.value === RDF_TYPE)?.object.value;
  const base = { verificationMethod: verificationMethod?.slice(0, TRUST_LIMITS.maxKeyChars), cryptosuite: cryptosuite?.slice(0, 100), created: created?.slice(0, 100) };
  if (proof.quads.length > TRUST_LIMITS.maxProofStatements) {
    return { ...base, verdict: 'malformed', reason: `the proof node has ${proof.quads.length} statements (a Data Integrity proof has about 6; more than ${TRUST_LIMITS.maxProofStatements} are not read)` };
  }
  if (type !== `${SEC}DataIntegrityProof`) {
    return { ...base, verdict: 'unknown-cryptosuite', reason: `proof type ${type ?? '(none)'} is not a DataIntegrityProof; only ${CRYPTOSUITE} proofs are checked` };
  }
  if (cryptosuite !== CRYPTOSUITE) {
    if (cryptosuite && /jcs/.test(cryptosuite)) {
      return { ...base, verdict: 'other-canonical-form', reason: `cryptosuite ${base.cryptosuite} signs the JSON text (JCS), not the RDF graph: it cannot be checked on the graph the crawler extracted` };
    }
    return { ...base, verdict: 'unknown-cryptosuite', reason: `cryptosuite ${base.cryptosuite ?? '(none)'} is not supported; only ${CRYPTOSUITE} proofs are checked` };
  }
  const proofValue = value(proof, `${SEC}proofValue`);
  if (proofValue !== undefined && proofValue.length > TRUST_LIMITS.maxProofValueChars) {
    return { ...base, verdict: 'malformed', reason: `proofValue is ${proofValue.length} characters long: an Ed25519 signature in base58btc is at most 89 (not decoded)` };
  }
  const signature = proofValue ? fromMultibase(proofValue) : undefined;
  if (signature?.length !== 64) return { ...base, verdict: 'malformed', reason: `proofValue ${proofValue === undefined ? 'is missing' : 'is not a multibase base58btc Ed25519 signature (64 bytes)'}` };
  if (!verificationMethod) return { ...base, verdict: 'malformed', reason: 'the proof has no verificationMethod' };
  const problem = didKeyProblem(verificationMethod);
  if (problem) return { ...base, verdict: 'malformed', reason: problem };
  const key = multikeyOfMethod(verificationMethod) ?? trust?.methods.get(verificationMethod);
  if (!key) {
    return { ...base, verdict: 'untrusted-key', reason: `verification method ${base.verificationMethod} is neither a did:key nor mapped to a key by the trust list (key documents are never fetched)` };
  }
  const cfg = await canonicalConfig(proof);
  if (cfg === undefined || subject.canonical === undefined) {
    return { ...base, key, verdict: 'malformed', reason: 'the graph has too many entangled blank nodes to canonicalise within the RDFC-1.0 work bound' };
  }
  const publicKey = await keyMemo.get(key, () => publicKeyObject(publicKeyFromMultibase(key)!));
  const holds = (doc: string): boolean => edVerify(null, hashData(cfg, doc), publicKey, signature);
  const ok = holds(subject.canonical);
  const trusted = trust === undefined || trust.keys.has(key);
  if (!trusted) {
    return { ...base, key, holds: ok, verdict: 'untrusted-key', reason: `signed by ${key} (signature ${ok ? 'holds' : 'does not hold'}), which is not in the trust list` };
  }
  if (ok) return { ...base, key, holds: true, verdict: 'verified', reason: `${CRYPTOSUITE} proof by ${key} holds over the RDFC-1.0 canonical graph` };
  subject.others ??= otherForms(subject.document);
  const other = subject.others.find((form) => form !== subject.canonical && holds(form));
  if (other !== undefined) {
    return { ...base, key, holds: false, verdict: 'other-canonical-form', reason: `the signature by ${key} holds over the graph's N-Quads as written, not over their RDFC-1.0 canonical form: re-sign the canonical form` };
  }
  return { ...base, key, holds: false, verdict: 'tampered', reason: `the signature by ${key} does not hold: the graph (or the proof's options) changed after it was signed` };
}

/** What a detached proof document gave: its graph, or why there is none (unreachable, 404, not RDF, too large…). */
export type DetachedProofDocument = { quads: Quad[] } | { error: string };

export interface VerifyOptions {
  /** The document's IRI: the subject a proof in a detached proof document hangs from. */
  documentIri?: string;
  /** Detached proofs named outside the graph: the response's `Link: <P>; rel="https://w3id.org/security#proof"` (absolute IRIs). */
  links?: string[];
  /** Fetches a detached proof document; without it a detached proof is `proof-unavailable`. */
  fetchProof?: (url: string) => Promise<DetachedProofDocument>;
}

/** The link relation of a detached proof: the security vocabulary's proof property, as an RFC 8288 extension relation. */
export const PROOF_REL = `${SEC}proof`;

/**
 * The proofs a detached proof document holds for `documentIri`: those hanging from it
 * (`<doc> sec:proof [ … ]`) and free DataIntegrityProof nodes; a proof hanging from another IRI is
 * another document's.
 */
function detachedProofs(url: string, got: DetachedProofDocument, documentIri: string | undefined): { proofs: FoundProof[] } | ProofResult {
  if ('error' in got) return { verdict: 'proof-unavailable', source: url, reason: `detached proof ${url}: ${got.error}` };
  const split = splitProofs(got.quads);
  const proofs = split.proofs.filter((p) => {
    const owner = split.owners.get(p);
    return owner === undefined || documentIri === undefined || owner === documentIri;
  });
  if (proofs.length > 0) return { proofs };
  const others = split.proofs.length > 0 ? ` (its ${split.proofs.length} proof${split.proofs.length > 1 ? 's hang' : ' hangs'} from another IRI)` : '';
  return { verdict: 'proof-unavailable', source: url, reason: `the detached proof document ${url} holds no Data Integrity proof for ${documentIri ?? 'the document'}${others}` };
}

/**
 * Checks every proof of a document: those in its graph and those of the detached proof documents it
 * links to (a `sec:proof` IRI the graph does not describe, or `opts.links`). Without a trust list any
 * key counts (the question is only whether the data is as signed); with one, a proof by another key
 * is `untrusted-key`. Bounded whatever the graph: at most TRUST_LIMITS.maxProofs proofs are checked
 * and TRUST_LIMITS.maxDetached proof documents fetched; the reason says how many more there were.
 */
export async function verifyGraph(quads: Quad[], trust?: TrustList, opts: VerifyOptions = {}): Promise<TrustReport> {
  const split = splitProofs(quads);
  const urls = [...new Set([...split.detached, ...(opts.links ?? [])])];
  if (split.proofs.length === 0 && urls.length === 0) return { verdict: 'unsigned', signers: [], reason: 'the document carries no Data Integrity proof', proofs: [] };
  // A detached proof document reached as a link (a `sec:proof` IRI is an IRI like any): proofs of other data, none of its own.
  if (split.document.length === 0 && urls.length === 0) {
    return { verdict: 'unsigned', signers: [], reason: `the document holds only ${split.proofs.length} Data Integrity proof${split.proofs.length > 1 ? 's' : ''} of other data (a detached proof document), no data of its own`, proofs: [] };
  }
  const results: ProofResult[] = [];
  const candidates: Array<{ proof: FoundProof; source?: string }> = split.proofs.map((proof) => ({ proof }));
  for (const url of urls.slice(0, TRUST_LIMITS.maxDetached)) {
    const got: DetachedProofDocument = opts.fetchProof ? await opts.fetchProof(url) : { error: 'detached proofs are not fetched here' };
    const found = detachedProofs(url, got, opts.documentIri);
    if ('verdict' in found) results.push(found);
    else for (const proof of found.proofs) candidates.push({ proof, source: url });
  }
  const subject: Subject = { document: split.document, canonical: candidates.length > 0 ? await canonicalNQuads(split.document) : undefined };
  for (const c of candidates.slice(0, TRUST_LIMITS.maxProofs)) {
    const r = await checkProof(subject, c.proof, trust);
    results.push(c.source ? { ...r, source: c.source, reason: `${r.reason} (detached proof ${c.source})` } : r);
  }
  const skipped = [
    candidates.length > TRUST_LIMITS.maxProofs ? `${candidates.length - TRUST_LIMITS.maxProofs} more proofs not checked (at most ${TRUST_LIMITS.maxProofs} a document)` : '',
    urls.length > TRUST_LIMITS.maxDetached ? `${urls.length - TRUST_LIMITS.maxDetached} more detached proof documents not fetched (at most ${TRUST_LIMITS.maxDetached} a document)` : '',
  ].filter(Boolean).join('; ');
  const more = skipped ? `; ${skipped}` : '';
  const signers = [...new Set(results.filter((r) => r.holds && r.key).map((r) => r.key!))];
  const ok = results.find((r) => r.verdict === 'verified');
  if (ok) return { verdict: 'verified', signedBy: ok.key, signers, reason: ok.reason + more, proofs: results };
  const worst = [...results].sort((a, b) => SEVERITY.indexOf(a.verdict) - SEVERITY.indexOf(b.verdict))[0]!;
  return { verdict: worst.verdict, signers, reason: worst.reason + more, proofs: results };
}
