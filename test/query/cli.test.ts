import { describe, it, expect, afterEach } from 'vitest';
import { tempArchive, turtle, DAY, T0 } from './helpers.ts';
import { queryCommand } from '../../src/cli/commands/query.ts';
import { diffCommand } from '../../src/cli/commands/diff.ts';
import { UserError } from '../../src/util/errors.ts';

const DOC = 'http://example.org/doc.ttl';
const iso = (ms: number) => new Date(ms).toISOString();

async function fixture() {
  const t = tempArchive();
  await t.archive.putVersion(DOC, T0, turtle('ex:a ex:p "one" .'));
  await t.archive.putVersion(DOC, T0 + DAY, turtle('ex:a ex:p "two" .'));
  await t.archive.close();
  return t;
}

describe('CLI: datamonitor query / diff', () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  it('query prints a table, JSON results, and answers --at', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const table = await queryCommand('SELECT ?o WHERE { ?s ?p ?o }', { data: t.dir });
    expect(table).toContain('"two"');
    expect(table).toContain('1 result');
    const json = JSON.parse(await queryCommand('SELECT ?o WHERE { ?s ?p ?o }', { data: t.dir, json: true, at: iso(T0) }));
    expect(json.results.bindings[0].o).toEqual({ type: 'literal', value: 'one' });
    const notes: string[] = [];
    expect(await queryCommand('SELECT ?o WHERE { ?s ?p ?o }', { data: t.dir, at: iso(T0 - DAY) }, (n) => notes.push(n))).toContain('0 results');
    expect(notes).toEqual([`note: --at ${iso(T0 - DAY)} is before the archive's first version (${iso(T0)}): the archive was empty then\n`]);
    await queryCommand('SELECT ?o WHERE { ?s ?p ?o }', { data: t.dir, at: iso(T0) }, (n) => notes.push(n));
    expect(notes).toHaveLength(1); // at the first version: no note
    await expect(queryCommand('SELECT * {}', { data: t.dir, json: true, csv: true })).rejects.toThrow(UserError);
    await expect(queryCommand('SELECT * {}', { data: `${t.dir}/nothing-here` })).rejects.toThrow(/no versioned archive/);
  });

  it('query --versions takes a triple pattern, --changes a query, --list the documents', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const ver = JSON.parse(await queryCommand('<http://example.org/a> ?p ?o', { data: t.dir, versions: true, json: true }));
    expect(ver.map((v: { quad: { o: string }; versions: string[] }) => [v.quad.o, v.versions])).toEqual([['"one"', [iso(T0)]], ['"two"', [iso(T0 + DAY)]]]);
    const changes = await queryCommand('SELECT ?o WHERE { ?s ?p ?o }', { data: t.dir, changes: true });
    expect(changes).toContain(`${iso(T0 + DAY)}  +1 -1`);
    expect(await queryCommand(undefined, { data: t.dir, list: true })).toContain(`${DOC}  2 versions`);
  });

  it('diff prints +/- lines per document, N-Quads archive-wide, and JSON', async () => {
    const t = await fixture(); cleanup = t.cleanup;
    const { text, summary } = await diffCommand(DOC, { data: t.dir, from: iso(T0), to: iso(T0 + DAY) });
    expect(text).toBe('- <http://example.org/a> <http://example.org/p> "one" .\n+ <http://example.org/a> <http://example.org/p> "two" .\n');
    expect(summary).toMatch(/^1 added, 1 removed/);
    const all = await diffCommand(undefined, { data: t.dir, from: '2024-12-31', json: true });
    expect(JSON.parse(all.text).added).toEqual([`<http://example.org/a> <http://example.org/p> "two" <${DOC}> .`]);
    await expect(diffCommand('http://example.org/unknown', { data: t.dir, from: '2025-01-01' })).rejects.toThrow(/no version/);
    await expect(diffCommand(DOC, { data: t.dir, from: '2026-01-01', to: '2025-01-01' })).rejects.toThrow(UserError);
  });
});
