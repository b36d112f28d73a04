/**
 * Requests the crawl makes for its policy or for a document rather than as documents (Heritrix's
 * prerequisites): robots.txt, a JSON-LD context, a detached proof. They are spaced by the frontier's clock
 * of their origin, fetched by the crawl's fetcher, and archived here: a WARC response record that says
 * what each was fetched for, and a crawl-log row of reason `prerequisite`.
 */
import type { ArchiveWriter, FetchedFor } from '../archive/warc-writer.ts';
import { sha1Digest } from '../archive/warc-record.ts';
import { robotsDeferred } from '../fetch/robots.ts';
import type { FetchOutcome, FetchResponse, Fetcher } from '../fetch/types.ts';
import type { SideClock } from '../frontier/types.ts';
import { originOf } from '../frontier/normalize.ts';
import type { CrawlLog } from '../store/types.ts';

/** The diagnostic line of a robots.txt's crawl-log row: the row is not a document of the crawl. */
export const ROBOTS_DIAGNOSTIC = 'info: robots.txt, fetched for the crawl\'s politeness (not a document of the crawl)';

/** What keeps a robots.txt answer from serving, in its row's error: the answers RobotsCache defers on. */
export function robotsProblem(status: number): string | undefined {
  return robotsDeferred(status) ? `HTTP ${status}: robots.txt unavailable, asked again later` : undefined;
}

/** Where a side request is archived. */
export interface SideArchive {
  warc: ArchiveWriter;
  store: CrawlLog;
  cycleId?: number;
}

/**
 * Archives a request the crawl made for its policy or for a document rather than as one (robots.txt, a
 * JSON-LD context, a detached proof): a WARC response record that says what it was fetched for, and a
 * crawl-log row with the reason `prerequisite`, marked by `diagnostic` (`problem`: why it could not serve,
 * in the row's error). The row's patch is empty: no documents row, never queued, no version.
 */
export async function archiveSideFetch(to: SideArchive, url: string, r: FetchResponse, problem: string | undefined, diagnostic: string, fetchedFor: FetchedFor): Promise<void> {
  const payloadDigest = sha1Digest(r.rawBody);
  const archived = await to.warc.writeExchange({ response: r, payloadDigest, fetchedFor });
  await to.store.logFetch({
    url, finalUrl: r.finalUrl, time: r.startedAt.getTime(), status: r.status, headers: r.headers, durationMs: r.durationMs,
    bytes: r.rawBody.length, mediaType: r.mediaType, checksum: payloadDigest, change: problem ? 'error' : 'new', error: problem,
    reason: 'prerequisite', triples: 0, truncated: r.truncated, diagnostics: [diagnostic],
    warcFile: archived.file, warcOffset: archived.offset, warcLength: archived.length, cycleId: to.cycleId,
  }, {});
}

/**
 * An origin's turn to be requested: resolves when the request may start, with a function to call when it
 * has ended (with when it went out, if it did). A crawl takes the turn on its frontier's clock
 * (`FrontierClock`); `OriginSpacing` is the stand-alone default.
 */
export interface Politeness {
  turn(origin: string, minDelayMs?: number): Promise<(sentAt?: number) => void>;
}

/**
 * The frontier's clock of an origin, for a request a document in flight waits for (a JSON-LD context, a
 * detached proof, the robots.txt of their origin): the request starts only when the frontier would start a
 * URL of its hostname, and the hostname's next request is spaced from when it ended. It takes no slot
 * of the origin (HostTiming.claim): the document waiting for it may hold that slot. One such request per
 * origin at a time, in the order asked; a wait longer than `maxWaitMs` (a back-off, a Retry-After) fails
 * at once rather than holding the document.
 */
export class FrontierClock implements Politeness {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly frontier: SideClock, private readonly maxWaitMs: number) {}

  async turn(origin: string, minDelayMs = 0): Promise<(sentAt?: number) => void> {
    const before = this.tails.get(origin) ?? Promise.resolve();
    let done!: () => void;
    const tail = before.then(() => new Promise<void>((resolve) => (done = resolve)));
    this.tails.set(origin, tail);
    const end = () => {
      if (this.tails.get(origin) === tail) this.tails.delete(origin);
      done();
    };
    await before;
    try {
      for (let at = this.frontier.claim(origin, Date.now(), minDelayMs); at !== 0; at = this.frontier.claim(origin, Date.now(), minDelayMs)) {
        if (at - Date.now() > this.maxWaitMs) throw new Error(`${origin} is not to be asked before ${new Date(at).toISOString()}`);
        await new Promise((r) => setTimeout(r, Math.max(1, at - Date.now())));
      }
    } catch (e) {
      end();
      throw e;
    }
    let released = false;
    return (sentAt) => {
      if (released) return;
      released = true;
      // Spaced from the request's end, not from when it went out: the server cannot see this request's
      // successor sooner than the delay after it was answered, however long this one waited to be read
      // (Heritrix and Nutch space a host's requests from the previous one's end too).
      if (sentAt !== undefined) this.frontier.noteRequest(origin, Math.max(sentAt, Date.now()));
      end();
    };
  }
}

/**
 * The fetcher of a crawl's robots.txt requests made outside the frontier's entries (for a context's or a
 * proof's origin, for the sitemaps a seed's robots.txt names): each takes its origin's turn on the
 * frontier's clock before it is sent, and is archived as the prerequisite entries' are.
 */
export function robotsFetcher(fetcher: Fetcher, clock: Politeness, archive: SideArchive): Fetcher {
  return {
    async fetch(url, conditional, signal, overrides) {
      const release = await clock.turn(originOf(url));
      let outcome: FetchOutcome | undefined;
      try {
        outcome = await fetcher.fetch(url, conditional, signal, overrides);
      } finally {
        release(outcome?.sentAt);
      }
      if (outcome.response) await archiveSideFetch(archive, url, outcome.response, robotsProblem(outcome.response.status), ROBOTS_DIAGNOSTIC, 'robots');
      return outcome;
    },
    close: () => fetcher.close(),
  };
}
