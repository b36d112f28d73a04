/**
 * A Memento TimeMap aggregator (RFC 7089) for a federation of archives (seed 000, section 2):
 * asks every archive for its TimeMap of a URL, at `GET <base>/timemap/link/<url>` (the URL
 * appended as is, the Wayback convention), and merges the mementos into one TimeMap sorted by
 * datetime, served as application/link-format or JSON. An archive that is down, slow or answers
 * garbage costs its mementos, not the answer: the result is partial and says why.
 */
import http from 'node:http';
import { formatLinkFormat, parseLinkFormat, rels, type Link } from './link-format.ts';

export interface Memento {
  uri: string;
  /** Epoch ms. */
  datetime: number;
  /** Base URL of the archive that holds it. */
  archive: string;
}

export interface ArchiveAnswer {
  archive: string;
  /** 'ok' (mementos listed, possibly none), 'none' (404: the archive holds no version), or 'failed'. */
  status: 'ok' | 'none' | 'failed';
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

async function readCapped(res: Response, maxBytes: number): Promise<string> {
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
      throw new Error(`TimeMap larger than ${maxBytes} bytes`);
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

export async function aggregateTimeMap(url: string, archives: string[], opts: AggregatorOptions = {}): Promise<AggregatedTimeMap> {
  const o = { timeoutMs: opts.timeoutMs ?? 5000, maxBytes: opts.maxBytes ?? 16 * 1024 * 1024 };
  const answers = await Promise.all(archives.map((base) => askArchive(base, url, o)));
  const byUri = new Map<string, Memento>();
  for (const a of answers) for (const m of a.mementos) if (!byUri.has(m.uri)) byUri.set(m.uri, m);
  const order = new Map(archives.map((a, i) => [a, i]));
  const mementos = [...byUri.values()].sort(
    (x, y) => x.datetime - y.datetime || order.get(x.archive)! - order.get(y.archive)! || (x.uri < y.uri ? -1 : x.uri > y.uri ? 1 : 0),
  );
  return { original: url, mementos, archives: answers.map((a) => a.answer), warnings: answers.flatMap((a) => a.warnings) };
}

const httpDate = (ms: number) => new Date(ms).toUTCString();

/** The merged TimeMap in application/link-format; `self` is where it is served. */
export function timeMapToLinkFormat(tm: AggregatedTimeMap, self?: string): string {
  const links: Link[] = [{ uri: tm.original, params: { rel: 'original' } }];
  if (self) {
    const params: Record<string, string> = { rel: 'self', type: 'application/link-format' };
    if (tm.mementos.length) {
      params.from = httpDate(tm.mementos[0].datetime);
      params.until = httpDate(tm.mementos[tm.mementos.length - 1].datetime);
    }
    links.push({ uri: self, params });
  }
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
 * An HTTP front for the aggregator: `GET /timemap/link/<url>` and `GET /timemap/json/<url>`.
 * 200 with the mementos found (a `Datamonitor-Warning` header per problem when partial), 404 when
 * every archive answered and none holds the URL, 502 when none holds it and some did not answer.
 */
export function createAggregatorServer(archives: string[], opts: AggregatorOptions = {}): http.Server {
  return http.createServer((req, res) => {
    handle(req, res, archives, opts).catch((e) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`aggregator error: ${(e as Error).message}\n`);
    });
  });
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse, archives: string[], opts: AggregatorOptions): Promise<void> {
  const m = /^\/timemap\/(link|json)\/(.+)$/.exec(req.url ?? '');
  if (req.method !== 'GET' || !m) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('use GET /timemap/link/<url> or /timemap/json/<url>\n');
    return;
  }
  const [, format, url] = m;
  if (!/^https?:\/\/[^/?#\s]+/i.test(url)) {
    res.writeHead(400, { 'content-type': 'text/plain' }).end(`'${url}' is not an absolute http(s) URL\n`);
    return;
  }
  const tm = await aggregateTimeMap(url, archives, opts);
  const origin = `http://${req.headers.host ?? 'localhost'}`;
  const self = { link: `${origin}/timemap/link/${url}`, json: `${origin}/timemap/json/${url}` };
  const status = tm.mementos.length ? 200 : tm.archives.some((a) => a.status === 'failed') ? 502 : 404;
  const headers: http.OutgoingHttpHeaders = {
    'content-type': format === 'link' ? 'application/link-format' : 'application/json',
    // Header values must be one line of visible ASCII.
    'datamonitor-warning': tm.warnings.map((w) => w.replace(/[^\x20-\x7e]/g, '?')),
  };
  res.writeHead(status, headers);
  res.end(format === 'link' ? timeMapToLinkFormat(tm, self.link) : JSON.stringify(timeMapToJson(tm, self), null, 2));
}
