import { DataFactory, type Quad } from 'n3';
import type { TrustReport, Verdict } from './proof.ts';

/**
 * How a version's trust verdict is recorded and read back. The crawl writes it as one line of the
 * document's crawl-log row; the archive's query index (src/versions/catch-up.ts) and `export
 * --provenance` read that line back and state it as facts of the version, in the graph
 * `dm:provenance` (docs/vocabulary.md):
 *
 *     <doc> dm:proofVerdict "verified" ; dm:proofReason "…" ; dm:signedBy <did:key:z6Mk…> .
 *
 * `dm:signedBy` names every key whose proof holds over the version's canonical graph, trusted or not;
 * `dm:proofVerdict "verified"` says one of them is in the trust list.
 */

const DM = 'https://w3id.org/datamonitor/ns#';
/** The graph of the facts: `PROVENANCE_GRAPH` of src/archive/export.ts, where export --provenance writes PROV-O. */
export const TRUST_GRAPH = `${DM}provenance`;
export const SIGNED_BY = `${DM}signedBy`;
export const PROOF_VERDICT = `${DM}proofVerdict`;
export const PROOF_REASON = `${DM}proofReason`;

const VERDICTS: readonly Verdict[] = ['verified', 'tampered', 'untrusted-key', 'unknown-cryptosuite', 'other-canonical-form', 'malformed', 'proof-unavailable', 'unsigned'];

export interface TrustFact {
  verdict: Verdict;
  /** did:key IRIs of the keys whose proofs hold. */
  signers: string[];
  reason: string;
}

/** The crawl-log line of a report: `<level>: trust <verdict>[ by did:key:K …]: <reason><suffix>`. */
export function trustLine(report: TrustReport, suffix = ''): string {
  const level = report.verdict === 'verified' || report.verdict === 'unsigned' ? 'info' : 'warning';
  const by = report.signers.length ? ` by ${report.signers.map((k) => `did:key:${k}`).join(' ')}` : '';
  // One line: a reason quoting a hostile document keeps no line break.
  return `${level}: trust ${report.verdict}${by}: ${report.reason.replace(/[\r\n]+/g, ' ')}${suffix}`;
}

const LINE = /^(?:info|warning): trust ([a-z-]+)(?: by ((?:did:key:z[1-9A-HJ-NP-Za-km-z]+ ?)+))?: (.*)$/s;

/** The verdict a crawl-log row recorded, if the crawl vetted it (its diagnostics hold a trust line). */
export function trustFactOf(diagnostics: readonly string[] | undefined): TrustFact | undefined {
  for (const d of diagnostics ?? []) {
    const m = LINE.exec(d);
    if (!m || !VERDICTS.includes(m[1] as Verdict)) continue;
    return { verdict: m[1] as Verdict, signers: m[2] ? m[2].trim().split(' ') : [], reason: m[3]! };
  }
  return undefined;
}

/** The facts of a version's verdict, about `document` (its graph's IRI), in `graph` (default: dm:provenance). */
export function trustQuads(document: string, fact: TrustFact, graph = TRUST_GRAPH): Quad[] {
  const { quad, namedNode, literal } = DataFactory;
  const g = namedNode(graph);
  const doc = namedNode(document);
  return [
    quad(doc, namedNode(PROOF_VERDICT), literal(fact.verdict), g),
    quad(doc, namedNode(PROOF_REASON), literal(fact.reason), g),
    ...fact.signers.map((k) => quad(doc, namedNode(SIGNED_BY), namedNode(k), g)),
  ];
}
