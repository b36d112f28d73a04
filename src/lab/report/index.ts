/**
 * `datamonitor lab report`: runs every seed experiment the lab has (one claim provider each) and
 * gathers the seeds' claims, the lab's numbers and a verdict per claim into one self-contained HTML
 * page (figures inline, from src/plot/svg.ts) and a verdict table for scripts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cacheProviderFor } from './providers/cache.ts';
import { crawltimeMinutesProvider, crawltimeProvider } from './providers/crawltime.ts';
import { orderingProvider } from './providers/ordering.ts';
import { recrawlProvider } from './providers/recrawl.ts';
import { recrawlBoundProvider } from './providers/recrawl-bound.ts';
import { recrawlBeyondProvider } from './providers/recrawl-beyond.ts';
import { recrawlChoicesProvider } from './providers/recrawl-choices.ts';
import type { Claim, ClaimProvider, ProviderResult, ReportContext } from './types.ts';

export type { Claim, ClaimProvider, ProviderResult, ReportContext, Verdict } from './types.ts';
export { VERDICTS } from './types.ts';
export { renderReport } from './html.ts';

/** ../shared/data beside the repository, where the project's real data lives. */
export const DEFAULT_SHARED_DATA = path.resolve(import.meta.dirname, '../../../../shared/data');

export interface LabReportOptions {
  quick?: boolean;
  /** Folder of the shared data; ../shared/data by default. Absent: every provider uses its quick data. */
  sharedData?: string;
  /** Only these providers (by name). */
  only?: string[];
  /** A second site for the ordering experiments (a directory of HTML files). */
  secondSite?: string;
  /** A site built by `lab site --debian` (≥ 100,000 pages): the ordering experiments run on it, the caching ones on its breadth-first link stream. */
  largeSite?: string;
  /** Replace the default providers (tests). */
  providers?: ClaimProvider[];
  onProgress?: (text: string) => void;
}

export interface ProviderSection extends ProviderResult {
  name: string;
  seed: string;
  title: string;
  seconds: number;
  /** Set when the provider failed: its claims are then absent and the page says why. */
  error?: string;
}

export interface LabReport {
  generated: string;
  quick: boolean;
  sharedData?: string;
  sections: ProviderSection[];
  claims: Claim[];
  seconds: number;
}

export function defaultProviders(o: { secondSite?: string; largeSite?: string } = {}): ClaimProvider[] {
  return [recrawlProvider, recrawlChoicesProvider, recrawlBoundProvider, recrawlBeyondProvider, orderingProvider({ secondSite: o.secondSite, largeSite: o.largeSite }), cacheProviderFor({ largeSite: o.largeSite }), crawltimeProvider, crawltimeMinutesProvider];
}

export async function runLabReport(o: LabReportOptions = {}): Promise<LabReport> {
  const t0 = performance.now();
  const shared = o.sharedData ?? DEFAULT_SHARED_DATA;
  const ctx: ReportContext = { quick: o.quick ?? false, sharedData: fs.existsSync(shared) ? shared : undefined, progress: o.onProgress ?? (() => {}) };
  let providers = o.providers ?? defaultProviders(o);
  if (o.only) providers = providers.filter((p) => o.only!.includes(p.name));
  const sections: ProviderSection[] = [];
  for (const p of providers) {
    const t = performance.now();
    try {
      const r = await p.run(ctx);
      sections.push({ name: p.name, seed: p.seed, title: p.title, ...r, seconds: (performance.now() - t) / 1000 });
    } catch (e) {
      // One experiment failing (a missing tool, bad data) must not cost the others their verdicts.
      sections.push({ name: p.name, seed: p.seed, title: p.title, claims: [], figures: {}, seconds: (performance.now() - t) / 1000, error: (e as Error).message });
    }
  }
  if (ctx.quick || !ctx.sharedData) for (const s of sections) s.claims = s.claims.map(asSmokeTest);
  return { generated: new Date().toISOString(), quick: ctx.quick, sharedData: ctx.sharedData, sections, claims: sections.flatMap((s) => s.claims), seconds: (performance.now() - t0) / 1000 };
}

/** A claim judged on the built-in data: labelled a smoke test under an id of its own, its rule's outcome kept aside. */
export function asSmokeTest(c: Claim): Claim {
  if (c.verdict === 'smoke test') return c;
  return { ...c, id: `smoke-${c.id}`, verdict: 'smoke test', smokeOutcome: c.verdict };
}
