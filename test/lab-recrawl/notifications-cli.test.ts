/** `lab recrawl --notifications`: the JSON a user scripts against, the table, the plot, and option errors. */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runMain, runMainOk } from '../helpers.ts';
import { quickHistories } from '../../src/lab/report/quick-data.ts';

let dir: string;
let file: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-notify-'));
  file = path.join(dir, 'site.jsonl');
  fs.writeFileSync(file, quickHistories(60, 9).map((r) => JSON.stringify(r)).join('\n') + '\n');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Point { downloads: number; documentDownloads: number; channelDownloads: number; captured: number; recall: number; freshness: number; exceeded: boolean }
interface Cell { multiple: number; downloads: number; recall: Record<string, number | null>; vsBestEstimator: { estimate: number; low: number; high: number; pAdjusted: number } | null }

describe('lab recrawl --notifications', () => {
  it('prints per file and protocol every curve and the comparison at equal downloads, with consistent numbers', async () => {
    const out = JSON.parse(await runMainOk(['lab', 'recrawl', '--notifications', 'honest,lying,mixed', '--histories', file, '--factors', '0.5,1,2', '--samples', '50', '--poll', '1d', '--json']));
    expect(out.factors).toEqual([0.5, 1, 2]);
    expect(out.model).toMatchObject({ pollMs: 86_400_000, hosts: 1 });
    expect(out.runs.map((r: { protocol: string }) => r.protocol)).toEqual(['seed', 'lab']); // both protocols by default
    for (const run of out.runs) {
      expect(run.file).toBe('site');
      expect(run.scenarios.map((s: { scenario: string }) => s.scenario)).toEqual(['honest', 'lying', 'mixed']);
      const cap = 2 * Math.max(...out.multiples) * run.goldDownloads;
      const curves = [...run.estimators, ...run.scenarios.flatMap((s: { notified: unknown; trustLastmod: unknown }) => [s.notified, s.trustLastmod])];
      for (const c of curves as Array<{ strategy: string; points: Point[] }>) {
        expect(c.points).toHaveLength(3);
        for (const p of c.points) {
          expect(p.captured).toBeLessThanOrEqual(run.changes);
          expect(p.recall).toBeCloseTo(p.captured / run.changes, 9);
          expect(p.downloads).toBe(p.documentDownloads + p.channelDownloads);
          if (!p.exceeded && c.strategy !== 'gold') expect(p.downloads).toBeLessThanOrEqual(cap);
          expect(p.freshness).toBeGreaterThanOrEqual(0);
          expect(p.freshness).toBeLessThanOrEqual(1);
        }
      }
      for (const s of run.scenarios) {
        for (const b of s.budgets as Cell[]) {
          expect(b.downloads).toBe(Math.round(b.multiple * run.goldDownloads));
          for (const v of Object.values(b.recall)) if (v !== null) expect(v).toBeLessThanOrEqual(1);
          if (b.vsBestEstimator) {
            expect(b.vsBestEstimator.low).toBeLessThanOrEqual(b.vsBestEstimator.high);
            expect(b.vsBestEstimator.pAdjusted).toBeLessThanOrEqual(1);
          }
        }
      }
    }
  }, 300_000);

  it('--quick runs one protocol when asked, writes the table and the plot', async () => {
    const svg = path.join(dir, 'n.svg');
    const table = await runMainOk(['lab', 'recrawl', '--notifications', '--quick', '--histories', file, '--protocol', 'lab', '--plot', svg]);
    expect(table).toMatch(/### site, protocol lab: 60 documents/);
    expect(table).toMatch(/\| lying \| notified \| \d+ \|/);
    expect(table).toMatch(/\| honest \| 2 \| \d+ \|/);
    expect(table).not.toMatch(/protocol seed/);
    expect(fs.readFileSync(svg, 'utf8')).toContain('<svg');
  }, 300_000);

  it('says which kinds exist when given another', async () => {
    const r = await runMain(['lab', 'recrawl', '--notifications', 'honest,rss', '--histories', file]);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/unknown kind "rss": use none, honest, lagging, missing, lying, stream, mixed/);
    const both = await runMain(['lab', 'recrawl', '--notifications', '--budget-sweep', '--histories', file]);
    expect(both.err).toMatch(/different runs: give one/);
  });
});
