/** One conformance suite as the runner sees it (W3C RDF here; RDFa is added by the HTML engineer). */
export interface ConformanceSuite {
  /** Short id for --suite and the JSON output, e.g. "w3c-rdf". */
  readonly id: string;
  /** Whether its data is present (it lives in ../shared/data, absent on a fresh clone). */
  available(): boolean;
  /** Runs every test; one row per sub-suite (e.g. "RDF 1.1 Turtle"). */
  run(): Promise<SuiteResult[]>;
}

export interface TestOutcome {
  id: string;
  type: string;
  passed: boolean;
  /** Why it failed (the diagnostic, or "accepted a negative test", or "not isomorphic"). */
  reason?: string;
}

export interface SuiteResult {
  suite: string;
  passed: number;
  failed: number;
  /** Per test type (e.g. TestTurtleEval): passed/failed. */
  byType: Record<string, { passed: number; failed: number }>;
  failures: TestOutcome[];
}

export function summarise(suite: string, outcomes: TestOutcome[]): SuiteResult {
  const byType: SuiteResult['byType'] = {};
  for (const outcome of outcomes) {
    const counts = (byType[outcome.type] ??= { passed: 0, failed: 0 });
    if (outcome.passed) counts.passed++;
    else counts.failed++;
  }
  const failures = outcomes.filter((outcome) => !outcome.passed);
  return { suite, passed: outcomes.length - failures.length, failed: failures.length, byType, failures };
}
