/** HTTP content negotiation (RFC 9110 §12.5.1): the offer the client's Accept header prefers. */
import { essenceOf } from '../util/content-type.ts';

interface Range {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): Range[] {
  const ranges: Range[] = [];
  for (const part of header.split(',')) {
    const [mt, ...params] = part.trim().split(';');
    const [type, subtype] = (mt ?? '').trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([\d.]+)\s*$/i.exec(p);
      if (m) q = Math.min(1, Math.max(0, Number(m[1]) || 0));
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The q a header gives one media type: that of the most specific range matching it (0 when none does). */
function quality(ranges: Range[], offer: string): number {
  const [type, subtype] = essenceOf(offer).split('/');
  let best = -1;
  let q = 0;
  for (const r of ranges) {
    const specificity = r.type === type && r.subtype === subtype ? 2 : r.type === type && r.subtype === '*' ? 1 : r.type === '*' && r.subtype === '*' ? 0 : -1;
    if (specificity > best) {
      best = specificity;
      q = r.q;
    }
  }
  return q;
}

/**
 * The offer the client prefers: highest q, the earlier offer on a tie (so list the default first);
 * undefined when the header refuses every offer. No header accepts anything.
 */
export function preferred(accept: string | string[] | undefined, offers: string[]): string | undefined {
  const header = Array.isArray(accept) ? accept.join(',') : accept;
  if (!header?.trim()) return offers[0];
  const ranges = parseAccept(header);
  if (ranges.length === 0) return offers[0];
  let best: string | undefined;
  let bestQ = 0;
  for (const o of offers) {
    const q = quality(ranges, o);
    if (q > bestQ) {
      best = o;
      bestQ = q;
    }
  }
  return best;
}
