/**
 * Every URL's fate in one vocabulary: the crawl log's `reason` column, the summary's counts, `stats`,
 * the dashboard and `datamonitor log` all speak it. A reason says why, in a word a script can match;
 * the log entry's `error` text says the details (which filter, which status, how long).
 */
export const REASONS = {
  // Captured
  fetched: 'archived: a new or changed version',
  unchanged: 'archived: same graph as the last version (or same bytes, or a 304)',
  redirected: 'a redirect: the hop is archived and its target offered to the frontier',
  variant: 'archived: another representation of a fetched document (--variants), its graph the same as the document\'s',
  'variant-mismatch': 'another representation of a fetched document (--variants) whose graph differs from the document\'s (a finding: the diagnostics say how)',
  prerequisite: 'archived: a request the crawl made for its policy or for a document, not a document of the crawl (robots.txt, a JSON-LD context, a detached proof); the row\'s diagnostic says which',
  requisite: 'archived: a page requisite (image, style sheet, script, icon, media) of an archived page (--page-requisites), not parsed, not followed',
  'ldes-deleted': 'a deletion a Linked Data Event Stream announced (an as:Delete member, crawl --ldes): logged as a 410 at the member\'s time, no request made for the document',
  'http-error': 'the server answered 4xx (archived as it was)',
  'server-error': 'the server answered 5xx after every retry (retried on resume)',
  'rate-limited': 'the server answered 429/503 after every retry (retried on resume)',
  // Policy: not the server's fault, no back-off, reconsidered when the policy changes
  'robots-disallowed': 'robots.txt disallows it',
  'filtered-depth': 'deeper than --depth',
  'filtered-include': 'matches no --include pattern',
  'filtered-exclude': 'matches an --exclude pattern',
  'filtered-domain': 'outside --domain',
  'filtered-mime': 'media type not accepted by --mime (archived, not parsed)',
  'refused-address': 'resolves to a private, loopback or link-local address (--allow-private)',
  'url-too-long': 'longer than the URL length limit',
  nofollow: 'only linked with rel="nofollow" or from a page whose META robots says nofollow',
  'follow-cap': 'bound by a --follow/--answer query past its cap of bindings per document or per crawl (counted, not followed)',
  // The origin could not be used
  'robots-unavailable': 'robots.txt could not be had after its retries',
  'failing-origin': 'its origin failed too many times in a row',
  'wait-too-long': 'the server asked to wait longer than the cap (Retry-After, robots.txt deferral)',
  dns: 'the host name does not resolve',
  'connect-refused': 'the connection was refused',
  'connection-reset': 'the connection was reset or closed mid-exchange',
  'tls-error': 'the TLS handshake failed',
  'timeout-connect': 'no connection within the connect timeout',
  'timeout-tls': 'no TLS handshake within the connect timeout',
  'timeout-headers': 'no response headers within the headers timeout',
  'timeout-body': 'the body stalled longer than the idle timeout',
  'timeout-total': 'no complete response within the total timeout',
  'redirect-loop': 'the redirects loop',
  'too-many-redirects': 'more redirects than the limit',
  'bad-url': 'not a fetchable URL (or a redirect to one)',
  'protocol-error': 'the server broke HTTP (a malformed response, a 304 to a request without validators)',
  // The document
  'too-large': 'the body was cut at --max-body (archived, marked truncated)',
  'decode-error': 'the content encoding could not be decoded',
  'parse-error': 'the document could not be parsed (archived as bytes)',
  'over-budget': 'parsing or canonicalisation went over its time or memory budget',
  // The crawl
  aborted: 'the crawl stopped while it was in flight (left queued for a resume)',
  'internal-error': 'a bug in datamonitor: please report it with the log line',
} as const;

export type Reason = keyof typeof REASONS;

export const REASON_NAMES = Object.keys(REASONS) as Reason[];

export function isReason(s: string): s is Reason {
  return Object.hasOwn(REASONS, s);
}

/** Reasons that are a policy decision, not a failure: no back-off, and a later crawl with another policy reconsiders them. */
export const POLICY_REASONS: ReadonlySet<Reason> = new Set<Reason>([
  'robots-disallowed', 'filtered-depth', 'filtered-include', 'filtered-exclude', 'filtered-domain', 'refused-address', 'url-too-long', 'nofollow', 'follow-cap',
]);

/** Fates decided before any request was sent: `stats` does not count them as fetches. */
export const UNREQUESTED_REASONS: ReadonlySet<Reason> = new Set<Reason>([...POLICY_REASONS, 'failing-origin', 'robots-unavailable', 'wait-too-long']);
