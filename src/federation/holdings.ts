/**
 * What an archive holds, as it publishes it to the federation (GET /api/federation/holdings): per
 * host counts, and a Bloom filter of the URL keys it has captures of (src/federation/bloom.ts).
 *
 * Why both: per-host counts tell people (and capacity planning) which part of the Web an archive
 * covers, but they cannot route a look-up: a big host (dbpedia.org) is crawled by many archives,
 * and a host count says "maybe" for every URL of it. The Bloom filter answers per URL, at about
 * 1.2 bytes per URL for 1 % false positives, so an aggregator asks only the archives that may hold
 * the URL. Both are kept up to date incrementally from the crawl log (new entries since the last
 * log id read), so a request costs a read of the entries logged since the previous one.
 */
import { normalizeUrl, hostOf } from '../frontier/normalize.ts';
import type { CrawlLog } from '../store/types.ts';
import { BloomFilter, type BloomJson } from './bloom.ts';

/** The key the filter holds and the aggregator tests: the URL as the crawl log keys it. */
export function holdingsKey(url: string): string | undefined {
  return normalizeUrl(url);
}

export interface HostHoldings {
  host: string;
  /** Distinct URLs captured (counted through the filter: may be short by its false-positive rate). */
  urls: number;
  captures: number;
}

export interface HoldingsDocument {
  /** Id of the newest crawl log entry counted: the summary's version (also its ETag). */
  lastLogId: number;
  generatedAt: string;
  urls: number;
  captures: number;
  /** How the Bloom filter's keys are made (what a tester must do to a URL first). */
  key: string;
  fpRate: number;
  bloom: BloomJson;
  hosts: HostHoldings[];
}

const FP_RATE = 0.01;
// Log rows read at a time: a page of full rows (headers, diagnostics) is what the read holds, whatever the log's length.
const PAGE = 1_000;

/**
 * The holdings of one archive, caught up with its crawl log on demand. The filter is sized for
 * twice the URLs seen when it was built; when more arrive it is rebuilt twice as large from the log
 * (a Bloom filter cannot grow in place), so the false-positive rate stays near FP_RATE.
 */
export class HoldingsIndex {
  private bloom = BloomFilter.forCapacity(1024, FP_RATE);
  private hosts = new Map<string, HostHoldings>();
  private lastId = 0;
  private captures = 0;
  private busy: Promise<unknown> = Promise.resolve();

  constructor(private readonly store: CrawlLog) {}

  /** Reads the log entries since the last call; one caller at a time. */
  catchUp(): Promise<void> {
    const run = this.busy.then(() => this.read());
    this.busy = run.catch(() => undefined);
    return run;
  }

  private async read(): Promise<void> {
    for (;;) {
      const page = await this.store.log({ sinceId: this.lastId, limit: PAGE });
      for (const e of page) {
        this.lastId = Math.max(this.lastId, e.id ?? this.lastId);
        if (!e.warcFile || e.warcOffset === undefined || e.warcOffset === null) continue; // no capture to serve
        this.captures++;
        const keys = new Set<string>();
        for (const u of [e.url, e.finalUrl]) {
          const k = u && holdingsKey(u);
          if (k) keys.add(k);
        }
        for (const k of keys) {
          const host = hostOf(k);
          const h = this.hosts.get(host) ?? { host, urls: 0, captures: 0 };
          this.hosts.set(host, h);
          if (k === holdingsKey(e.url)) h.captures++;
          if (this.bloom.mayContain(k)) continue;
          this.bloom.add(k);
          h.urls++;
        }
      }
      if (this.bloom.n > this.designCapacity) {
        await this.rebuild(this.bloom.n * 2);
        return;
      }
      if (page.length < PAGE) return;
    }
  }

  private designCapacity = 1024;

  private async rebuild(capacity: number): Promise<void> {
    this.designCapacity = capacity;
    this.bloom = BloomFilter.forCapacity(capacity, FP_RATE);
    this.hosts = new Map();
    this.lastId = 0;
    this.captures = 0;
    await this.read();
  }

  async document(): Promise<HoldingsDocument> {
    await this.catchUp();
    return {
      lastLogId: this.lastId,
      generatedAt: new Date().toISOString(),
      urls: this.bloom.n,
      captures: this.captures,
      key: 'the URL normalised as datamonitor keys its crawl log (src/frontier/normalize.ts normalizeUrl)',
      fpRate: FP_RATE,
      bloom: this.bloom.toJSON(),
      hosts: [...this.hosts.values()].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0)),
    };
  }

  /** The version a client may hold already (ETag): changes when the log or the filter's shape does. */
  get version(): string {
    return `${this.lastId}-${this.bloom.m}`;
  }
}

/** An archive's published holdings as the aggregator reads them; `mayHold` is false only when the archive surely lacks the URL. */
export class PublishedHoldings {
  constructor(readonly bloom: BloomFilter, readonly urls: number, readonly lastLogId: number) {}

  static fromJSON(j: unknown): PublishedHoldings {
    const o = j as Partial<HoldingsDocument> | null;
    if (!o || typeof o !== 'object') throw new Error('holdings are not a JSON object');
    return new PublishedHoldings(BloomFilter.fromJSON(o.bloom), Number(o.urls ?? 0), Number(o.lastLogId ?? 0));
  }

  mayHold(url: string): boolean {
    const k = holdingsKey(url);
    return k === undefined ? true : this.bloom.mayContain(k);
  }
}
