/**
 * `lab recrawl --held-out`: the lab report's held-out comparison on the user's own files, one command.
 * Each file is scored with the rate setting tuned on the others; the numbers must be what the report's
 * code (leaveOneFileOut) gives for the same files.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runMain, runMainOk } from '../helpers.ts';
import { quickHistories } from '../../src/lab/report/quick-data.ts';
import { historiesFromRecords } from '../../src/lab/recrawl/index.ts';
import { leaveOneFileOut } from '../../src/lab/recrawl/tuning.ts';
import { PROTOCOLS } from '../../src/lab/recrawl/protocol.ts';

let dir: string;
const records = [1, 2, 3].map((k) => quickHistories(40, 20 + k));
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-held-out-'));
  records.forEach((r, i) => fs.writeFileSync(path.join(dir, `site-${i + 1}.jsonl`), r.map((x) => JSON.stringify(x)).join('\n') + '\n'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('lab recrawl --held-out', () => {
  it('scores each file with the setting tuned on the others, with intervals, as the report does', async () => {
    const files = [1, 2, 3].map((i) => path.join(dir, `site-${i}.jsonl`));
    const factors = '0.5,1,2';
    const out = JSON.parse(await runMainOk(['lab', 'recrawl', '--held-out', '--histories', ...files, '--protocol', 'lab', '--factors', factors, '--json']));
    const expected = leaveOneFileOut(records.map((r, i) => ({ name: `site-${i + 1}`, h: historiesFromRecords(r) })), { protocol: PROTOCOLS.lab, factors: [0.5, 1, 2] });
    expect(out.protocol).toBe('lab');
    expect(out.folds.map((f: { heldOut: string }) => f.heldOut)).toEqual(['site-1', 'site-2', 'site-3']);
    for (const [i, f] of out.folds.entries()) {
      expect(f.tunedOn).toEqual(['site-1', 'site-2', 'site-3'].filter((n) => n !== f.heldOut));
      expect(f.configName).toBe(expected[i]!.configName);
      expect(f.heldOutGaps.map((g: { multiple: number }) => g.multiple)).toEqual([1.25, 1.5, 2]);
      expect(f.heldOutGaps).toEqual(JSON.parse(JSON.stringify(expected[i]!.heldOutGaps)));
    }
    const table = await runMainOk(['lab', 'recrawl', '--held-out', '--histories', ...files.slice(0, 2), '--factors', factors, '--plot', path.join(dir, 'h.svg')]);
    expect(table).toMatch(/\| site-1 \| rate\(decay .*\| 1\.25 \|/);
    expect(table).toMatch(/\[[-+]\d+\.\d, [-+]\d+\.\d\]/);
    expect(fs.readFileSync(path.join(dir, 'h.svg'), 'utf8')).toContain('<svg');
  }, 300_000);

  it('says what to give when one file is given', async () => {
    const r = await runMain(['lab', 'recrawl', '--held-out', '--histories', path.join(dir, 'site-1.jsonl')]);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/at least two --histories files/);
  });
});
