/** A fetch failure in the crawl's one vocabulary of fates (src/crawler/reasons.ts). */
import type { Reason } from '../crawler/reasons.ts';
import type { FetchError } from './types.ts';

export function reasonOfFetchError(e: FetchError): Reason {
  switch (e.code) {
    case 'timeout':
      return `timeout-${e.phase ?? 'total'}`;
    case 'tls':
      return 'tls-error';
    case 'dns':
      return 'dns';
    case 'connect':
      // an unreachable host could not be connected to either: closest to a refusal, not a reset
      return e.network === 'reset' ? 'connection-reset' : 'connect-refused';
    case 'blocked-address':
      return 'refused-address';
    case 'redirect-loop':
      return 'redirect-loop';
    case 'too-many-redirects':
      return 'too-many-redirects';
    case 'bad-url':
      return 'bad-url';
    case 'robots':
      return 'robots-disallowed';
    case 'robots-unavailable':
      return 'robots-unavailable';
    case 'decode':
      return 'decode-error';
    case 'protocol':
      return 'protocol-error';
    case 'aborted':
      return 'aborted';
  }
}
