import type { Quad } from '@rdfjs/types';
import type { Vetting } from '../crawler/capture.ts';
import type { TrustList } from './multikey.ts';
import { type TrustReport, type Verdict, verifyGraph } from './proof.ts';

/**
 * `crawl --trust`: each parsed graph's proofs are checked before it is archived, and the verdict is
 * a line of the document's crawl-log row (`info: trust verified by did:key:…`, `warning: trust
 * tampered: …`). With `trustedOnly` a graph that is not verified by a trusted key is dropped: not
 * archived as RDF, not followed.
 */
export function trustVetter(trust: TrustList, trustedOnly: boolean, counts?: Partial<Record<Verdict, number>>): (url: string, quads: Quad[]) => Promise<Vetting> {
  return async (_url, quads) => {
    const report: TrustReport = await verifyGraph(quads, trust);
    if (counts) counts[report.verdict] = (counts[report.verdict] ?? 0) + 1;
    const ok = report.verdict === 'verified';
    const drop = trustedOnly && !ok;
    const line = ok
      ? `info: trust verified by did:key:${report.signedBy}`
      : `${report.verdict === 'unsigned' ? 'info' : 'warning'}: trust ${report.verdict}: ${report.reason}${drop ? ' (--trusted-only: graph not kept, links not followed)' : ''}`;
    return { line, drop, detail: report };
  };
}
