/**
 * Two checks of src/'s module graph.
 *
 * No module of src/ imports values from a module that imports values back, directly or round a longer cycle.
 * Such a cycle works or crashes by which module a program imports first: `import { CHECKED_AFTER } from
 * 'src/versions/term-check-memo.ts'` before anything else ran version-store.ts's body before term-check-memo.ts
 * had defined the DDL it uses ("ReferenceError: Cannot access 'SQLITE_TERM_CHECK_DDL' before
 * initialization"), while every program that imported the store first worked. A type-only import is erased
 * and cannot close a cycle.
 *
 * No top folder of src/ (a component: crawler, fetch, store, query…) reaches back to a folder that reaches it,
 * type-only imports included: a component is then read, tested and replaced from the bottom up, and a change to
 * a low one (the reason vocabulary, the canonical form) cannot need a change to the crawler above it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/**
 * Each module's imports that run at load time, as esbuild sees them with TypeScript's rules (type-only imports,
 * and names used only as types, are erased), from one bundle of every module of src/.
 */
async function loadTimeImports(files: string[]): Promise<Map<string, string[]>> {
  const { metafile } = await build({
    entryPoints: files, bundle: true, write: false, metafile: true, platform: 'node', format: 'esm', packages: 'external', outdir: 'unused', logLevel: 'silent',
  });
  const abs = (p: string) => path.resolve(ROOT, p);
  return new Map(Object.entries(metafile.inputs).map(([file, input]) => [abs(file), input.imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => abs(i.path))]));
}

/**
 * Each top folder of src/ and the top folders its modules import, type-only imports and `import()` included, as
 * TypeScript's own pre-processor reads them. Keys and values are absolute paths of the folders (src/index.ts, the
 * package's front, stands for itself).
 */
function folderImports(files: string[], root = SRC): Map<string, string[]> {
  const folderOf = (file: string) => path.join(root, path.relative(root, file).split(path.sep)[0]);
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const from = folderOf(file);
    const to = graph.get(from) ?? graph.set(from, new Set()).get(from)!;
    for (const ref of ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), ref.fileName);
      if (!target.startsWith(root + path.sep)) continue;
      const folder = folderOf(target);
      if (folder !== from) to.add(folder);
    }
  }
  return new Map([...graph].map(([k, v]) => [k, [...v]]));
}

/** Strongly connected components of more than one node (Tarjan), as paths relative to src/. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(path.relative(SRC, w));
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('module graph of src/', () => {
  it('has no cycle of value imports, so any module can be imported first', async () => {
    const graph = await loadTimeImports(sources(SRC));
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
  });

  it('sees a cycle where there is one', () => {
    // The check's own check: the two modules of the fault above, as they were.
    const a = path.join(SRC, 'query/version-store.ts');
    const b = path.join(SRC, 'query/term-check-memo.ts');
    expect(cycles(new Map([[a, [b]], [b, [a]]]))).toEqual([['query/term-check-memo.ts', 'query/version-store.ts']]);
  });

  it('has no cycle between its top folders, type-only imports included', () => {
    const graph = folderImports(sources(SRC));
    expect(graph.size).toBeGreaterThan(10);
    expect(cycles(graph)).toEqual([]);
  });

  it('sees a cycle between folders made only of type imports', () => {
    // The shape this check was written against: the reason vocabulary in crawler/, typed by fetch/ and store/.
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'folder-cycle-'));
    try {
      fs.mkdirSync(path.join(root, 'crawler'));
      fs.mkdirSync(path.join(root, 'fetch'));
      const crawler = path.join(root, 'crawler/reasons.ts');
      const fetch = path.join(root, 'fetch/reasons.ts');
      fs.writeFileSync(crawler, `import type { FetchError } from '../fetch/reasons.ts';\nexport type Reason = 'dns' | FetchError;\n`);
      fs.writeFileSync(fetch, `import type { Reason } from '../crawler/reasons.ts';\nexport type FetchError = { reason: Reason };\n`);
      const graph = folderImports([crawler, fetch], root);
      expect(cycles(graph).map((c) => c.map((f) => path.relative(root, path.resolve(SRC, f))))).toEqual([['crawler', 'fetch']]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
