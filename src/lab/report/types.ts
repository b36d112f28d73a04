/**
 * The replication report's parts (issue #15, item 8): each seed experiment is a claim provider that
 * runs the lab on some data and returns the seed's claims with what the lab measured and a verdict.
 * Providers are independent, so one being reworked (the re-crawl lab) is swapped by replacing one
 * module, and a provider that cannot run here says so per claim instead of failing the report.
 */

/**
 * `mixed`: the claim holds on some of the data sets and not on others (the numbers say which).
 * `smoke test`: the experiment ran on the small built-in data (`--quick`, or no shared data), which shows
 * the code works and says nothing of the seed's claim; such a claim's id is prefixed `smoke-`, so a script
 * keyed on a real claim id never reads a smoke result as that claim's verdict.
 */
export const VERDICTS = ['confirmed', 'refuted', 'mixed', 'not testable here', 'smoke test'] as const;
export type Verdict = (typeof VERDICTS)[number];
/** What a claim's rule concludes from data: every verdict but the smoke label. */
export type Outcome = Exclude<Verdict, 'smoke test'>;

export interface Claim {
  /** Stable across runs, e.g. `001-pagerank-best-backlink`: scripts key on it. */
  id: string;
  /** The seed document, e.g. `001`. */
  seed: string;
  /** What the seed says, in its words where possible. */
  claim: string;
  /** The lab's numbers behind the verdict, in one sentence. */
  measured: string;
  verdict: Verdict;
  /** A smoke test's: what the claim's rule concluded on the built-in data (tests of the rule read it). */
  smokeOutcome?: Outcome;
  /** The data the claim was tested on. */
  data: string;
  /** Key of the figure (in the provider's figures) that shows it. */
  figure?: string;
}

export interface ProviderResult {
  claims: Claim[];
  /** Inline SVG figures by key. */
  figures: Record<string, { title: string; svg: string }>;
  /** Tables and notes for the page, as already-escaped HTML fragments. */
  details?: string[];
}

export interface ReportContext {
  /** Small built-in data, seconds not minutes (CI, or when ../shared is absent). */
  quick: boolean;
  /** The shared data folder (../shared/data), or undefined when absent. */
  sharedData?: string;
  progress: (text: string) => void;
}

export interface ClaimProvider {
  /** `recrawl`, `ordering`, `cache`, `crawltime`. */
  name: string;
  seed: string;
  title: string;
  run(ctx: ReportContext): Promise<ProviderResult>;
}

export const verdictOf = (holds: boolean): Outcome => (holds ? 'confirmed' : 'refuted');
