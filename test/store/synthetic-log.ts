/**
 * A crawl log of a few hundred entries with what the server's reads must tell apart: several hosts (with
 * `www.`, https and a port), paths in mixed letter case, statuses from none to 5xx, every change state,
 * entries without a WARC record, captures in the same second and payloads that repeat (revisits).
 */
import type { CrawlLogEntry } from '../../src/store/types.ts';

export const SYNTHETIC_T0 = Date.UTC(2025, 0, 1);

const URLS = [
  'http://a.example/', 'http://a.example/data/amy', 'http://a.example/data/Zed', 'http://a.example/data/bob?x=1',
  'https://a.example/data/amy', 'http://www.a.example/data/cat', 'http://a.example:8080/data/amy',
  'http://b.example/Resource/Berlin', 'http://b.example/resource/apple', 'http://sub.a.example/x', 'http://a.examples/data/amy',
];
const STATUSES = [200, 200, 200, 304, 404, 500, 0, 301];
const CHANGES = ['new', 'changed', 'unchanged', 'unchanged', 'error'] as const;

/** `n` entries, deterministic (a small LCG), in log order. */
export function syntheticLog(n = 300): CrawlLogEntry[] {
  let seed = 42;
  const next = (k: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % k);
  let time = SYNTHETIC_T0;
  return Array.from({ length: n }, (): CrawlLogEntry => {
    time += next(4) === 0 ? next(999) : 1000 + next(120_000); // some captures fall in the same second
    const status = STATUSES[next(STATUSES.length)]!;
    const change = status === 0 || status >= 500 ? 'error' : CHANGES[next(4)]!;
    const warc = status !== 0 && next(10) !== 0;
    return {
      url: URLS[next(URLS.length)]!, time, status, durationMs: next(500), bytes: next(5000), triples: next(50), change,
      mediaType: next(3) === 0 ? undefined : 'text/turtle', checksum: next(6) === 0 ? undefined : `sha1:D${next(3)}`,
      ...(warc ? { warcFile: `w${next(2)}.warc.gz`, warcOffset: next(1e6), warcLength: 1 + next(900) } : {}),
    };
  });
}
