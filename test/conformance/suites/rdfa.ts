import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import oxigraph from 'oxigraph';
import { extractMarkup } from '../../../src/extract/html/index.ts';
import { summarise, type ConformanceSuite, type SuiteResult, type TestOutcome } from '../suite.ts';

/**
 * The RDFa test suite (rdfa.info): every RDFa 1.1 test of the HTML4, HTML5, XHTML1, XHTML5, SVG and XML
 * hosts is extracted through datamonitor's HTML/XML extractor and its expected-result SPARQL ASK query
 * is evaluated against the extracted triples with Oxigraph. One row per host language.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const RDFA_ARCHIVE = path.resolve(repoRoot, '../shared/data', 'conformance/rdfa-test-suite.tar.gz');
const SUITE_URL = 'http://rdfa.info/test-suite/test-cases/';

/** Host language → file extension and the media type it is served as. */
export const RDFA_HOSTS: Record<string, { ext: string; mediaType: string }> = {
  html4: { ext: 'html', mediaType: 'text/html' },
  html5: { ext: 'html', mediaType: 'text/html' },
  xhtml1: { ext: 'xhtml', mediaType: 'application/xhtml+xml' },
  xhtml5: { ext: 'xhtml', mediaType: 'application/xhtml+xml' },
  svg: { ext: 'svg', mediaType: 'image/svg+xml' },
  xml: { ext: 'xml', mediaType: 'application/xml' },
};
const VERSION = 'rdfa1.1';

interface ManifestEntry {
  num: string;
  description: string;
  expectedResults: boolean;
  hostLanguages: string[];
  versions: string[];
  queryParam?: string;
}

/** Why a test with these query parameters cannot pass here (features the extractor does not offer). */
function unsupported(entry: ManifestEntry): string | undefined {
  if (entry.queryParam?.includes('rdfagraph=processor')) return 'asks the RDFa processor graph (warnings as triples), which is not produced';
  if (entry.queryParam?.includes('vocab_expansion=true')) return 'needs RDFa vocabulary expansion, which is not done';
  return undefined;
}

async function runTest(root: string, host: string, entry: ManifestEntry): Promise<TestOutcome> {
  const { ext, mediaType } = RDFA_HOSTS[host];
  const id = `${host}/${entry.num}`;
  const outcome = (passed: boolean, reason?: string): TestOutcome => ({ id, type: entry.expectedResults ? 'positive' : 'negative', passed, ...(reason ? { reason } : {}) });
  const dir = path.join(root, 'test-cases', VERSION, host);
  const document = path.join(dir, `${entry.num}.${ext}`);
  const queryFile = path.join(dir, `${entry.num}.sparql`);
  if (!existsSync(document) || !existsSync(queryFile)) return outcome(false, 'test files missing from the archive');
  const result = await extractMarkup(
    { url: `${SUITE_URL}${VERSION}/${host}/${entry.num}.${ext}`, mediaType, body: readFileSync(document), headers: {} },
    { maxQuads: 100_000 },
    { pageTriples: false },
  );
  const store = new oxigraph.Store();
  for (const quad of result.quads) store.add(quad as never);
  let answer: unknown;
  try {
    answer = store.query(readFileSync(queryFile, 'utf8'), { base_iri: `${SUITE_URL}${VERSION}/${host}/${entry.num}.${ext}` } as never);
  } catch (error) {
    return outcome(false, `ASK query failed in Oxigraph: ${(error as Error).message.slice(0, 200)}`);
  }
  if (answer === entry.expectedResults) return outcome(true);
  const errors = result.diagnostics.filter((d) => d.level === 'error').map((d) => d.message);
  const why = unsupported(entry) ?? `ASK gave ${String(answer)}, expected ${entry.expectedResults} (${entry.description}; ${result.quads.length} triples${errors.length ? `; ${errors[0]}` : ''})`;
  return outcome(false, why);
}

export function unpackRdfaTests(): { root: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'rdfa-tests-'));
  execFileSync('tar', ['-xzf', RDFA_ARCHIVE, '-C', dir]);
  const top = readdirSync(dir).find((name) => existsSync(path.join(dir, name, 'test-suite'))) ?? '.';
  return { root: path.join(dir, top, 'test-suite'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs the suite: one SuiteResult per host language (suite name "RDFa 1.1 <host>"). */
export async function runRdfaSuite(hosts: string[] = Object.keys(RDFA_HOSTS)): Promise<SuiteResult[]> {
  const { root, cleanup } = unpackRdfaTests();
  try {
    const manifest = JSON.parse(readFileSync(path.join(root, 'manifest.jsonld'), 'utf8')) as { '@graph': ManifestEntry[] };
    const results: SuiteResult[] = [];
    for (const host of hosts) {
      const outcomes: TestOutcome[] = [];
      for (const entry of manifest['@graph']) {
        if (entry.versions.includes(VERSION) && entry.hostLanguages.includes(host)) outcomes.push(await runTest(root, host, entry));
      }
      results.push(summarise(`RDFa 1.1 ${host}`, outcomes));
    }
    return results;
  } finally {
    cleanup();
  }
}

export const rdfaSuite: ConformanceSuite = {
  id: 'rdfa',
  available: () => existsSync(RDFA_ARCHIVE),
  run: () => runRdfaSuite(),
};
