import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import { tempDir } from '../helpers.ts';

describe('tempDir', () => {
  it('adds one exit listener for all its directories, not one each (Node warns past ten)', () => {
    const before = process.listenerCount('exit');
    const dirs = Array.from({ length: 25 }, () => tempDir('dm-helpers-'));
    expect(process.listenerCount('exit') - before).toBeLessThanOrEqual(1);
    expect(new Set(dirs).size).toBe(25);
    for (const d of dirs) expect(fs.statSync(d).isDirectory()).toBe(true);
  });
});
