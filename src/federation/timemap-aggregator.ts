/**
 * A Memento TimeMap aggregator (RFC 7089) for a federation of archives (seed 000, section 2):
 * asks every archive for its TimeMap of a URL, at `GET <base>/timemap/link/<url>` (the URL
 * appended as is, the Wayback convention), and merges the mementos into one TimeMap sorted by
 * datetime, served as application/link-format or JSON. An archive that is down, slow or answers
 * garbage costs its mementos, not the answer: the result is partial and says why.
 */
import { formatLinkFormat, parseLinkFormat, rels, type Link } from '../util/link-format.ts';

export interface Memento {
  uri: string;
  /** Epoch ms. */
  datetime: number;
  /** Base URL of the archive that holds it. */
  archive: string;
}

export interface ArchiveAnswer {
  archive: string;
  /**
   * 'ok' (mementos listed, possibly none), 'none' (404: the archive holds no version), 'failed' (down,
   * slow, or an unreadable answer), or 'skipped' (not asked: its published holdings lack the URL).
   */
  status: 'ok' | 'none' | 'failed' | 'skipped';
  mementos: number;
  error?: string;
}

export interface AggregatedTimeMap {
  original: string;
  mementos: Memento[];
  archives: ArchiveAnswer[];
  /** One line per archive that failed or per entry that could not be read. */
  warnings: string[];
}

export interface AggregatorOptions {
  /** Per archive, for the whole request including the body (default 5000). */
  timeoutMs?: number;
  /** Largest TimeMap read from one archive (default 16 MiB). */
  maxBytes?: number;
}

export function timeMapUrl(base: string, url: string, format: 'link' | 'json' = 'link'): string {
  return `${base.replace(/\/+$/, '')}/timemap/${format}/${url}`;
}

/** The body as text, or an error once it passes `maxBytes` (an archive must not make the aggregator buffer gigabytes). */
export async function readCapped(res: Response, maxBytes: number, what = 'TimeMap'): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`${what} larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One archive's mementos of `url`; never throws (a failure is an answer with an error). */
async function askArchive(base: string, url: string, o: Required<AggregatorOptions>): Promise<{ answer: ArchiveAnswer; mementos: Memento[]; warnings: string[] }> {
  const warnings: string[] = [];
  try {
    const res = await fetch(timeMapUrl(base, url), { signal: AbortSignal.timeout(o.timeoutMs), headers: { accept: 'application/link-format' } });
    if (res.status === 404) {
      await res.body?.cancel().catch(() => {});
      return { answer: { archive: base, status: 'none', mementos: 0 }, mementos: [], warnings };
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new Error(`HTTP ${res.status}`);
    }
    const { links, errors } = parseLinkFormat(await readCapped(res, o.maxBytes));
    for (const e of errors) warnings.push(`${base}: ${e}`);
    const mementos: Memento[] = [];
    for (const l of links) {
      if (!rels(l).includes('memento')) continue;
      const datetime = Date.parse(l.params.datetime ?? '');
      let uri: string;
      try {
        uri = new URL(l.uri, base.endsWith('/') ? base : `${base}/`).toString();
      } catch {
        warnings.push(`${base}: memento <${l.uri}> is not a valid URI`);
        continue;
      }
      if (Number.isNaN(datetime)) {
        warnings.push(`${base}: memento <${l.uri}> has no valid datetime (${JSON.stringify(l.params.datetime ?? '')})`);
        continue;
      }
      mementos.push({ uri, datetime, archive: base });
    }
    return { answer: { archive: base, status: 'ok', mementos: mementos.length }, mementos, warnings };
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    const why = err.name === 'TimeoutError' ? `no answer within ${o.timeoutMs} ms` : err.cause?.code ?? err.cause?.message ?? err.message;
    warnings.push(`${base}: left out (${why})`);
    return { answer: { archive: base, status: 'failed', mementos: 0, error: why }, mementos: [], warnings };
  }
}

/**
 * Asks `archives` (all at once) and merges their mementos. `skip` are archives known not to hold the
 * URL (their holdings say so): listed in the answer as 'skipped', not asked.
 */
export async function aggregateTimeMap(url: string, archives: string[], opts: AggregatorOptions & { skip?: ReadonlySet<string> } = {}): Promise<AggregatedTimeMap> {
  const o = { timeoutMs: opts.timeoutMs ?? 5000, maxBytes: opts.maxBytes ?? 16 * 1024 * 1024 };
  const answers = await Promise.all(archives.map((base) =>
    opts.skip?.has(base)
      ? { answer: { archive: base, status: 'skipped' as const, mementos: 0 }, mementos: [], warnings: [] }
      : askArchive(base, url, o)));
  const byUri = new Map<string, Memento>();
  for (const a of answers) for (const m of a.mementos) if (!byUri.has(m.uri)) byUri.set(m.uri, m);
  const order = new Map(archives.map((a, i) => [a, i]));
  const mementos = [...byUri.values()].sort(
    (x, y) => x.datetime - y.datetime || order.get(x.archive)! - order.get(y.archive)! || (x.uri < y.uri ? -1 : x.uri > y.uri ? 1 : 0),
  );
  return { original: url, mementos, archives: answers.map((a) => a.answer), warnings: answers.flatMap((a) => a.warnings) };
}

const httpDate = (ms: number) => new Date(ms).toUTCString();

/** The merged TimeMap in application/link-format; `self` is where it is served, `timegate` the aggregator's TimeGate of the URL. */
export function timeMapToLinkFormat(tm: AggregatedTimeMap, self?: string, timegate?: string): string {
  const links: Link[] = [{ uri: tm.original, params: { rel: 'original' } }];
  if (self) {
    const params: Record<string, string> = { rel: 'self', type: 'application/link-format' };
    if (tm.mementos.length) {
      params.from = httpDate(tm.mementos[0].datetime);
      params.until = httpDate(tm.mementos[tm.mementos.length - 1].datetime);
    }
    links.push({ uri: self, params });
  }
  if (timegate) links.push({ uri: timegate, params: { rel: 'timegate' } });
  tm.mementos.forEach((m, i) => {
    const rel = [i === 0 ? 'first' : '', i === tm.mementos.length - 1 ? 'last' : '', 'memento'].filter(Boolean).join(' ');
    links.push({ uri: m.uri, params: { rel, datetime: httpDate(m.datetime) } });
  });
  return formatLinkFormat(links);
}

/** The merged TimeMap as JSON, in the shape of the Memento aggregators' JSON TimeMaps. */
export function timeMapToJson(tm: AggregatedTimeMap, self?: { link: string; json: string }) {
  const item = (m: Memento) => ({ datetime: new Date(m.datetime).toISOString(), uri: m.uri, archive: m.archive });
  return {
    original_uri: tm.original,
    ...(self ? { timemap_uri: { link_format: self.link, json_format: self.json } } : {}),
    mementos: {
      ...(tm.mementos.length ? { first: item(tm.mementos[0]), last: item(tm.mementos[tm.mementos.length - 1]) } : {}),
      list: tm.mementos.map(item),
    },
    archives: tm.archives,
    warnings: tm.warnings,
  };
}

/**
 * The memento a TimeGate picks for `time` (RFC 7089 section 4.1): the closest in time, the earlier on
 * a tie (as the archive's own TimeGate, src/server/mementos.ts). `mementos` sorted, not empty.
 */
export function closestAcross(mementos: readonly Memento[], time: number): Memento {
  let best = mementos[0]!;
  for (const m of mementos) if (Math.abs(m.datetime - time) < Math.abs(best.datetime - time)) best = m;
  return best;
}
