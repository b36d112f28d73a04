import type { Quad } from '@rdfjs/types';
import { parseLinkHeader } from '../util/link-format.ts';
import type { HeaderPair } from '../util/headers.ts';
import type { TrustList } from './multikey.ts';
import { type DetachedProofDocument, PROOF_REL, type TrustReport, type Verdict, verifyGraph } from './proof.ts';
import { trustLine } from './record.ts';

/**
 * A verdict on a document's graph, given before it is archived (`crawl --trust`, trustVetter below):
 * the crawl log's line for it, and whether the graph is dropped (neither archived as RDF nor
 * followed; the response's bytes stay in the WARC file, as every fetch's do).
 */
export interface Vetting {
  line: string;
  drop: boolean;
  /** What the vetting found, for the crawl's consumer (e.g. the trust verdict and key). */
  detail?: unknown;
}

/** What the vetter knows of the response a graph came from. */
export interface VettedResponse {
  headers?: Iterable<HeaderPair>;
  /** When the document's response ended (epoch ms): a detached proof on its host waits the crawl's delay after it. */
  endedAt: number;
}

/** Fetches a detached proof document for the document at `documentUrl` (src/crawler/detached-proofs.ts). */
export type FetchProof = (url: string, documentUrl: string, documentEndedAt: number) => Promise<DetachedProofDocument>;

/** The detached proofs a response's Link headers name (`rel="https://w3id.org/security#proof"`), absolute. */
export function proofLinks(headers: Iterable<HeaderPair> | undefined, base: string): string[] {
  const out: string[] = [];
  for (const [name, value] of headers ?? []) {
    if (name.toLowerCase() !== 'link') continue;
    for (const link of parseLinkHeader(value)) {
      if (!link.rels.includes(PROOF_REL)) continue;
      try {
        out.push(new URL(link.target, base).href);
      } catch {
        // a target that is no URL names no proof
      }
    }
  }
  return out;
}

/**
 * `crawl --trust`: each parsed graph's proofs (embedded, or in a detached proof document it links to)
 * are checked before it is archived, and the verdict is a line of the document's crawl-log row
 * (src/trust/record.ts: `info: trust verified by did:key:…: …`, `warning: trust tampered: …`), from
 * which the archive's query index states it as facts of the version. With `trustedOnly` a graph that
 * is not verified by a trusted key is dropped: not archived as RDF, not followed.
 */
export function trustVetter(trust: TrustList, trustedOnly: boolean, counts?: Partial<Record<Verdict, number>>, fetchProof?: FetchProof): (url: string, quads: Quad[], response?: VettedResponse) => Promise<Vetting> {
  return async (url, quads, response) => {
    const report: TrustReport = await verifyGraph(quads, trust, {
      documentIri: url,
      links: proofLinks(response?.headers, url),
      fetchProof: fetchProof ? (proof) => fetchProof(proof, url, response?.endedAt ?? Date.now()) : undefined,
    });
    if (counts) counts[report.verdict] = (counts[report.verdict] ?? 0) + 1;
    const drop = trustedOnly && report.verdict !== 'verified';
    return { line: trustLine(report, drop ? ' (--trusted-only: graph not kept, links not followed)' : ''), drop, detail: report };
  };
}
