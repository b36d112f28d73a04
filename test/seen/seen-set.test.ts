import { describe, it, expect, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DiskSet } from '../../src/frontier/seen/disk-set.ts';
import { SeenSet } from '../../src/frontier/seen/index.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'seen-test-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => path.join(tmp, `d${dirs++}`);

function* randomUrls(n: number, universe: number, seed: number): Generator<string> {
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    const k = (x >>> 0) % universe;
    yield `http://host${k % 97}.example/p/${k}`;
  }
}

describe('DiskSet', () => {
  it('agrees with a JS Set on a random stream across flushes, background merges and a reopen', async () => {
    const dir = freshDir();
    let set = DiskSet.open({ dir, bufferKeys: 500 });
    const ref = new Set<string>();
    let i = 0;
    for (let hi = 0; hi < 3; hi++) {
      for (let round = 0; round < 30000; round++, i++) {
        const x = Math.imul(i, 2654435761) >>> 0;
        const h = (x % 40) + hi, l = (x % 20011) + 1;
        const key = `${h}:${l}`;
        expect(set.addIfNew(h, l)).toBe(!ref.has(key));
        ref.add(key);
        if (round % 700 === 0) await new Promise((r) => setImmediate(r)); // let merges progress
      }
      set.close();
      set = DiskSet.open({ dir, bufferKeys: 500 });
      expect(set.size).toBe(ref.size);
    }
    await set.idle();
    expect(set.runCount).toBeLessThan(12);
    for (const key of ref) {
      const [h, l] = key.split(':').map(Number);
      expect(set.has(h, l)).toBe(true);
    }
    expect(set.has(999, 5)).toBe(false);
    set.close();
  });

  it('a crash mid-merge leaves the last committed state: a copy taken during a merge reopens to the same membership', async () => {
    const dir = freshDir();
    const set = DiskSet.open({ dir, bufferKeys: 1000 });
    const keys: Array<[number, number]> = [];
    for (let k = 1; k <= 4000; k++) { keys.push([k % 13, k]); set.addIfNew(k % 13, k); }
    // Four runs were flushed; a merge is due and starts on the next event-loop turns.
    await new Promise((r) => setImmediate(r));
    const crashed = freshDir();
    fs.cpSync(dir, crashed, { recursive: true }); // the directory as a crash would leave it
    fs.writeFileSync(path.join(crashed, 'MANIFEST.tmp'), '{"runs": [tru'); // a torn manifest write
    fs.writeFileSync(path.join(crashed, 'run-999999.fp.tmp'), Buffer.alloc(12)); // a torn run
    await set.idle();
    set.close();
    const reopened = DiskSet.open({ dir: crashed, bufferKeys: 1000 });
    expect(reopened.size).toBe(4000);
    for (const [h, l] of keys) expect(reopened.has(h, l)).toBe(true);
    expect(fs.readdirSync(crashed)).not.toContain('run-999999.fp.tmp');
    expect(fs.readdirSync(crashed)).not.toContain('MANIFEST.tmp');
    await reopened.idle(); // the interrupted merge is simply redone
    expect(fs.readdirSync(crashed).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    for (const [h, l] of keys) expect(reopened.has(h, l)).toBe(true);
    reopened.close();
  });

  it('rejects a damaged manifest with a clear message', () => {
    const dir = freshDir();
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'MANIFEST'), 'not json');
    expect(() => DiskSet.open({ dir })).toThrow(/not valid JSON/);
  });
});

describe('SeenSet', () => {
  for (const cache of ['clock', 'lru', 'random', 'static'] as const) {
    it(`addIfNew with a ${cache} cache agrees with a JS Set, and the membership survives close and reopen`, async () => {
      const dir = freshDir();
      const urls = [...randomUrls(6000, 2500, 7)];
      const opts = { dir, cache, cacheSize: 64, bufferKeys: 300, staticUrls: urls.slice(0, 100) };
      let seen = await SeenSet.open(opts);
      const ref = new Set<string>();
      for (const [i, u] of urls.entries()) {
        expect(await seen.addIfNew(u)).toBe(!ref.has(u));
        ref.add(u);
        if (i === 3000) { await seen.close(); seen = await SeenSet.open(opts); }
      }
      expect(seen.size).toBe(ref.size);
      await seen.close();
      seen = await SeenSet.open(opts);
      for (const u of ref) expect(seen.has(u)).toBe(true);
      expect(seen.has('http://never.example/')).toBe(false);
      expect(await seen.addIfNew(urls[0])).toBe(false);
      await seen.close();
    });
  }

  it('addManyIfNew answers as one-by-one addIfNew would, duplicates inside a batch included', async () => {
    const a = await SeenSet.open({ dir: freshDir(), cacheSize: 32, bufferKeys: 200 });
    const b = await SeenSet.open({ dir: freshDir(), cacheSize: 32, bufferKeys: 200 });
    const urls = [...randomUrls(5000, 1500, 11)];
    for (let i = 0; i < urls.length; i += 250) {
      const batch = urls.slice(i, i + 250);
      const one: boolean[] = [];
      for (const u of batch) one.push(await a.addIfNew(u));
      expect(await b.addManyIfNew(batch)).toEqual(one);
    }
    expect(b.size).toBe(new Set(urls).size);
    await a.close();
    await b.close();
  });

  it('traceOut appends every URL the seen test receives', async () => {
    const trace = path.join(freshDir(), 'sub', 'trace.txt');
    const seen = await SeenSet.open({ dir: freshDir(), traceOut: trace });
    await seen.addIfNew('http://a.example/');
    await seen.addManyIfNew(['http://b.example/', 'http://a.example/']);
    seen.has('http://c.example/'); // a query, not a seen test
    await seen.close();
    expect(fs.readFileSync(trace, 'utf8')).toBe('http://a.example/\nhttp://b.example/\nhttp://a.example/\n');
  });

  it('rejects an unknown cache policy', async () => {
    await expect(SeenSet.open({ dir: freshDir(), cache: 'fifo' as never })).rejects.toThrow(/unknown cache policy 'fifo'/);
  });
});
