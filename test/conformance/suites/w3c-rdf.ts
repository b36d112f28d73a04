import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser, Store, type Quad, type Term } from 'n3';
import { isomorphic } from 'rdf-isomorphic';
import { extract } from '../../../src/extract/registry.ts';
import { summarise, type ConformanceSuite, type SuiteResult, type TestOutcome } from '../suite.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const W3C_RDF_ARCHIVE = path.resolve(repoRoot, '../shared/data', 'conformance/w3c-rdf-tests.tar.gz');

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const MF = 'http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#';
const RDFT = 'http://www.w3.org/ns/rdftest#';

/** The manifests run, relative to the archive's rdf/ folder, with the row each belongs to. */
const SUITES: Array<{ suite: string; manifest: string }> = [
  { suite: 'RDF 1.1 N-Triples', manifest: 'rdf11/rdf-n-triples/manifest.ttl' },
  { suite: 'RDF 1.1 N-Quads', manifest: 'rdf11/rdf-n-quads/manifest.ttl' },
  { suite: 'RDF 1.1 Turtle', manifest: 'rdf11/rdf-turtle/manifest.ttl' },
  { suite: 'RDF 1.1 TriG', manifest: 'rdf11/rdf-trig/manifest.ttl' },
  { suite: 'RDF 1.1 RDF/XML', manifest: 'rdf11/rdf-xml/manifest.ttl' },
  // RDF 1.2 additions (their manifests also include the 1.1 ones, which are not run twice).
  { suite: 'RDF 1.2 N-Triples', manifest: 'rdf12/rdf-n-triples/manifest.ttl' },
  { suite: 'RDF 1.2 N-Quads', manifest: 'rdf12/rdf-n-quads/manifest.ttl' },
  { suite: 'RDF 1.2 Turtle', manifest: 'rdf12/rdf-turtle/manifest.ttl' },
  { suite: 'RDF 1.2 TriG', manifest: 'rdf12/rdf-trig/manifest.ttl' },
  { suite: 'RDF 1.2 RDF/XML', manifest: 'rdf12/rdf-xml/manifest.ttl' },
];

const MEDIA_TYPE_BY_EXTENSION: Record<string, string> = {
  '.ttl': 'text/turtle',
  '.nt': 'application/n-triples',
  '.nq': 'application/n-quads',
  '.trig': 'application/trig',
  '.rdf': 'application/rdf+xml',
};

interface ManifestTest {
  id: string;
  type: string;
  action: string;
  result?: string;
  base: string;
}

function listItems(store: Store, head: Term | undefined): Term[] {
  const items: Term[] = [];
  for (let node = head; node && node.value !== `${RDF}nil`; ) {
    const first = store.getObjects(node, `${RDF}first`, null)[0];
    if (first) items.push(first);
    node = store.getObjects(node, `${RDF}rest`, null)[0];
  }
  return items;
}

/** Tests listed in mf:entries of a manifest and of the manifests it mf:includes. */
function readManifest(file: string, seen: Set<string>): ManifestTest[] {
  if (seen.has(file) || !existsSync(file)) return [];
  seen.add(file);
  const baseIRI = `file://${file}`;
  const store = new Store(new Parser({ baseIRI }).parse(readFileSync(file, 'utf8')));
  const manifest = store.getSubjects(`${RDF}type`, `${MF}Manifest`, null)[0];
  if (!manifest) return [];
  const testBase = store.getObjects(manifest, `${MF}assumedTestBase`, null)[0]?.value;
  const tests: ManifestTest[] = [];
  for (const include of listItems(store, store.getObjects(manifest, `${MF}include`, null)[0])) {
    tests.push(...readManifest(fileURLToPath(include.value), seen));
  }
  const folder = path.dirname(file);
  for (const entry of listItems(store, store.getObjects(manifest, `${MF}entries`, null)[0])) {
    const type = store.getObjects(entry, `${RDF}type`, null)[0]?.value ?? '';
    const action = store.getObjects(entry, `${MF}action`, null)[0]?.value;
    if (!action) continue;
    const actionFile = fileURLToPath(action);
    const result = store.getObjects(entry, `${MF}result`, null)[0]?.value;
    const relative = path.relative(folder, actionFile).split(path.sep).join('/');
    tests.push({
      id: entry.value.replace(/^.*#/, ''),
      type: type.replace(RDFT, ''),
      action: actionFile,
      result: result ? fileURLToPath(result) : undefined,
      base: testBase ? new URL(relative, testBase).href : `file://${actionFile}`,
    });
  }
  return tests;
}

async function parseThroughRegistry(file: string, base: string) {
  const mediaType = MEDIA_TYPE_BY_EXTENSION[path.extname(file)] ?? 'application/octet-stream';
  return extract({ url: base, mediaType, body: readFileSync(file), headers: {} }, { maxQuads: 1_000_000 });
}

/** Expected results are N-Triples/N-Quads, read by n3 directly (the reference, not the subject). */
function readExpected(file: string): Quad[] {
  const format = file.endsWith('.nq') ? 'N-Quads' : 'N-Triples';
  return new Parser({ format }).parse(readFileSync(file, 'utf8'));
}

async function runTest(test: ManifestTest): Promise<TestOutcome> {
  const outcome = (passed: boolean, reason?: string): TestOutcome => ({ id: test.id, type: test.type, passed, ...(reason ? { reason } : {}) });
  const result = await parseThroughRegistry(test.action, test.base);
  const errors = result.diagnostics.filter((d) => d.level === 'error');
  if (/NegativeSyntax|NegativeEval/.test(test.type)) {
    return errors.length > 0 ? outcome(true) : outcome(false, 'accepted a document that must be rejected');
  }
  if (errors.length > 0) return outcome(false, errors[0].message);
  if (/Eval|C14N/.test(test.type) && test.result) {
    let expected: Quad[];
    try {
      expected = readExpected(test.result);
    } catch (error) {
      return outcome(false, `expected result unreadable by n3: ${(error as Error).message}`);
    }
    return isomorphic(result.quads as Quad[], expected) ? outcome(true) : outcome(false, `graph not isomorphic (got ${result.quads.length} quads, expected ${expected.length})`);
  }
  return outcome(true);
}

export function unpackW3cRdfTests(): { root: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'w3c-rdf-'));
  execFileSync('tar', ['-xzf', W3C_RDF_ARCHIVE, '-C', dir]);
  // The archive holds one top folder (e.g. "w3c+rdf-tests") with rdf/ inside.
  const top = readdirSync(dir).find((name) => existsSync(path.join(dir, name, 'rdf'))) ?? '.';
  return { root: path.join(dir, top, 'rdf'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const w3cRdfSuite: ConformanceSuite = {
  id: 'w3c-rdf',
  available: () => existsSync(W3C_RDF_ARCHIVE),
  async run(): Promise<SuiteResult[]> {
    const { root, cleanup } = unpackW3cRdfTests();
    try {
      const seen = new Set<string>();
      const results: SuiteResult[] = [];
      for (const { suite, manifest } of SUITES) {
        const outcomes: TestOutcome[] = [];
        for (const test of readManifest(path.join(root, manifest), seen)) outcomes.push(await runTest(test));
        results.push(summarise(suite, outcomes));
      }
      return results;
    } finally {
      cleanup();
    }
  },
};
