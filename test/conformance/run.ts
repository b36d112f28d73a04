/**
 * Conformance runner: `npm run conformance [-- --json] [--suite ID] [--failures]`.
 * Each suite is a module in ./suites/ registered in SUITES below.
 */
import type { ConformanceSuite, SuiteResult } from './suite.ts';
import { w3cRdfSuite } from './suites/w3c-rdf.ts';
import { rdfaSuite } from './suites/rdfa.ts';

export const SUITES: ConformanceSuite[] = [w3cRdfSuite, rdfaSuite];

export async function runSuites(ids?: string[]): Promise<Record<string, SuiteResult[] | 'unavailable'>> {
  const report: Record<string, SuiteResult[] | 'unavailable'> = {};
  for (const suite of SUITES) {
    if (ids && ids.length > 0 && !ids.includes(suite.id)) continue;
    report[suite.id] = suite.available() ? await suite.run() : 'unavailable';
  }
  return report;
}

export function formatTable(report: Record<string, SuiteResult[] | 'unavailable'>, withFailures: boolean): string {
  const lines = ['| suite | passed | failed | total |', '| --- | ---: | ---: | ---: |'];
  const failureLines: string[] = [];
  for (const [id, results] of Object.entries(report)) {
    if (results === 'unavailable') {
      lines.push(`| ${id} | data absent | | |`);
      continue;
    }
    for (const r of results) {
      lines.push(`| ${r.suite} | ${r.passed} | ${r.failed} | ${r.passed + r.failed} |`);
      for (const f of r.failures) failureLines.push(`- ${r.suite} \`${f.id}\` (${f.type}): ${f.reason ?? ''}`);
    }
  }
  if (withFailures && failureLines.length > 0) lines.push('', '### Failures', '', ...failureLines);
  return lines.join('\n');
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!);
if (isMain) {
  const args = process.argv.slice(2);
  const ids = args.flatMap((arg, i) => (args[i - 1] === '--suite' ? [arg] : []));
  const report = await runSuites(ids);
  if (args.includes('--json')) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else console.log(formatTable(report, args.includes('--failures')));
  for (const [id, results] of Object.entries(report)) {
    if (results === 'unavailable') console.warn(`conformance: suite ${id} skipped: its data is absent (../shared/data)`);
  }
}
