/**
 * No module of src/ imports values from a module that imports values back, directly or round a longer cycle.
 * Such a cycle works or crashes by which module a program imports first: `import { CHECKED_AFTER } from
 * 'src/query/term-check-memo.ts'` before anything else ran version-store.ts's body before term-check-memo.ts
 * had defined the DDL it uses ("ReferenceError: Cannot access 'SQLITE_TERM_CHECK_DDL' before
 * initialization"), while every program that imported the store first worked. A type-only import is erased
 * and cannot close a cycle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
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

/** Strongly connected components of more than one module (Tarjan), as paths relative to src/. */
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
});
