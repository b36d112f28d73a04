import { describe, it, expect } from 'vitest';
import { existsSync } from 'node:fs';
import { RDFA_ARCHIVE, runRdfaSuite } from '../conformance/suites/rdfa.ts';

/**
 * The RDFa 1.1 test suite through the extractor (CI-only: it reads ../shared/data).
 * Measured 2026: every test passes for every host; the floor below catches regressions.
 */
const MEASURED: Record<string, number> = {
  'RDFa 1.1 html4': 169,
  'RDFa 1.1 html5': 170,
  'RDFa 1.1 xhtml1': 181,
  'RDFa 1.1 xhtml5': 177,
  'RDFa 1.1 svg': 31,
  'RDFa 1.1 xml': 126,
};

const present = existsSync(RDFA_ARCHIVE);
if (!present) console.warn(`\n*** RDFa test suite SKIPPED: ${RDFA_ARCHIVE} is absent (../shared/data) ***\n`);

describe.skipIf(!present)('RDFa 1.1 test suite (rdfa.info) through htmlExtractor/xmlEmbeddedExtractor', () => {
  it('passes at least the measured number of tests per host language', async () => {
    const rows = await runRdfaSuite();
    const passed = Object.fromEntries(rows.map((r) => [r.suite, r.passed]));
    for (const row of rows) if (row.failed > 0) console.warn(`${row.suite}: ${row.failed} failed, e.g. ${row.failures.slice(0, 3).map((f) => `${f.id}: ${f.reason}`).join('; ')}`);
    for (const [suite, floor] of Object.entries(MEASURED)) expect(passed[suite], suite).toBeGreaterThanOrEqual(floor);
  }, 180_000);
});
