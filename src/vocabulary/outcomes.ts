import { POLICY_REASONS, isReason, type Reason } from './reasons.ts';

/**
 * One way of counting a crawl: every crawl-log row falls in exactly one of these columns, so the crawl's
 * summary, `run`'s, `stats` and the dashboard add up to the rows they count and agree with each other.
 * The reasons (reasons.ts) say why in detail; an outcome is the column a person reads first:
 * - `new`, `changed`, `unchanged`: a document captured with its graph, by what the graph did;
 * - `redirect`: a hop, archived, its target offered to the frontier (not a version of any document);
 * - `archived-only`: archived bytes that are no version of a document by design (robots.txt, a JSON-LD
 *   context, a proof, a page requisite, a media type
 *   not parsed, another representation of a document);
 * - `policy`: never requested, by a policy (robots.txt, a filter, a refused address);
 * - `parse-error`: archived, but no graph could be read from it (a parse or decode error, over budget);
 * - `error`: no usable answer (an HTTP error, a network failure, a failing origin).
 */
export const OUTCOMES = ['new', 'changed', 'unchanged', 'redirect', 'archived-only', 'policy', 'parse-error', 'error'] as const;

export type Outcome = (typeof OUTCOMES)[number];

// Typed as reasons, so that renaming one in reasons.ts fails here instead of counting its rows as errors.
const ARCHIVED_ONLY: ReadonlySet<string> = new Set<Reason>(['prerequisite', 'requisite', 'filtered-mime', 'variant', 'variant-mismatch']);
const UNREADABLE: ReadonlySet<string> = new Set<Reason>(['parse-error', 'decode-error', 'over-budget']);

/** The column of one crawl-log row: its reason, and for a captured document whether its graph changed. */
export function outcomeOf(change: string, reason: string | null | undefined): Outcome {
  if (reason === 'redirected') return 'redirect';
  if (reason && isReason(reason) && POLICY_REASONS.has(reason)) return 'policy';
  if (reason && ARCHIVED_ONLY.has(reason)) return 'archived-only';
  if (reason && UNREADABLE.has(reason)) return 'parse-error';
  if (change === 'new' || change === 'changed' || change === 'unchanged') return change;
  return 'error';
}

export function zeroOutcomes(): Record<Outcome, number> {
  return Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
}

const WORDS: Record<Outcome, [one: string, many: string]> = {
  new: ['new', 'new'],
  changed: ['changed', 'changed'],
  unchanged: ['unchanged', 'unchanged'],
  redirect: ['redirect', 'redirects'],
  'archived-only': ['archived only', 'archived only'],
  policy: ['skipped by policy', 'skipped by policy'],
  'parse-error': ['parse error', 'parse errors'],
  error: ['error', 'errors'],
};

/**
 * The counts as a person reads them, in the columns' order: new, changed and unchanged always (the
 * numbers people look for), the other columns when they are not zero.
 */
export function describeOutcomes(counts: Record<Outcome, number>): string {
  return OUTCOMES.filter((o) => counts[o] > 0 || o === 'new' || o === 'changed' || o === 'unchanged')
    .map((o) => `${counts[o]} ${WORDS[o][counts[o] === 1 ? 0 : 1]}`)
    .join(', ');
}
