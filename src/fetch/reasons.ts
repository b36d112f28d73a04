/** A fetch failure in the crawl's one vocabulary of fates (src/vocabulary/reasons.ts). */
import type { Reason } from '../vocabulary/reasons.ts';
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

/**
 * Failures of the network that another try may not meet: a refused, reset or closed connection, an
 * unreachable host, any deadline that ran out (connect, TLS handshake, headers, body, total). They
 * are retried within the crawl like a 5xx (Heritrix and Nutch retry them too), and a resolver that
 * gave no answer for now (EAI_AGAIN: an overloaded or unreachable DNS server). Not: a name that does
 * not exist, a failed TLS handshake (a certificate or a server that does not speak TLS stays so),
 * a refused address, a bad URL, a broken protocol, redirect trouble, robots.txt or a stopped crawl.
 */
export function isTransientFetchError(e: FetchError): boolean {
  return e.code === 'connect' || e.code === 'timeout' || (e.code === 'dns' && e.temporary === true);
}
