/**
 * The whole store's contract (MetadataStore: StoreLifecycle and what crosses interfaces): init and
 * reopen, a read-only open that refuses every write, and two processes writing one database at once.
 */
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { MetadataStore } from '../../../src/store/types.ts';
import { ReadOnlyStoreError } from '../../../src/store/read-only.ts';
import { type StoreMaker, useStores } from './harness.ts';
import { logEntry } from './crawl-log.ts';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../..');
const T0 = 1_700_000_000_000;

export function storeLifecycleContract(make: StoreMaker<MetadataStore>): void {
  describe.skipIf(make.skip)(`MetadataStore (lifecycle) on ${make.name}`, () => {
    const fx = useStores(make);

    it('init is idempotent and what was written survives close and reopen', async () => {
      const { s } = fx;
      await s.init();
      expect(await s.addDocuments([{ url: 'http://a.example/', host: 'a.example', depth: 0 }])).toBe(1);
      const id = await s.appendLog(logEntry({ url: 'http://a.example/' }));
      await s.putHost({ host: 'a.example', fetches: 1, errors: 0 });
      await s.close();
      await s.close(); // a second close is harmless
      const again = await fx.open();
      await again.init();
      expect((await again.getDocument('http://a.example/'))?.host).toBe('a.example');
      expect((await again.log()).map((e) => e.id)).toEqual([id]);
      expect((await again.getHost('a.example'))?.fetches).toBe(1);
    });

    it('opened read-only: reads what was written, refuses every write with ReadOnlyStoreError, and changes nothing', async () => {
      const { s } = fx;
      await s.addDocuments([{ url: 'http://a.example/x', host: 'a.example', depth: 0 }]);
      await s.appendLog(logEntry({}));
      await s.flush();
      const ro = await fx.openReadOnly();
      expect(await ro.countDocuments()).toBe(1);
      expect(await ro.log()).toHaveLength(1);
      expect((await ro.archiveCounts(T0)).documents.total).toBe(1);
      // One write at a time: a write started before the previous one's expectation would reject unobserved.
      const refused = [
        () => ro.appendLog(logEntry({})),
        () => ro.logFetch(logEntry({}), { state: 'fetched' }),
        () => ro.addDocuments([{ url: 'http://a.example/y', host: 'a.example', depth: 0 }]),
        () => ro.updateDocument('http://a.example/x', { state: 'fetched' }),
        () => ro.makeDue({ all: true }, T0),
        () => ro.putHost({ host: 'a.example', fetches: 1, errors: 0 }),
        () => ro.startCycle({ startedAt: T0, urls: 1, status: 'running' }),
        () => ro.finishCycle(1, { status: 'done' }),
      ];
      for (const write of refused) await expect(write()).rejects.toThrow(ReadOnlyStoreError);
      expect(await s.countDocuments()).toBe(1);
      expect(await s.log()).toHaveLength(1);
      expect((await s.getDocument('http://a.example/x'))?.state).toBe('queued');
      expect(await s.cycles()).toEqual([]);
    });

    it('two processes adding overlapping documents at once: every URL stored once, each counted new once', async () => {
      const { s, env } = fx;
      await s.flush();
      const child = (from: number, to: number) =>
        run(process.execPath, [path.join(repoRoot, 'bin/run-ts.mjs'), path.join(here, 'add-docs-child.ts'), env.target, String(from), String(to), '250'], { cwd: repoRoot });
      // 0..3000 and 1500..4500 overlap in 1500 URLs.
      const [a, b] = await Promise.all([child(0, 3000), child(1500, 4500)]);
      expect(JSON.parse(a.stdout).added + JSON.parse(b.stdout).added).toBe(4500);
      expect(await s.countDocuments()).toBe(4500);
      const urls: string[] = [];
      for await (const page of s.documentUrlPages(1000)) urls.push(...page);
      expect(urls).toHaveLength(4500);
      expect(new Set(urls).size).toBe(4500);
    });
  });
}
