import { describe, it, expect } from 'vitest';
import { reasonOfFetchError, type FetchError } from '../../src/fetch/index.ts';
import { isReason } from '../../src/vocabulary/reasons.ts';

describe('every fetch error has a reason in the shared vocabulary', () => {
  const cases: Array<[Omit<FetchError, 'message'>, string]> = [
    [{ code: 'timeout', phase: 'connect' }, 'timeout-connect'],
    [{ code: 'timeout', phase: 'tls' }, 'timeout-tls'],
    [{ code: 'timeout', phase: 'headers' }, 'timeout-headers'],
    [{ code: 'timeout', phase: 'body' }, 'timeout-body'],
    [{ code: 'timeout', phase: 'total' }, 'timeout-total'],
    [{ code: 'timeout' }, 'timeout-total'],
    [{ code: 'tls' }, 'tls-error'],
    [{ code: 'dns' }, 'dns'],
    [{ code: 'connect', network: 'refused' }, 'connect-refused'],
    [{ code: 'connect', network: 'unreachable' }, 'connect-refused'],
    [{ code: 'connect', network: 'reset' }, 'connection-reset'],
    [{ code: 'redirect-loop' }, 'redirect-loop'],
    [{ code: 'too-many-redirects' }, 'too-many-redirects'],
    [{ code: 'bad-url' }, 'bad-url'],
    [{ code: 'blocked-address' }, 'refused-address'],
    [{ code: 'decode' }, 'decode-error'],
    [{ code: 'protocol' }, 'protocol-error'],
    [{ code: 'aborted' }, 'aborted'],
    [{ code: 'robots' }, 'robots-disallowed'],
    [{ code: 'robots-unavailable' }, 'robots-unavailable'],
  ];
  it.each(cases)('%o → %s', (error, reason) => {
    const r = reasonOfFetchError({ ...error, message: 'x' });
    expect(r).toBe(reason);
    expect(isReason(r)).toBe(true);
  });
});
