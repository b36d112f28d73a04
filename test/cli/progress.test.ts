import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ProgressLine } from '../../src/cli/progress.ts';

function sink(isTTY: boolean) {
  const out: string[] = [];
  const s = new Writable({ write: (c, _e, cb) => (out.push(String(c)), cb()) }) as unknown as NodeJS.WriteStream;
  Object.assign(s, { isTTY, columns: 80 });
  return { s, out };
}

describe('progress when stderr is not a terminal', () => {
  it('prints plain timestamped lines now and then, none for short work', () => {
    let t = 1_000_000;
    const { s, out } = sink(false);
    const p = new ProgressLine(s, { now: () => t, plainAfterMs: 2_000, plainEveryMs: 10_000 });
    p.update('indexing 10 versions');
    t += 1_000;
    p.update('indexing 20 versions');
    expect(out).toEqual([]); // short work stays silent
    t += 1_500;
    p.update('indexing 30 versions');
    t += 5_000;
    p.update('indexing 40 versions');
    t += 6_000;
    p.update('indexing 50 versions');
    p.done();
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z indexing 30 versions\n$/);
    expect(out[1]).toMatch(/indexing 50 versions\n$/);
    expect(out.join('')).not.toContain('\r');
  });

  it('redraws one line on a terminal, and prints nothing with mode none', () => {
    const tty = sink(true);
    const bar = new ProgressLine(tty.s);
    bar.update('a');
    bar.update('b');
    bar.done();
    expect(tty.out.every((w) => w.startsWith('\r'))).toBe(true);
    const quiet = sink(false);
    const none = new ProgressLine(quiet.s, { mode: 'none', plainAfterMs: 0 });
    none.update('x');
    none.done();
    expect(quiet.out).toEqual([]);
  });
});
