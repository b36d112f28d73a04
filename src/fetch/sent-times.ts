import type { Fetcher } from './types.ts';

/**
 * The fetcher, telling `onSent` when each fetch's request went out (written to its connection; after redirects, the
 * last hop's, at the final URL). A crawl spaces a host's requests from that time; its side requests (robots.txt,
 * JSON-LD contexts, proof documents) are not the frontier's to time, and behind a slow name lookup or a busy
 * connection pool they go out long after they are asked for.
 */
export function reportingSent(fetcher: Fetcher, onSent: (url: string, sentAt: number) => void): Fetcher {
  return {
    async fetch(url, conditional, signal, overrides) {
      const outcome = await fetcher.fetch(url, conditional, signal, overrides);
      if (outcome.sentAt !== undefined) onSent(outcome.response?.finalUrl ?? url, outcome.sentAt);
      return outcome;
    },
    close: () => fetcher.close(),
  };
}
